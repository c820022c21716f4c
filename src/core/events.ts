import type { Healthcheck } from '../domain/healthcheck.ts';
import type { MaintenanceWindow } from '../domain/maintenance.ts';
import type { Monitor } from '../domain/monitor.ts';
import type { Region } from '../domain/regions.ts';
import type { OutageRecord } from '../domain/outage.ts';
import type { LandedResult } from '../domain/heartbeat.ts';

/** Events the core emits after a commit (house rule 3: commit, then notify). */
export interface PharosEvents {
  'monitor.created': { monitor: Monitor };
  'monitor.updated': { monitor: Monitor };
  'monitor.deleted': { monitorId: number; uuid: string };
  /**
   * The tags of these monitors changed without an edit of theirs (a bulk "add tag", a tag renamed,
   * recoloured or deleted): their console rows are redrawn; nothing about their checks changed.
   */
  'monitor.tagged': { uuids: string[] };
  /** Created, updated, paused, resumed, pinged or flipped: its deadline may have moved. */
  'healthcheck.changed': { healthcheck: Healthcheck };
  'healthcheck.deleted': { healthcheckId: number; uuid: string };
  'outage.opened': { outage: OutageRecord };
  'outage.resolved': { outage: OutageRecord };
  'outage.acknowledged': { outage: OutageRecord };
  'outage.unacknowledged': { outage: OutageRecord };
  'outage.escalated': { outage: OutageRecord };
  'outage.deleted': { uuid: string; incidentNumber: number };
  'maintenance.changed': { window: MaintenanceWindow };
  'maintenance.deleted': { window: MaintenanceWindow };
  /**
   * The local probe's share of a monitor changed: check `monitor` and record results under
   * `region` (next due at `nextDueAt`, epoch ms, or null to spread first checks), or stop checking
   * it (`monitor` and `region` null).
   */
  'probe.local': { monitorId: number; monitor: Monitor | null; region: Region | null; nextDueAt: number | null };
  /** The local probe must re-check a monitor after `delayMs` (confirmation). */
  'probe.local.recheck': { monitorId: number; delayMs: number };
  /** A failure was not confirmed by the other locations (or by re-checks): no outage. */
  'check.unconfirmed': { monitorId: number; failures: number };
  /** A remote agent's batch of results was stored. */
  'probe.results': { agent: string; region: Region; count: number };
  /**
   * Results of an agent's batch were refused (issue #14 point 3): `not_assigned` — a monitor the
   * agent does not check now (another region's, another agent's, paused or deleted); `time` — `at`
   * outside [now − 24 h, now + 2 min].
   */
  'probe.refused': { agent: string; region: Region; reason: 'not_assigned' | 'time'; count: number };
  /**
   * Public status-page content changed outside the events above: an incident (or its update), a
   * component, or a status page itself (created, edited, deleted). The page render cache listens.
   */
  'statuspage.content': { kind: 'incident' | 'component' | 'statuspage'; uuid: string };
  /** A monitor's last check turned slower than its degraded threshold, or fast again (committed). */
  'monitor.degraded': { monitorId: number; degraded: boolean };
  /** Check results were committed (each flush; local probe and agents' batches): the console's live heartbeat bars (issue 33 point 2). */
  'checks.stored': { results: LandedResult[] };
  /** Messages were queued in the outbox for status-page subscribers (the dispatcher should wake). */
  'notices.queued': { count: number };
}

type Listener<K extends keyof PharosEvents> = (payload: PharosEvents[K]) => void;

/** A small typed, synchronous event bus. A throwing listener is reported and does not stop the others. */
export class EventBus {
  readonly #listeners = new Map<keyof PharosEvents, Set<Listener<never>>>();
  /**
   * True while a change another instance made is re-announced here (the cluster relay, issue 22):
   * listeners that act once per cluster rather than once per instance (the operator's log) skip it.
   */
  replaying = false;
  readonly #onError: (err: unknown, event: string) => void;

  /** @param onError called when a listener throws (default: rethrown on the next tick) */
  constructor(onError: (err: unknown, event: string) => void = (e) => queueMicrotask(() => { throw e; })) {
    this.#onError = onError;
  }

  /** Subscribes; returns the unsubscribe function. */
  on<K extends keyof PharosEvents>(event: K, fn: Listener<K>): () => void {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(fn as Listener<never>);
    return () => set.delete(fn as Listener<never>);
  }

  /** Calls every listener of `event` in subscription order. */
  emit<K extends keyof PharosEvents>(event: K, payload: PharosEvents[K]): void {
    for (const fn of this.#listeners.get(event) ?? []) {
      try {
        (fn as Listener<K>)(payload);
      } catch (e) {
        this.#onError(e, event);
      }
    }
  }
}
