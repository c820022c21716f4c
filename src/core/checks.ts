import type { Clock, TimerHandle } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { CheckResult } from '../domain/check.ts';
import type { Monitor } from '../domain/monitor.ts';
import type { ObservedFailure } from '../domain/monitor-state.ts';
import { LeaseLostError, type LeaderFence } from '../domain/cluster.ts';
import type { Store } from '../store/index.ts';
import type { Config } from '../config/schema.ts';
import { AppError } from '../lib/errors.ts';
import type { EscalationService, GateSnapshot } from './escalation.ts';
import type { OutageRecord } from '../domain/outage.ts';
import type { EventBus } from './events.ts';
import { drainJournal, journalResults, offerDirect, type DirectAlert, type ResultJournal } from './checks-outage.ts';
import { flushChecks, writeAnnouncedChanges, type FlushGroup, type FlushOutcome } from './checks-flush.ts';
import { downChange, openedRecord, type StateChange, type StateEvent } from './state-changes.ts';

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
 *
 * Every write is a procedure (core/checks-flush.ts) run through `store.async` (issue 31: on
 * PostgreSQL the event loop never waits on the database), one at a time: a flush asked for while one
 * is in flight runs after it, with what arrived meanwhile; agent batches and the outage journal take
 * their turn in the same line, and `close()` awaits the write in flight.
 */
