import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { formatDuration } from '../domain/duration.ts';
import { addonFileOf, bundledFile, isSea } from '../lib/sea.ts';
import { restartCounter, type RestartRule } from './wal-restarts.ts';
import { CLOSED, CMD, DONE, EXITED, LOG, PASSES, RESTARTS, STARTING, STATE, STATE_BYTES, STOP, type CheckpointInit } from './checkpoint-protocol.ts';

/**
 * WAL checkpoints off the event loop (issue 21): SQLite's own autocheckpoint runs inside the COMMIT
 * that passes 1,000 WAL pages, on the thread that commits, and with synchronous=NORMAL a checkpoint
 * fsyncs (0.35–3.5 ms measured: the tail of ping latency). Here a worker thread with its own
 * connection to the same file checkpoints (store/checkpoint-worker.ts) and the main connection runs
 * with `wal_autocheckpoint = 0` once the worker is up. If the worker cannot start or dies, the main
 * connection gets SQLite's autocheckpoint back (1,000 pages) and one line is logged: the WAL never
 * grows without bound.
 */

/** How the SQLite driver checkpoints in the background (`openDb`'s option; `startPharos` passes it). */
export interface CheckpointOptions {
  /** One operator line when the worker cannot start or dies (SQLite's autocheckpoint takes over). */
  warn: (line: string) => void;
  /** One operator line when a rule of {@link CheckpointOptions.startAt} starts the worker: the starts over counted within each rule's window. */
  info?: (line: string) => void;
  /** Milliseconds between two passes of the worker (default {@link CHECKPOINT_DEFAULTS}). */
  intervalMs?: number;
  /**
   * WAL size in pages at which the worker makes the WAL start over (a RESTART checkpoint: the next
   * commit writes it from its first frame), and at 4× truncates it to 0 bytes; the main connection's
   * `journal_size_limit` is 2× (in bytes: pages × page size), so a WAL file that grew past that is
   * cut back when it starts over.
   */
  restartPages?: number;
  /**
   * Start the worker only once SQLite's own autocheckpoint has made the WAL start over as often as
   * one of these rules says (store/wal-restarts.ts; unset or empty: at once). A thread holds 12–19 MB
   * of RSS (its own V8 isolate and malloc arena), which a Pharos that writes little does not need:
   * until then SQLite's autocheckpoint (1,000 pages, on the main thread) stays on, and the WAL's
   * header is read every {@link WAL_LOOK_MS} (issue 38, docs/PERFORMANCE.md "Idle footprint").
   * Pharos passes {@link WORKER_START_RULES}.
   */
  startAt?: readonly RestartRule[];
  /** Monotonic milliseconds for the rules' windows (default `performance.now`); tests pass a manual clock. */
  now?: () => number;
}

/** Milliseconds between two looks at the WAL file's header while the worker waits for {@link CheckpointOptions.startAt}. */
export const WAL_LOOK_MS = 1000;

/**
 * Defaults of {@link CheckpointOptions}, measured (docs/PERFORMANCE.md "Session 8"): a pass every
 * 250 ms — at 10,000 pings/s the WAL grows by ~1,000–1,500 pages per pass, one passive checkpoint
 * (5–20 ms on the worker) copies them and the WAL starts over by itself about once a second, peaking
 * near 3,000 pages; a pass every second gave no better tail. A RESTART at 4,096 pages (16 MiB with
 * 4 KiB pages): in a closed loop (~29,000 pings/s) the main thread commits without pause, the WAL
 * never starts over by itself and grew ~2,500 pages per pass.
 */
export const CHECKPOINT_DEFAULTS = { intervalMs: 250, restartPages: 4096 } as const;

