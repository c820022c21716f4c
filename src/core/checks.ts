import type { Clock, TimerHandle } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { CheckResult } from '../domain/check.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import type { Monitor } from '../domain/monitor.ts';
import type { ObservedFailure } from '../domain/monitor-state.ts';
import type { OutageRecord } from '../domain/outage.ts';
import { LeaseLostError, type LeaderFence } from '../domain/cluster.ts';
import type { Store } from '../store/index.ts';
import type { Config } from '../config/schema.ts';
import { certExpiryNotice } from './cert-expiry.ts';
import type { EscalationService } from './escalation.ts';
import type { EventBus } from './events.ts';

/** Results kept in memory while writes fail; beyond this the oldest are dropped (and counted). */
const MAX_KEPT_RESULTS = 200_000;
/**
 * Least gap between two flush transactions run for state changes, ms of real time: in a storm
 * (thousands of flips a second) the changes of a few milliseconds share one commit instead of one
 * commit per turn of the event loop. A lone state change still commits at the next turn.
 */
const STATE_FLUSH_GAP_MS = 20;
/** Least delay before retrying a failed flush, ms. */
const FLUSH_RETRY_MS = 1000;

/**
 * Check results and monitor state changes.
 *
 * Plain results are group-committed: buffered and written in one transaction every
 * `flushIntervalMs` (ARCHITECTURE.md "Hot paths"). A state change (a flip, the new status, the
 * outage opened or resolved) does not wait that long: it is committed at the next turn of the event
 * loop (at most one such flush per {@link STATE_FLUSH_GAP_MS}) in a flush transaction with the buffered results and every other state change of that turn
 * (one transaction for a whole outage storm's burst, not one per outage), and only then are its
 * events emitted (house rule 3).
 */
