import type { Clock } from '../lib/clock.ts';
import type { CheckResult } from '../domain/check.ts';
import type { Monitor } from '../domain/monitor.ts';
import type { ObservedFailure } from '../domain/monitor-state.ts';
import type { OutageRecord } from '../domain/outage.ts';
import type { Store } from '../store/index.ts';
import type { EscalationService } from './escalation.ts';
import type { EventBus } from './events.ts';
import { recordSentDuringOutage } from './checks-outage.ts';

/** A state change waiting for its flush transaction (core/checks.ts). */
export type StateChange = (
  | { down: true; monitor: Monitor; result: CheckResult; detected: ObservedFailure; confirmedLocations: string[]; uuid: string }
  | { down: false; monitor: Monitor; result: CheckResult }
) & {
  /**
   * Its alert (down) or recovery (up) was sent straight to these channels, about outage `outageUuid`,
   * while the database was down (issue 31 point 5; `at` epoch ms).
   */
  sent?: { channels: readonly string[]; at: number; outageUuid: string };
  /** Such a send is in flight: the change is not written until it has settled. */
  sending?: boolean;
};

/**
 * Writes one state change (inside a transaction); the events it causes go to `after`, run once
 * the transaction has committed. Reads the outage once for its event (the joined record). A down
 * change opens its outage under the uuid made when it was decided; one whose alert already went out
 * during a database outage has its just-queued outbox rows marked delivered.
 */
export function applyStateChange(deps: { store: Store; clock: Clock; bus: EventBus; escalation: EscalationService }, c: StateChange, after: Array<() => void>): void {
  const { store, clock, bus, escalation } = deps;
  const { monitor, result } = c;
  const now = clock.now();
  if (c.down) {
    if (store.outages.openUuidForMonitor(monitor.id) !== undefined) return;
    store.checks.insertFlip(monitor.id, result.at, 'down', result.reason);
    store.monitors.setStatus(monitor.id, 'down');
    const row = {
      // Made when the failure was decided: an alert sent during a database outage named it already.
      uuid: c.uuid,
      kind: 'monitor' as const,
      monitorId: monitor.id,
      healthcheckId: null,
      startAt: c.detected.at,
      statusCode: result.statusCode,
      description: result.reason ?? 'Check failed',
      detectedLocation: c.detected.region,
      confirmedLocations: c.confirmedLocations.join(','),
      protocol: monitor.protocol,
      severity: 'minor' as const,
      reportedBy: null,
      escalationPolicyUuid: monitor.escalationPolicyUuid,
      summary: null,
    };
    const incidentNumber = store.outages.insert(row, now);
    // The record as `store.outages.get` reads it back (a new monitor outage: nothing acknowledged,
    // no users, the monitor's own fields), without the joined read per outage.
    const opened: OutageRecord = {
      ...row,
      incidentNumber,
      endAt: null,
      acknowledgedAt: null,
      acknowledgedBy: null,
      alertedSteps: 0,
      escalationStartAt: null,
      nextAlertAt: null,
      postmortem: null,
      monitor: { uuid: monitor.uuid, name: monitor.name, url: monitor.url, protocol: monitor.protocol },
      healthcheck: null,
      acknowledgedByUser: null,
      reportedByUser: null,
    };
    const changed = escalation.opened(opened, monitor.alertsWaitMinutes, now);
    recordSentDuringOutage(store, c, row.uuid);
    const outage = changed ? store.outages.get(row.uuid)! : opened;
    after.push(() => bus.emit('outage.opened', { outage }));
    return;
  }
  store.checks.insertFlip(monitor.id, result.at, 'up', null);
  store.monitors.setStatus(monitor.id, 'up');
  const open = store.outages.openForMonitor(monitor.id);
  if (!open) return;
  store.outages.resolve(open.uuid, result.at);
  escalation.resolved({ ...open, endAt: result.at }, now, null, null);
  recordSentDuringOutage(store, c, open.uuid);
  const outage = store.outages.get(open.uuid)!;
  after.push(() => bus.emit('outage.resolved', { outage }));
}