/**
 * When Pharos starts the worker: SQLite's autocheckpoint (1,000 pages each, ~4 MB and two fsyncs on
 * the event loop) ran 30 times within 30 s (≥ ~1,000 pages/s: 10,000 pings/s, 10,000 monitors), or
 * 60 times within 5 minutes (≥ ~200 pages/s sustained). Below that the loop pays one checkpoint
 * every few seconds at most, and the process saves the thread's 12–19 MB. Measured (issue 38):
 * 1,000 monitors @10 s write ~125 WAL pages/s (a start over every ~8 s) and creating them through
 * the API ~7 starts over in ~2 s; 10,000 pings/s ~1,000 pages/s; creating 10,000 healthchecks ~22
 * starts over in ~3 s.
 */
export const WORKER_START_RULES: readonly RestartRule[] = [
  { restarts: 30, withinMs: 30_000 },
  { restarts: 60, withinMs: 300_000 },
];

/** SQLite's default `wal_autocheckpoint` (pages), given back to the main connection on fallback. */
export const FALLBACK_AUTOCHECKPOINT = 1000;

/** The main thread's side of the checkpoint worker of one SQLite connection. */
export interface Checkpointer {
  /** `waiting` for the WAL to start over as often as `startAt` says, `starting` until the worker's connection is open, `running`, `fallback` once it failed or died, `stopped` after stop(). */
  readonly mode: 'waiting' | 'starting' | 'running' | 'fallback' | 'stopped';
  /** How many times the WAL's header was looked at while `waiting` (every {@link WAL_LOOK_MS}). */
  readonly walLooks: number;
  /** The worker's counters: passes finished (each one or more passive checkpoints; counted after its figures are stored), RESTART/TRUNCATE checkpoints run, WAL size in pages after its last pass and how many of them it had copied. */
  stats(): { passes: number; restarts: number; walPages: number; copiedPages: number };
  /**
   * Stops the worker and waits (blocking, at most 10 s) until it has closed its connection, so the
   * main connection's close is the last one (SQLite then checkpoints and deletes the WAL).
   */
  stop(): void;
  /** Test-only: terminates the worker thread as a crash would; resolves once the main connection has fallen back to SQLite's autocheckpoint. */
  killForTests(): Promise<void>;
}

/** Starts the worker thread: from source src/store/checkpoint-worker.ts, in the single executable the SEA asset `checkpoint-worker.cjs` (build.sh) with `eval: true`. */
function startWorker(init: CheckpointInit): Worker {
  // The thread holds a few objects: its heaps are capped small (it still costs ~12 MB of RSS, the
  // V8 isolate itself; docs/PERFORMANCE.md "Session 8").
  const options = { workerData: init, name: 'pharos-checkpoint', resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2, stackSizeMb: 1 } };
  if (isSea()) return new Worker(bundledFile('checkpoint-worker.cjs', '').toString('utf8'), { ...options, eval: true });
  // Node 24 strips the types itself; no loader flags are passed on (as for the PostgreSQL worker).
  return new Worker(new URL('./checkpoint-worker.ts', import.meta.url), { ...options, execArgv: [] });
}

/**
 * Starts the checkpoint worker of `raw` (a WAL-mode file connection). Until the worker reports its
 * connection open, SQLite's autocheckpoint stays on; then the main connection gets
 * `wal_autocheckpoint = 0` and `journal_size_limit`.
 * @param raw the main connection (its file is `raw.name`)
 * @param nativeBinding the addon the main connection was opened with (single executable), so the
 *   worker loads the same file: one SQLite library in the process (two copies would break SQLite's
 *   POSIX lock bookkeeping)
 */
