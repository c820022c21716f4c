/**
 * The SQLite driver's checkpoint worker (issue 21, store/checkpointer.ts): its own better-sqlite3
 * connection to the main connection's file, loaded from the same addon file (one SQLite library in
 * the process), runs `PRAGMA wal_checkpoint(PASSIVE)` every interval — repeated up to 4 times while
 * the main thread's commits keep it from catching up, so the WAL usually restarts from its start by
 * itself — and `wal_checkpoint(RESTART)` when the WAL has reached its bound anyway. The main
 * connection runs with `wal_autocheckpoint = 0`, so the copy and its fsyncs happen here, not on the
 * event loop. The thread waits on the shared state (Atomics.wait), not on an event loop: the main
 * thread wakes it to stop. Bundled on its own for the single executable (build.sh, SEA asset
 * `checkpoint-worker.cjs`).
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { CLOSED, CMD, DONE, EXITED, LOG, PASSES, READY, RESTARTS, STATE, STOP, type CheckpointInit } from './checkpoint-protocol.ts';

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
    // A RESTART waits for the main thread's commit in progress, then for readers while it holds the
    // write lock: a short bound, tried again at the next pass.
    db.pragma('busy_timeout = 50');
    Atomics.store(state, STATE, READY);
    Atomics.notify(state, STATE);
    parentPort?.postMessage('ready');
    for (;;) {
      Atomics.wait(state, CMD, Atomics.load(state, CMD), init.intervalMs);
      if (Atomics.load(state, CMD) === STOP) break;
      pass(db);
      // Counted once the pass's figures (LOG, DONE) are stored: a reader that sees PASSES = n sees
      // the figures of pass n or a later one, never the figures from before a pass it counted.
      Atomics.add(state, PASSES, 1);
    }
  } finally {
    db.close();
    Atomics.store(state, STATE, CLOSED);
    Atomics.notify(state, STATE);
  }
}

const passive = (db: Database.Database): Checkpointed => (db.pragma('wal_checkpoint(PASSIVE)') as Checkpointed[])[0]!;

/**
 * One pass: a passive checkpoint (it copies every committed frame no reader's snapshot still needs:
 * `checkpointed < log` means a reader holds the rest). Below the bound that is all: a wholly copied
 * WAL is restarted from its start by the main thread's next commit. At the bound — a main thread
 * that commits without pause never gives it that moment — passive checkpoints are repeated (at most
 * 3 more) until one finds no frame committed during the previous one, then a RESTART checkpoint
 * makes the next commit start the WAL over. A RESTART holds the write lock while it runs, so it
 * comes only when there is nothing (or next to nothing) left to copy and to fsync: the main thread's
 * commit waits for it at most a moment. TRUNCATE (the file back to 0 bytes, which also takes its
 * time under the lock) only when the WAL reached 4× the bound all the same.
 */
function pass(db: Database.Database): void {
  let r = passive(db);
  let held = r.checkpointed < r.log;
  for (let i = 0; i < 3 && !held && r.log >= init.restartPages; i++) {
    const next = passive(db);
    held = next.checkpointed < next.log;
    const grew = next.log !== r.log;
    r = next;
    if (!grew) break;
  }
  Atomics.store(state, LOG, r.log);
  Atomics.store(state, DONE, r.checkpointed);
  if (held || r.log < init.restartPages) return;
  const t = (db.pragma(`wal_checkpoint(${r.log >= 4 * init.restartPages ? 'TRUNCATE' : 'RESTART'})`) as Checkpointed[])[0]!;
  if (t.busy === 0) Atomics.add(state, RESTARTS, 1);
}

run();
