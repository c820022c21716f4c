import type { CheckResult } from '../domain/check.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import type { Monitor } from '../domain/monitor.ts';
import type { ObservedFailure } from '../domain/monitor-state.ts';
import type { OutageRecord } from '../domain/outage.ts';
import type { Store } from '../store/index.ts';
import { escalationOpened, escalationResolved, type AlertGate, type EscalationSettings } from './escalation.ts';
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
  /** A down change's outage was shown to the alert gates (`AlertGate.opened`, main thread) before its first flush. */
  gated?: boolean;
  /** And the in-memory gates held its sends at that moment (the procedure's gate snapshot). */
  held?: boolean;
};

/** A confirmed failure's state change, with the uuid its outage will have (made now: an alert sent during a database outage names it). */
export function downChange(monitor: Monitor, result: CheckResult, detected: ObservedFailure, confirmedLocations: string[]): StateChange {
  return { down: true, monitor, result, detected, confirmedLocations, uuid: newId(ID_PREFIX.outage) };
}

/** The event a written state change causes, emitted by the caller once the transaction has committed. */
export type StateEvent = { type: 'outage.opened' | 'outage.resolved'; outage: OutageRecord };

/** The row of the monitor outage a down change opens. */
function outageRow(c: Extract<StateChange, { down: true }>) {
  const { monitor, result } = c;
  return {
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
}

/**
 * The record of the monitor outage a down change opens, as `store.outages.get` reads it back (a new
 * monitor outage: nothing acknowledged, no users, the monitor's own fields), without the joined read.
 * The alert gates see it before the transaction (`incidentNumber` 0 there: not known yet).
 */
export function openedRecord(c: Extract<StateChange, { down: true }>, incidentNumber: number): OutageRecord {
  const { monitor } = c;
  return {
    ...outageRow(c),
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
}

/**
 * Writes one state change inside the transaction of `tx` (a pure function of the transaction: it runs
 * in a procedure, on the store host thread on PostgreSQL) and returns the event it causes, to be
 * emitted once the transaction has committed (null: nothing changed). Reads the outage once for its
 * event (the joined record). A down change opens its outage under the uuid made when it was decided;
 * one whose alert already went out during a database outage has its just-queued outbox rows marked
 * delivered. `esc` and `gate` are the escalation settings and the procedure's gate (escalation.ts `procedureGate`).
 */
export function applyStateChange(tx: Store, esc: EscalationSettings, gate: AlertGate, c: StateChange, now: number): StateEvent | null {
  const { monitor, result } = c;
  if (c.down) {
    if (tx.outages.openUuidForMonitor(monitor.id) !== undefined) return null;
    tx.checks.insertFlip(monitor.id, result.at, 'down', result.reason);
    tx.monitors.setStatus(monitor.id, 'down');
    const row = outageRow(c);
    const opened = openedRecord(c, tx.outages.insert(row, now));
    const changed = escalationOpened(tx, esc, gate, opened, monitor.alertsWaitMinutes, now);
    recordSentDuringOutage(tx, c, row.uuid);
    return { type: 'outage.opened', outage: changed ? tx.outages.get(row.uuid)! : opened };
  }
  tx.checks.insertFlip(monitor.id, result.at, 'up', null);
  tx.monitors.setStatus(monitor.id, 'up');
  const open = tx.outages.openForMonitor(monitor.id);
  if (!open) return null;
  tx.outages.resolve(open.uuid, result.at);
  escalationResolved(tx, esc, { ...open, endAt: result.at }, now, null, null);
  recordSentDuringOutage(tx, c, open.uuid);
  return { type: 'outage.resolved', outage: tx.outages.get(open.uuid)! };
}
