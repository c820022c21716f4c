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
import { drainJournal, journalResults, offerDirect, type DirectAlert, type ResultJournal } from './checks-outage.ts';
import { applyStateChange, type StateChange } from './state-changes.ts';

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
/** Delay before writing a state change whose direct send (database outage) is still in flight, ms. */
const SEND_WAIT_MS = 250;
/** Delay before trying the outage journal again when storing it failed, ms. */
const DRAIN_RETRY_MS = 5000;

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
  /** Issue 31 point 5 (several instances): results of failed flushes go to this journal; null on SQLite. */
  let journal: ResultJournal | null = null;
  /** Issue 31 point 5: sends the alerts of state changes decided while the database is down; null on SQLite. */
  let direct: DirectAlert | null = null;
  let journalTrouble = false;
  /** Storing the journal failed (logged once until it works). */
  let drainFailing = false;
  /** Retries storing the journal while it holds batches. */
  let drainTimer: TimerHandle | null = null;

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
  const apply = (c: StateChange, after: Array<() => void>) => applyStateChange({ store, clock, bus, escalation }, c, after);
  /** Writes the buffered results and the waiting state changes, in order (inside a transaction). */
  const writePending = (after: Array<() => void>) => {
    writeBuffered();
    if (changes.length === 0) return;
    // A change whose alert is being sent straight to its channels (database outage) waits for that
    // send to settle, so its queued outbox rows are marked delivered; the changes after it keep their order.
    const waiting = changes.findIndex((c) => c.sending);
    const batch = waiting < 0 ? changes : changes.slice(0, waiting);
    changes = waiting < 0 ? [] : changes.slice(waiting);
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
    if (direct && failing > 0) offerDirect(changes, direct, clock, logger);
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
        // Changes already announced during a database outage are facts people were told: kept, and
        // written unfenced by the flush's catch (announcedAfterFence).
        announced = takenChanges.flat().concat(changes).filter((c) => (c.sent?.channels.length ?? 0) > 0);
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
      // When everything went to the outage journal, storing the journal is the retry.
      const retryJournal = buffer.length === 0 && changes.length === 0 && failing > 0 && (journal?.stats().batches ?? 0) > 0;
      if (retryJournal && !drainJournal(store, journal!, clock, logger, false)) timer ??= clock.setTimer(Math.max(flushIntervalMs, FLUSH_RETRY_MS), flush);
      else if (retryJournal || buffer.length > 0 || changes.length > 0) {
        if (!retryJournal) tx(() => writePending(after));
        if (failing > 0) logger.info(`check results stored again after ${failing} failed flushes`, { failed_flushes: failing });
        failing = 0;
      }
      if (changes.length > 0) timer ??= clock.setTimer(SEND_WAIT_MS, flush);
      if (failing === 0) drain();
    } catch (e) {
      noticesQueued = 0;
      degradedChanged.clear();
      after.length = 0;
      // Fenced out (logged by tx): nothing is kept to retry but what people were already told.
      if (e instanceof LeaseLostError) {
        writeAnnounced();
        return wakeWaiters();
      }
      flushFailures++;
      // One line when the trouble starts, not one per retry.
      if (failing++ === 0) logger.error(`storing check results failed; keeping them ${journal ? 'in the outage journal' : 'in memory'} and retrying`, { results: buffer.length, error: (e as Error).message });
      if (journal) buffer = journalResults(journal, buffer, troubled);
      if (direct) offerDirect(changes, direct, clock, logger);
      timer ??= clock.setTimer(Math.max(flushIntervalMs, FLUSH_RETRY_MS), flush);
    }
    announce();
    for (const fn of after) fn();
    wakeWaiters();
  };
  /** Changes announced during a database outage, kept when the flush was fenced out. */
  let announced: StateChange[] = [];
  /**
   * Another instance took the lease over while this one held changes it had already announced (a
   * database outage it kept checking through): they are written without the fence, so the alerts sent
   * are on record and never sent again. A change the new leader made meanwhile wins (an open outage is
   * not opened twice; a recovery resolves only the outage its alert named).
   */
  const writeAnnounced = () => {
    const list = announced;
    announced = [];
    if (list.length === 0) return;
    const after: Array<() => void> = [];
    try {
      store.tx(() => {
        for (const c of list) if (c.down || store.outages.openForMonitor(c.monitor.id)?.uuid === c.sent?.outageUuid) apply(c, after);
      });
      logger.warn(`wrote ${list.length} state changes announced during the database outage although another instance leads now (their alerts are not sent again)`, { state_changes: list.length });
    } catch (e) {
      after.length = 0;
      logger.error('state changes announced during the database outage could not be written; their alerts may be sent again', { state_changes: list.length, error: (e as Error).message });
    }
    for (const fn of after) fn();
  };
  const troubled = (why: string) => {
    if (!journalTrouble) logger.error(`${why}: check results are kept in memory (at most ${MAX_KEPT_RESULTS})`);
    journalTrouble = true;
  };
  /** Stores the outage journal's batches when it has any; retries later while some are left. */
  const drain = () => {
    if (!journal || journal.stats().batches === 0) return;
    drainTimer?.cancel();
    drainTimer = null;
    if (drainJournal(store, journal, clock, logger, !drainFailing)) drainFailing = journalTrouble = false;
    else [drainFailing, drainTimer] = [true, clock.setTimer(DRAIN_RETRY_MS, drain)];
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
    /**
     * Issue 31 point 5 (several instances): while flushes fail, results go to `j` (a local journal,
     * stored again in batches claimed by id, never twice) and each decided state change is offered to
     * `send` (which sends its alert straight through its channels during a confirmed database outage;
     * the outbox rows its flush queues later are then marked delivered). Batches a crash left in the
     * journal are stored as soon as the database answers. Wired by the leader work; never on SQLite.
     */
    useOutageSupport(j: ResultJournal, send: DirectAlert): void {
      journal = j;
      direct = send;
      drain();
    },
    /** The outage journal's batches and bytes on disk (zeros without one). */
    journalStats: (): { batches: number; bytes: number } => journal?.stats() ?? { batches: 0, bytes: 0 },
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
      stateChange({ down: true, monitor, result, detected, confirmedLocations, uuid: newId(ID_PREFIX.outage) });
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
      drainTimer?.cancel();
      drainTimer = null;
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

/** The checks service's interface. */
export type ChecksService = ReturnType<typeof checksService>;
