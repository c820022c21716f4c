/**
 * Shared state between the SQLite driver's main connection (store/checkpointer.ts) and its
 * checkpoint worker (store/checkpoint-worker.ts): one Int32Array over a SharedArrayBuffer, so the
 * main thread can wake the worker, stop it and wait for it without the worker's event loop.
 */

/** Slot: what the main thread asks — {@link RUN}, {@link STOP}. The worker waits on it between passes. */
export const CMD = 0;
/** Slot: where the worker is — {@link STARTING}, {@link READY}, {@link CLOSED}; {@link EXITED} as its thread ends any way. */
export const STATE = 1;
/**
 * Slot: passes the worker has finished (wraps at 2^31; for tests and stats), counted after the
 * pass stored {@link LOG} and {@link DONE}: once a reader sees it grow by 2, the figures it reads
 * are those of a pass that began after it looked.
 */
export const PASSES = 2;
/** Slot: the WAL's size in frames (pages) after the worker's last pass, before any RESTART. */
export const LOG = 3;
/** Slot: RESTART (or TRUNCATE) checkpoints run by the worker because the WAL reached its bound. */
export const RESTARTS = 4;
/** Slot: of the WAL's frames after the worker's last pass, how many are copied into the database. */
export const DONE = 5;
/** Bytes of the shared state: six Int32 slots (CMD, STATE, PASSES, LOG, RESTARTS, DONE). */
export const STATE_BYTES = 24;

/** CMD value: keep checkpointing every interval. */
export const RUN = 0;
/** CMD value: close the connection and end. */
export const STOP = 1;

/** STATE value: the thread is starting (its connection not open yet). */
export const STARTING = 0;
/** STATE value: the worker's connection is open and it checkpoints. */
export const READY = 1;
/** STATE value: the worker closed its connection after {@link STOP}. */
export const CLOSED = 2;
/** STATE value: the thread ended (set by its exit hook, after CLOSED too). */
export const EXITED = 3;

/** What the worker is started with (`workerData`). */
export interface CheckpointInit {
  /** The database file (the one the main connection has open, in WAL mode). */
  file: string;
  /** The better-sqlite3 addon file the main thread loaded (inside the single executable); undefined from source. */
  addonFile: string | undefined;
  /** SharedArrayBuffer of {@link STATE_BYTES}. */
  state: SharedArrayBuffer;
  /** Milliseconds between two passes of passive checkpoints. */
  intervalMs: number;
  /** WAL size in pages at which the worker runs a RESTART checkpoint (the next commit writes the WAL from its start); TRUNCATE at 4×. */
  restartPages: number;
}