export function startCheckpointer(raw: Database.Database, nativeBinding: object | undefined, opts: CheckpointOptions): Checkpointer {
  const intervalMs = opts.intervalMs ?? CHECKPOINT_DEFAULTS.intervalMs;
  const restartPages = opts.restartPages ?? CHECKPOINT_DEFAULTS.restartPages;
  const shared = new SharedArrayBuffer(STATE_BYTES);
  const flags = new Int32Array(shared);
  let mode: Checkpointer['mode'] = 'starting';
  let worker: Worker | undefined;
  let lastError = '';
  let fellBack: () => void = () => {};
  const fallenBack = new Promise<void>((resolve) => (fellBack = resolve));

  const fallback = (why: string) => {
    if (mode === 'stopped' || mode === 'fallback') return;
    mode = 'fallback';
    if (raw.open) raw.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT}`);
    opts.warn(`WAL checkpoints: the checkpoint worker ${why}; SQLite checkpoints on the main thread again (every ${FALLBACK_AUTOCHECKPOINT} WAL pages)`);
    fellBack();
  };

  const addonFile = nativeBinding ? addonFileOf(nativeBinding) : undefined;
  const launch = () => {
    mode = 'starting';
    try {
      const w = startWorker({ file: raw.name, addonFile, state: shared, intervalMs, restartPages });
      worker = w;
      w.unref();
      w.on('error', (e) => (lastError = e.message.split('\n')[0] ?? ''));
      w.on('message', (m) => {
        if (m !== 'ready' || mode !== 'starting' || !raw.open) return;
        raw.pragma('wal_autocheckpoint = 0');
        const pageSize = raw.pragma('page_size', { simple: true }) as number;
        raw.pragma(`journal_size_limit = ${2 * restartPages * pageSize}`);
        mode = 'running';
      });
      w.once('exit', (code) => fallback(mode === 'starting' ? `could not start (${lastError || `exit code ${code}`})` : `stopped (${lastError || `exit code ${code}`})`));
    } catch (e) {
      fallback(`could not start (${(e as Error).message.split('\n')[0]})`);
    }
  };
  let look: NodeJS.Timeout | undefined;
  let walLooks = 0;
  const rules = opts.startAt ?? [];
  if (nativeBinding && !addonFile) fallback('cannot start: the file of the loaded SQLite addon is unknown');
  else if (rules.length === 0) launch();
  else {
    mode = 'waiting';
    const now = opts.now ?? (() => performance.now());
    const restarts = restartCounter(`${raw.name}-wal`, rules);
    restarts.look(now()); // the baseline
    look = setInterval(() => {
      if (mode !== 'waiting' || !raw.open) return clearInterval(look);
      walLooks++;
      const t = now();
      if (!restarts.look(t)) return;
      clearInterval(look);
      const counts = rules.map((r) => `${restarts.within(t, r.withinMs)} within ${formatDuration(r.withinMs / 1000)}`).join(', ');
      opts.info?.(`WAL checkpoints: SQLite's own checkpoints on the main thread, ${counts}; a thread of its own checkpoints from now on`);
      launch();
    }, WAL_LOOK_MS);
    look.unref();
  }

  return {
    get mode() {
      return mode;
    },
    get walLooks() {
      return walLooks;
    },
    stats: () => ({ passes: Atomics.load(flags, PASSES), restarts: Atomics.load(flags, RESTARTS), walPages: Atomics.load(flags, LOG), copiedPages: Atomics.load(flags, DONE) }),
    stop() {
      if (look) clearInterval(look);
      const wasRunning = mode === 'starting' || mode === 'running';
      mode = 'stopped';
      if (!wasRunning || !worker) return;
      Atomics.store(flags, CMD, STOP);
      Atomics.notify(flags, CMD);
      // A worker still starting sees STOP before it opens its connection; one that never runs its
      // code (a broken build) cannot answer, hence the shorter bound while it has not started.
      const start = Date.now();
      for (;;) {
        const s = Atomics.load(flags, STATE);
        if (s === CLOSED || s === EXITED) break;
        const left = start + (s === STARTING ? 5000 : 10_000) - Date.now();
        if (left <= 0) break;
        Atomics.wait(flags, STATE, s, left);
      }
      void worker.terminate();
    },
    async killForTests() {
      if (!worker) throw new Error('no checkpoint worker');
      await worker.terminate();
      await fallenBack;
    },
  };
}
