/**
 * The SQLite driver's checkpoint worker (issue 21, store/checkpointer.ts): its own better-sqlite3
 * connection to the main connection's file, loaded from the same addon file (one SQLite library in
 * the process), runs `PRAGMA wal_checkpoint(PASSIVE)` every interval — repeated up to 4 times while
 * the main thread's commits keep it from catching up, so the WAL usually restarts from its start by
 * itself — and `wal_checkpoint(TRUNCATE)` when the WAL has reached its bound anyway. The main
 * connection runs with `wal_autocheckpoint = 0`, so the copy and its fsyncs happen here, not on the
 * event loop. The thread waits on the shared state (Atomics.wait), not on an event loop: the main
 * thread wakes it to stop. Bundled on its own for the single executable (build.sh, SEA asset
 * `checkpoint-worker.cjs`).
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { CLOSED, CMD, DONE, EXITED, LOG, PASSES, READY, STATE, STOP, TRUNCATES, type CheckpointInit } from './checkpoint-protocol.ts';

const init = workerData as CheckpointInit;
const state = new Int32Array(init.state);

// However the thread ends, the main thread must not wait for it (close) and falls back.
process.on('exit', () => {
  Atomics.store(state, STATE, EXITED);
  Atomics.notify(state, STATE);
});

/** The addon as the main thread loaded it: from the same file inside the single executable, else better-sqlite3's own lookup (the same prebuilt file). */
function nativeBinding(): object | undefined {
  if (!init.addonFile) return undefined;
  const module = { exports: {} as object };
  process.dlopen(module, init.addonFile);
  return module.exports;
}

interface Checkpointed {
  busy: number;
  log: number;
  checkpointed: number;
}

function run(): void {
  if (Atomics.load(state, CMD) === STOP) return;
  const binding = nativeBinding();
  const db = new Database(init.file, { fileMustExist: true, ...(binding ? { nativeBinding: binding } : {}) } as Database.Options);
  try {
    db.pragma('synchronous = NORMAL');
    db.pragma('cache_size = 16'); // a checkpoint copies frames without the page cache
    // A TRUNCATE waits for the main thread's commit in progress and for readers, holding the write
    // lock meanwhile: a short bound, retried at the next pass.
    db.pragma('busy_timeout = 50');
    Atomics.store(state, STATE, READY);
    Atomics.notify(state, STATE);
    parentPort?.postMessage('ready');
    for (;;) {
      Atomics.wait(state, CMD, Atomics.load(state, CMD), init.intervalMs);
      if (Atomics.load(state, CMD) === STOP) break;
      pass(db);
    }
  } finally {
    db.close();
    Atomics.store(state, STATE, CLOSED);
    Atomics.notify(state, STATE);
  }
}

/**
 * One pass: passive checkpoints until caught up or until a reader's snapshot holds the rest (at most
 * 4), then a TRUNCATE when the WAL is at its bound and no reader held it (the TRUNCATE takes the
 * write lock while it waits: behind a reader it would hold the main thread's commits up).
 */
function pass(db: Database.Database): void {
  let prev = -1;
  let held = false;
  let r: Checkpointed = { busy: 0, log: 0, checkpointed: 0 };
  for (let i = 0; i < 4; i++) {
    r = (db.pragma('wal_checkpoint(PASSIVE)') as Checkpointed[])[0]!;
    Atomics.add(state, PASSES, 1);
    if (r.checkpointed >= r.log) break;
    if (r.checkpointed <= prev) {
      held = true;
      break;
    }
    prev = r.checkpointed;
  }
  Atomics.store(state, LOG, r.log);
  Atomics.store(state, DONE, r.checkpointed);
  if (r.log >= init.truncatePages && !held) {
    const t = (db.pragma('wal_checkpoint(TRUNCATE)') as Checkpointed[])[0]!;
    if (t.busy === 0) Atomics.add(state, TRUNCATES, 1);
  }
}

run();