export function checksService(deps: { store: Store; clock: Clock; bus: EventBus; logger: Logger; flushIntervalMs: number; escalation: EscalationService; gatesOpened?: (o: OutageRecord, now: number) => void; config: Pick<Config, 'escalation_policies' | 'public_url' | 'channels'> }) {
  const { store, clock, bus, logger, flushIntervalMs, escalation, config } = deps;
  /** What procedures read of the config (cloned to the store host on PostgreSQL). */
  const procConfig = { escalation_policies: config.escalation_policies, public_url: config.public_url, channels: config.channels };
  let buffer: CheckResult[] = [];
  let timer: TimerHandle | null = null;
  /** State changes waiting for the next flush transaction (local probe), oldest first. */
  let changes: StateChange[] = [];
  /** The flush for waiting state changes (next turn, or the end of the gap), set while they wait. */
  let soon: { cancel(): void } | null = null;
  /** When the last flush for state changes ran (performance.now(), ms). */
  let lastStateFlush = -Infinity;
  /** Callers of `committed()` waiting for the writes queued now. */
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
  /** Changes announced during a database outage, kept when the flush was fenced out. */
  let announced: StateChange[] = [];
  /** The end of the line of writes (each runs after the one before), its length, and a flush waiting in it. */
  let tail: Promise<unknown> = Promise.resolve();
  let queuedWrites = 0;
  let queuedFlush: Promise<void> | null = null;
  let closed = false;

  /** Runs `job` after every write queued before it; never two at once. */
  const serial = <T>(job: () => Promise<T>): Promise<T> => {
    queuedWrites++;
    const p = tail.then(job).finally(() => {
      if (--queuedWrites === 0 && soon === null) wakeWaiters();
    });
    // The caller gets the job's error through `p`; the line only waits for the job to end.
    tail = p.catch(() => undefined);
    return p;
  };
  /** A flush, after the write in flight; one flush waits in the line at most (it takes whatever is buffered when it runs). */
  const flush = (): Promise<void> =>
    (queuedFlush ??= serial(async () => {
      queuedFlush = null;
      await runFlush();
    }));
  const onTimer = () => {
    timer = null;
    void flush();
  };

  /**
   * Shows each new down change's outage to the alert gates once, on the main thread where they live
   * (the flood guard counts it and may start a flood), and takes their word on holding its sends right
   * then, as the opening transaction used to (an outage that started a flood is held; the ones before
   * it were not). The procedure gets the verdicts as data; maintenance windows it reads itself. Monitors with dependencies (issue 36) are not shown: their failures are their parents'.
   */
  const askGates = (list: readonly StateChange[], now: number): GateSnapshot => {
    const held: string[] = [];
    for (const c of list) {
      if (!c.down) continue;
      if (!c.gated) {
        c.gated = true;
        if (!c.monitor.dependsOn?.length) deps.gatesOpened?.(openedRecord(c, 0), now);
        c.held = escalation.snapshot([c.uuid]).held.length > 0;
      }
      if (c.held) held.push(c.uuid);
    }
    return { held };
  };
  /** Emits what a committed write caused: degraded flags, queued notices, then the outages' events. */
  const announce = (out: { degraded: Array<[number, boolean]>; notices: number; events: StateEvent[]; heldByGates: string[] }) => {
    escalation.reportHeld(out.heldByGates);
    // Status pages show degraded performance: they render again when the flag flips.
    const degraded = new Map(out.degraded);
    for (const [monitorId, flag] of degraded) bus.emit('monitor.degraded', { monitorId, degraded: flag });
    if (out.notices > 0) bus.emit('notices.queued', { count: out.notices });
    for (const ev of out.events) bus.emit(ev.type, { outage: ev.outage });
  };
  const isLeaseLost = (e: unknown): boolean => e instanceof LeaseLostError || (e instanceof AppError && e.code === 'cluster.lease_lost');

  /**
   * Writes the buffered results and the waiting state changes (and `group`, an agent's batch, first)
   * in one fenced transaction, then announces them. On a rollback what it took goes back to the front
   * of the buffer, so a failed write (SQLITE_FULL, an I/O error) never loses a result; past
   * {@link MAX_KEPT_RESULTS} the oldest are dropped (counted) so a disk full for days cannot exhaust
   * memory. `committed` runs after the commit, before the events.
   * @returns which groups were claimed (the agent's batch first)
   */
  const write = async (group: FlushGroup | null, committed?: () => void): Promise<boolean[]> => {
    const results = buffer;
    buffer = [];
    // A change whose alert is being sent straight to its channels (database outage) waits for that
    // send to settle, so its queued outbox rows are marked delivered; the changes after it keep their order.
    const waiting = changes.findIndex((c) => c.sending);
    const batch = waiting < 0 ? changes : changes.slice(0, waiting);
    changes = waiting < 0 ? [] : changes.slice(waiting);
    const now = clock.now();
    const gate = askGates(group ? group.changes.concat(batch) : batch, now);
    const groups: FlushGroup[] = [...(group ? [group] : []), { claim: null, results, changes: batch }];
    const epoch = fence?.epoch() ?? null;
    let out: FlushOutcome;
    try {
      out = await store.async.tx(flushChecks, { epoch, now, groups, config: procConfig, esc: escalation.settings, gate });
    } catch (e) {
      const taken = groups.flatMap((g) => g.results);
      if (isLeaseLost(e) && epoch !== null) {
        // Another instance leads now and checks these monitors itself: what this one checked is not
        // stored (its state changes were judged on state the new leader may have moved on from).
        const all = batch.concat(changes);
        const res = taken.length + buffer.length;
        // Changes already announced during a database outage are facts people were told: kept, and
        // written unfenced by writeAnnounced.
        announced = all.filter((c) => (c.sent?.channels.length ?? 0) > 0);
        buffer = [];
        changes = [];
        logger.warn(`another instance took the lease over: ${res} check results and ${all.length} state changes of this instance's checks were not stored (the new leader checks these monitors)`, { epoch, results: res, state_changes: all.length });
        fence?.lost(epoch);
        throw e;
      }
      buffer = taken.concat(buffer);
      changes = batch.concat(changes);
      if (buffer.length > MAX_KEPT_RESULTS) {
        dropped += buffer.length - MAX_KEPT_RESULTS;
        buffer = buffer.slice(buffer.length - MAX_KEPT_RESULTS);
      }
      throw e;
    }
    committed?.();
    announce(out);
    // The results stored (a replayed agent batch, not claimed, stored nothing), for the console's live heartbeats.
    const landed = groups.flatMap((g, i) => (out.claimed[i] === false ? [] : g.results.map((r) => ({ monitorId: r.monitorId, at: r.at, ok: r.ok, latencyMs: r.latencyMs, region: r.region }))));
    if (landed.length > 0) bus.emit('checks.stored', { results: landed });
    return out.claimed;
  };

  const runFlush = async () => {
    timer?.cancel();
    timer = null;
    try {
      // When everything went to the outage journal, storing the journal is the retry.
      const retryJournal = buffer.length === 0 && changes.length === 0 && failing > 0 && (journal?.stats().batches ?? 0) > 0;
      if (retryJournal && !(await drainJournal(store, journal!, clock, logger, false))) {
        if (!closed) timer ??= clock.setTimer(Math.max(flushIntervalMs, FLUSH_RETRY_MS), onTimer);
      } else if (retryJournal || buffer.length > 0 || changes.length > 0) {
        if (!retryJournal) await write(null);
        if (failing > 0) logger.info(`check results stored again after ${failing} failed flushes`, { failed_flushes: failing });
        failing = 0;
      }
      if (changes.length > 0 && !closed) timer ??= clock.setTimer(SEND_WAIT_MS, onTimer);
      if (failing === 0) await runDrain();
    } catch (e) {
      // Fenced out (logged by write): nothing is kept to retry but what people were already told.
      if (isLeaseLost(e)) return writeAnnounced();
      flushFailures++;
      // One line when the trouble starts, not one per retry.
      if (failing++ === 0) logger.error(`storing check results failed; keeping them ${journal ? 'in the outage journal' : 'in memory'} and retrying`, { results: buffer.length, error: (e as Error).message });
      if (journal) buffer = journalResults(journal, buffer, troubled);
      if (direct) offerDirect(changes, direct, clock, logger);
      if (!closed) timer ??= clock.setTimer(Math.max(flushIntervalMs, FLUSH_RETRY_MS), onTimer);
    }
  };
  /**
   * Another instance took the lease over while this one held changes it had already announced (a
   * database outage it kept checking through): they are written without the fence, so the alerts sent
   * are on record and never sent again. A change the new leader made meanwhile wins (an open outage is
   * not opened twice; a recovery resolves only the outage its alert named).
   */
  const writeAnnounced = async () => {
    const list = announced;
    announced = [];
    if (list.length === 0) return;
    try {
      const now = clock.now();
      const out = await store.async.tx(writeAnnouncedChanges, { now, changes: list, esc: escalation.settings, gate: askGates(list, now) });
      logger.warn(`wrote ${list.length} state changes announced during the database outage although another instance leads now (their alerts are not sent again)`, { state_changes: list.length });
      announce({ degraded: [], notices: 0, ...out });
    } catch (e) {
      logger.error('state changes announced during the database outage could not be written; their alerts may be sent again', { state_changes: list.length, error: (e as Error).message });
    }
  };
  const troubled = (why: string) => {
    if (!journalTrouble) logger.error(`${why}: check results are kept in memory (at most ${MAX_KEPT_RESULTS})`);
    journalTrouble = true;
  };
  /** Stores the outage journal's batches when it has any; retries later while some are left. Never throws. */
  const runDrain = async () => {
    if (!journal || journal.stats().batches === 0) return;
    drainTimer?.cancel();
    drainTimer = null;
    if (await drainJournal(store, journal, clock, logger, !drainFailing)) drainFailing = journalTrouble = false;
    else {
      drainFailing = true;
      if (!closed) drainTimer = clock.setTimer(DRAIN_RETRY_MS, drain);
    }
  };
  const drain = () => {
    drainTimer = null;
    void serial(runDrain);
  };
  const wakeWaiters = () => {
    const woken = waiters;
    waiters = [];
    for (const w of woken) w();
  };
  /** A state change: queued for the flush at the next turn (or the end of the gap). */
  const stateChange = (c: StateChange) => {
    buffer.push(c.result);
    changes.push(c);
    if (direct && failing > 0) offerDirect(changes, direct, clock, logger);
    // While writes fail, the retry timer takes them (no failing transaction per state change).
    if (failing > 0 || soon) return;
    const run = () => {
      soon = null;
      lastStateFlush = performance.now();
      timer?.cancel();
      timer = null;
      void flush();
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
      timer ??= clock.setTimer(flushIntervalMs, onTimer);
    },
    /**
     * Commits buffered results now (shutdown, tests), after the write in flight; resolves when done.
     * Never rejects: a failure is logged and retried as any flush's.
     */
    flush(): Promise<void> {
      timer?.cancel();
      timer = null;
      return flush();
    },
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
     * It joins the next **flush transaction**, run at the next turn of the event loop
     * (or {@link STATE_FLUSH_GAP_MS} after the previous one): every state change that arrived
     * meanwhile (an outage storm brings hundreds) commits in one transaction with the buffered
     * results, and its events follow that commit. A flush that
     * fails keeps its state changes with its results and retries them (never lost, never twice).
     */
    monitorDown(monitor: Monitor, result: CheckResult, detected: ObservedFailure, confirmedLocations: string[]): void {
      stateChange(downChange(monitor, result, detected, confirmedLocations));
    },
    /**
     * Recovery: stores `result`, flips the monitor to `up` and resolves its ongoing outage at the
     * time of the passing check; then emits `outage.resolved`. Committed like {@link monitorDown}.
     */
    monitorUp(monitor: Monitor, result: CheckResult): void {
      stateChange({ down: false, monitor, result });
    },
    /**
     * Resolves once the state changes queued now and the writes in flight are committed (or failed);
     * at once when none is queued.
     */
    committed(): Promise<void> {
      if (soon === null && queuedWrites === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    /**
     * Stores a remote probe's batch: claims `claim` (`<agent>/<batch>`) and writes its results and state
     * changes in one transaction with every buffered result (after the write in flight), so a batch is
     * either wholly stored or not at all. `committed` runs after the commit and before the events of
     * its state changes (the caller applies its in-memory changes there); neither runs on a rollback.
     * @returns false when the batch had been stored before (nothing of it written)
     * @throws the store's error when the transaction fails (rolled back)
     */
    writeBatch(claim: string, results: CheckResult[], batchChanges: StateChange[], committed: () => void): Promise<boolean> {
      return serial(async () => (await write({ claim, results, changes: batchChanges }, committed))[0]!);
    },
    /**
     * Commits what is buffered (results and state changes) after the write in flight, and stops the
     * flush timers. @throws the store's error when that write fails
     */
    async close(): Promise<void> {
      closed = true;
      timer?.cancel();
      timer = null;
      drainTimer?.cancel();
      drainTimer = null;
      soon?.cancel();
      soon = null;
      // As before: a failure here throws to the caller (no retry timer after close).
      await serial(async () => {
        try {
          if (buffer.length > 0 || changes.length > 0) await write(null);
        } catch (e) {
          // Fenced out: another instance leads and checks on (logged by write); anything else is the caller's.
          if (!isLeaseLost(e)) throw e;
        }
      });
    },
  };
}

/** The checks service's interface. */
export type ChecksService = ReturnType<typeof checksService>;