export function checksService(deps: { store: Store; clock: Clock; bus: EventBus; logger: Logger; flushIntervalMs: number; escalation: EscalationService; config: Pick<Config, 'escalation_policies' | 'public_url' | 'channels'> }) {
  const { store, clock, bus, logger, flushIntervalMs, escalation, config } = deps;
  let buffer: CheckResult[] = [];
  let timer: TimerHandle | null = null;
  /** While `atomically` runs: events held until its transaction commits. */
  let held: Array<() => void> | null = null;
  /** Batches taken out of the buffer by the transaction running now: put back if it rolls back. */
  let taken: CheckResult[][] | null = null;
  /** State changes waiting for the next flush transaction (local probe), oldest first. */
  let changes: StateChange[] = [];
  /** State changes taken out of `changes` by the transaction running now: put back if it rolls back. */
  let takenChanges: StateChange[][] | null = null;
  /** The flush for waiting state changes (next turn, or the end of the gap), set while they wait. */
  let soon: { cancel(): void } | null = null;
  /** When the last flush for state changes ran (performance.now(), ms). */
  let lastStateFlush = -Infinity;
  /** Callers of `committed()` waiting for that flush. */
  let waiters: Array<() => void> = [];
  /** Flushes that failed (disk full, I/O error) since start, for /metrics; and the run of them now. */
  let flushFailures = 0;
  let failing = 0;
  let dropped = 0;
  /** The leader's fence (issue 31): every flush transaction checks the lease's epoch first; null on SQLite. */
  let fence: LeaderFence | null = null;

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
    for (const [id, days] of store.monitors.setSslExpirationMany(ssl)) {
      const m = store.monitors.getById(id);
      if (m) noticesQueued += certExpiryNotice(store, config, m, days, clock.now());
    }
    for (const [id, d] of store.monitors.setDegradedMany(degraded)) degradedChanged.set(id, d);
  };
  /**
   * Writes one state change (inside a transaction); the events it causes go to `after`, run once
   * the transaction has committed. Reads the outage once for its event (the joined record).
   */
  const apply = (c: StateChange, after: Array<() => void>) => {
    const { monitor, result } = c;
    const now = clock.now();
    if (c.down) {
      if (store.outages.openUuidForMonitor(monitor.id) !== undefined) return;
      store.checks.insertFlip(monitor.id, result.at, 'down', result.reason);
      store.monitors.setStatus(monitor.id, 'down');
      const row = {
        uuid: newId(ID_PREFIX.outage),
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
      const outage = escalation.opened(opened, monitor.alertsWaitMinutes, now) ? store.outages.get(row.uuid)! : opened;
      after.push(() => bus.emit('outage.opened', { outage }));
      return;
    }
    store.checks.insertFlip(monitor.id, result.at, 'up', null);
    store.monitors.setStatus(monitor.id, 'up');
    const open = store.outages.openForMonitor(monitor.id);
    if (!open) return;
    store.outages.resolve(open.uuid, result.at);
    escalation.resolved({ ...open, endAt: result.at }, now, null, null);
    const outage = store.outages.get(open.uuid)!;
    after.push(() => bus.emit('outage.resolved', { outage }));
  };
  /** Writes the buffered results and the waiting state changes, in order (inside a transaction). */
  const writePending = (after: Array<() => void>) => {
    writeBuffered();
    if (changes.length === 0) return;
    const batch = changes;
    changes = [];
    takenChanges?.push(batch);
    for (const c of batch) apply(c, after);
  };
  /** A state change: written now inside `atomically`, else queued for the flush at the next turn. */
  const stateChange = (c: StateChange) => {
    if (held) {
      buffer.push(c.result);
      writeBuffered();
      held.push(announce);
      apply(c, held);
      return;
    }
    buffer.push(c.result);
    changes.push(c);
    // While writes fail, the retry timer takes them (no failing transaction per state change).
    if (failing > 0 || soon) return;
    const run = () => {
      soon = null;
      lastStateFlush = performance.now();
      timer?.cancel();
      flush();
    };
    // Real time, not the clock: this bounds how often the process commits, not when a check is due.
    const wait = lastStateFlush + STATE_FLUSH_GAP_MS - performance.now();
    if (wait <= 0) {
      const h = setImmediate(run);
      soon = { cancel: () => clearImmediate(h) };
    } else {
      const h = setTimeout(run, wait);
      soon = { cancel: () => clearTimeout(h) };
    }
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
    const epoch = fence?.epoch() ?? null;
    taken = [];
    takenChanges = [];
    try {
      return epoch === null
        ? store.tx(fn)
        : store.tx((t) => {
            t.cluster.assertFence(epoch);
            return fn();
          });
    } catch (e) {
      if (e instanceof LeaseLostError) {
        // Another instance leads now and checks these monitors itself: what this one checked is not
        // stored (its state changes were judged on state the new leader may have moved on from).
        const results = taken.flat().length + buffer.length;
        const states = takenChanges.flat().length + changes.length;
        buffer = [];
        changes = [];
        logger.warn(`another instance took the lease over: ${results} check results and ${states} state changes of this instance's checks were not stored (the new leader checks these monitors)`, { epoch: e.epoch, results, state_changes: states });
        fence?.lost(e.epoch);
        throw e;
      }
      buffer = taken.flat().concat(buffer);
      changes = takenChanges.flat().concat(changes);
      if (buffer.length > MAX_KEPT_RESULTS) {
        dropped += buffer.length - MAX_KEPT_RESULTS;
        buffer = buffer.slice(buffer.length - MAX_KEPT_RESULTS);
      }
      throw e;
    } finally {
      taken = null;
      takenChanges = null;
    }
  };

  const flush = () => {
    timer = null;
    const after: Array<() => void> = [];
    try {
      if (buffer.length > 0 || changes.length > 0) tx(() => writePending(after));
      if (failing > 0) logger.info(`check results stored again after ${failing} failed flushes`, { failed_flushes: failing });
      failing = 0;
    } catch (e) {
      noticesQueued = 0;
      degradedChanged.clear();
      after.length = 0;
      // Fenced out (logged by tx): nothing is kept to retry.
      if (e instanceof LeaseLostError) return wakeWaiters();
      flushFailures++;
      // One line when the trouble starts, not one per retry.
      if (failing++ === 0) logger.error('storing check results failed; keeping them in memory and retrying', { results: buffer.length, error: (e as Error).message });
      timer ??= clock.setTimer(Math.max(flushIntervalMs, FLUSH_RETRY_MS), flush);
    }
    announce();
    for (const fn of after) fn();
    wakeWaiters();
  };
  const wakeWaiters = () => {
    const woken = waiters;
    waiters = [];
    for (const w of woken) w();
  };

  return {
    /**
     * Fences every later write of this service with the leader's lease (issue 31): each flush and
     * agent batch transaction checks the epoch first and, refused, drops what it held and ends
     * leadership (`fence.lost`). Wired by the leader work on a cluster; never on SQLite.
     */
    useFence(f: LeaderFence): void {
      fence = f;
    },
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
    /** Drops buffered results and waiting state changes of a deleted monitor. */
    discard(monitorId: number): void {
      buffer = buffer.filter((r) => r.monitorId !== monitorId);
      changes = changes.filter((c) => c.monitor.id !== monitorId);
    },
    /**
     * A confirmed failure: stores `result`, flips the monitor to `down` and opens an outage whose
     * start and location are the first failing check's (`detected`) and whose cause (description,
     * status code) is the confirming check's (`result`): the re-checks are what confirmed it, and the
     * first failure can be an artefact such as a stale kept-alive connection. Then emits
     * `outage.opened` (after the commit).
     * Does nothing but store the result when the monitor already has an ongoing outage.
     *
     * Inside {@link atomically} (an agent's batch) this is written in the caller's transaction.
     * Otherwise it joins the next **flush transaction**, run at the next turn of the event loop
     * (or {@link STATE_FLUSH_GAP_MS} after the previous one): every state change that arrived
     * meanwhile (an outage storm brings hundreds) commits in one transaction with the buffered
     * results, and its events follow that commit. A flush that
     * fails keeps its state changes with its results and retries them (never lost, never twice).
     */
    monitorDown(monitor: Monitor, result: CheckResult, detected: ObservedFailure, confirmedLocations: string[]): void {
      stateChange({ down: true, monitor, result, detected, confirmedLocations });
    },
    /**
     * Recovery: stores `result`, flips the monitor to `up` and resolves its ongoing outage at the
     * time of the passing check; then emits `outage.resolved`. Committed like {@link monitorDown}.
     */
    monitorUp(monitor: Monitor, result: CheckResult): void {
      stateChange({ down: false, monitor, result });
    },
    /** Resolves once the state changes queued now are committed (or failed); at once when none is queued. */
    committed(): Promise<void> {
      if (soon === null) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
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
          writePending(held!);
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
    /** Commits what is buffered (results and state changes) and stops the flush timers. @throws the store's error when that write fails */
    close(): void {
      timer?.cancel();
      timer = null;
      soon?.cancel();
      soon = null;
      // As before: a failure here throws to the caller (no retry timer after close).
      const after: Array<() => void> = [];
      try {
        if (buffer.length > 0 || changes.length > 0) tx(() => writePending(after));
      } catch (e) {
        // Fenced out: another instance leads and checks on (logged by tx); anything else is the caller's.
        if (!(e instanceof LeaseLostError)) throw e;
      } finally {
        wakeWaiters();
      }
      announce();
      for (const fn of after) fn();
    },
  };
}

/** A state change waiting for its flush transaction. */
type StateChange =
  | { down: true; monitor: Monitor; result: CheckResult; detected: ObservedFailure; confirmedLocations: string[] }
  | { down: false; monitor: Monitor; result: CheckResult };

/** The checks service's interface. */
export type ChecksService = ReturnType<typeof checksService>;
