import type { Clock, TimerHandle } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { CheckResult } from '../domain/check.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import type { Monitor } from '../domain/monitor.ts';
import type { ObservedFailure } from '../domain/monitor-state.ts';
import type { Store } from '../store/index.ts';
import type { Config } from '../config/schema.ts';
import { certExpiryNotice } from './cert-expiry.ts';
import type { EscalationService } from './escalation.ts';
import type { EventBus } from './events.ts';

/** Results kept in memory while writes fail; beyond this the oldest are dropped (and counted). */
const MAX_KEPT_RESULTS = 200_000;
/** Least delay before retrying a failed flush, ms. */
const FLUSH_RETRY_MS = 1000;

/**
 * Check results and monitor state changes.
 *
 * Plain results are group-committed: buffered and written in one transaction every
 * `flushIntervalMs` (ARCHITECTURE.md "Hot paths"). A state change is different (house rule 3):
 * the buffered results, the flip, the new status and the outage are committed together in one
 * transaction at once, and only then is the event emitted.
 */
export function checksService(deps: { store: Store; clock: Clock; bus: EventBus; logger: Logger; flushIntervalMs: number; escalation: EscalationService; config: Pick<Config, 'escalation_policies' | 'public_url'> }) {
  const { store, clock, bus, logger, flushIntervalMs, escalation, config } = deps;
  let buffer: CheckResult[] = [];
  let timer: TimerHandle | null = null;
  /** While `atomically` runs: events held until its transaction commits. */
  let held: Array<() => void> | null = null;
  const notify = (fn: () => void) => (held ? held.push(fn) : fn());
  /** Batches taken out of the buffer by the transaction running now: put back if it rolls back. */
  let taken: CheckResult[][] | null = null;
  /** Flushes that failed (disk full, I/O error) since start, for /metrics; and the run of them now. */
  let flushFailures = 0;
  let failing = 0;
  let dropped = 0;

  /** Notices queued by the last write (certificate expiry), announced after its commit. */
  let noticesQueued = 0;
  /** Monitors whose degraded flag the last write changed (monitor id → flag), announced after its commit. */
  const degradedChanged = new Map<number, boolean>();
  const writeBuffered = () => {
    if (buffer.length === 0) return;
    const batch = buffer;
    buffer = [];
    taken?.push(batch);
    store.checks.insertResults(batch);
    // Only the newest certificate reading and the newest degraded flag per monitor matter.
    const ssl = new Map<number, number | null>();
    const degraded = new Map<number, boolean>();
    for (const r of batch) {
      if (r.sslExpirationDays !== undefined) ssl.set(r.monitorId, r.sslExpirationDays);
      degraded.set(r.monitorId, r.ok && r.degraded === true);
    }
    for (const [id, days] of ssl) {
      if (!store.monitors.setSslExpiration(id, days)) continue;
      const m = store.monitors.getById(id);
      if (m) noticesQueued += certExpiryNotice(store, config.escalation_policies, config.public_url, m, days, clock.now());
    }
    for (const [id, d] of store.monitors.setDegradedMany(degraded)) degradedChanged.set(id, d);
  };
  const announce = () => {
    // Status pages show degraded performance: they render again when the flag flips.
    for (const [monitorId, degraded] of degradedChanged) bus.emit('monitor.degraded', { monitorId, degraded });
    degradedChanged.clear();
    if (noticesQueued === 0) return;
    const count = noticesQueued;
    noticesQueued = 0;
    bus.emit('notices.queued', { count });
  };

  /**
   * `store.tx(fn)`, except that results `fn` took out of the buffer go back to its front when the
   * transaction rolls back: a failed write (SQLITE_FULL, an I/O error) never loses a result. Past
   * {@link MAX_KEPT_RESULTS} the oldest are dropped (counted) so a disk full for days cannot exhaust memory.
   */
  const tx = <T>(fn: () => T): T => {
    if (taken) return store.tx(fn);
    taken = [];
    try {
      return store.tx(fn);
    } catch (e) {
      buffer = taken.flat().concat(buffer);
      if (buffer.length > MAX_KEPT_RESULTS) {
        dropped += buffer.length - MAX_KEPT_RESULTS;
        buffer = buffer.slice(buffer.length - MAX_KEPT_RESULTS);
      }
      throw e;
    } finally {
      taken = null;
    }
  };

  const flush = () => {
    timer = null;
    try {
      tx(writeBuffered);
      if (failing > 0) logger.info(`check results stored again after ${failing} failed flushes`, { failed_flushes: failing });
      failing = 0;
    } catch (e) {
      noticesQueued = 0;
      degradedChanged.clear();
      flushFailures++;
      // One line when the trouble starts, not one per retry.
      if (failing++ === 0) logger.error('storing check results failed; keeping them in memory and retrying', { results: buffer.length, error: (e as Error).message });
      timer ??= clock.setTimer(Math.max(flushIntervalMs, FLUSH_RETRY_MS), flush);
    }
    announce();
  };

  return {
    /** Buffers a result; it is committed within `flushIntervalMs`. */
    record(result: CheckResult): void {
      buffer.push(result);
      timer ??= clock.setTimer(flushIntervalMs, flush);
    },
    /** Commits buffered results now (shutdown, tests). */
    flush(): void {
      timer?.cancel();
      flush();
    },
    /** Start time (epoch ms) of the newest stored result of a monitor, or null. */
    lastCheckAt: (monitorId: number): number | null => store.checks.lastCheckAt(monitorId),
    /** Results waiting for the next group commit. */
    pending: (): number => buffer.length,
    /** Failed flushes since start, and results dropped because too many piled up while writes failed (for /metrics). */
    flushStats: (): { failures: number; dropped: number } => ({ failures: flushFailures, dropped }),
    /** Drops buffered results of a deleted monitor. */
    discard(monitorId: number): void {
      buffer = buffer.filter((r) => r.monitorId !== monitorId);
    },
    /**
     * A confirmed failure: stores `result`, flips the monitor to `down` and opens an outage whose
     * start and location are the first failing check's (`detected`) and whose cause (description,
     * status code) is the confirming check's (`result`): the re-checks are what confirmed it, and the
     * first failure can be an artefact such as a stale kept-alive connection. One transaction; then
     * emits `outage.opened`.
     * Does nothing but store the result when the monitor already has an ongoing outage.
     */
    monitorDown(monitor: Monitor, result: CheckResult, detected: ObservedFailure, confirmedLocations: string[]): void {
      const outage = tx(() => {
        buffer.push(result);
        writeBuffered();
        if (store.outages.openForMonitor(monitor.id)) return undefined;
        store.checks.insertFlip(monitor.id, result.at, 'down', result.reason);
        store.monitors.setStatus(monitor.id, 'down');
        const uuid = newId(ID_PREFIX.outage);
        store.outages.insert(
          {
            uuid,
            kind: 'monitor',
            monitorId: monitor.id,
            healthcheckId: null,
            startAt: detected.at,
            statusCode: result.statusCode,
            description: result.reason ?? 'Check failed',
            detectedLocation: detected.region,
            confirmedLocations: confirmedLocations.join(','),
            protocol: monitor.protocol,
            severity: 'minor',
            reportedBy: null,
            escalationPolicyUuid: monitor.escalationPolicyUuid,
            summary: null,
          },
          clock.now(),
        );
        escalation.opened(store.outages.get(uuid)!, monitor.alertsWaitMinutes, clock.now());
        return store.outages.get(uuid)!;
      });
      notify(announce);
      if (outage) notify(() => bus.emit('outage.opened', { outage }));
    },
    /**
     * Recovery: stores `result`, flips the monitor to `up` and resolves its ongoing outage at the
     * time of the passing check, in one transaction; then emits `outage.resolved`.
     */
    monitorUp(monitor: Monitor, result: CheckResult): void {
      const outage = tx(() => {
        buffer.push(result);
        writeBuffered();
        store.checks.insertFlip(monitor.id, result.at, 'up', null);
        store.monitors.setStatus(monitor.id, 'up');
        const open = store.outages.openForMonitor(monitor.id);
        if (!open) return undefined;
        store.outages.resolve(open.uuid, result.at);
        const resolved = store.outages.get(open.uuid)!;
        escalation.resolved(resolved, clock.now(), null, null);
        return store.outages.get(open.uuid)!;
      });
      notify(announce);
      if (outage) notify(() => bus.emit('outage.resolved', { outage }));
    },
    /**
     * Runs `fn` (which records results and state changes through this service) in one transaction
     * that also commits every buffered result; the events of its state changes go out after the
     * commit (house rule 3). A remote probe's batch is stored this way, with its batch id, so a
     * batch is either wholly stored or not at all. `committed` runs after the commit and before
     * those events (the caller applies its in-memory changes there); neither runs on a rollback.
     */
    atomically<T>(fn: () => T, committed?: () => void): T {
      if (held) return fn();
      held = [];
      let events: Array<() => void> = [];
      try {
        const out = tx(() => {
          const r = fn();
          writeBuffered();
          return r;
        });
        events = held;
        committed?.();
        return out;
      } finally {
        held = null;
        for (const e of events) e();
        announce();
      }
    },
    /** Commits what is buffered and stops the flush timer. */
    close(): void {
      timer?.cancel();
      timer = null;
      tx(writeBuffered);
      announce();
    },
  };
}

/** The checks service's interface. */
export type ChecksService = ReturnType<typeof checksService>;
