import type { MessagePort } from 'node:worker_threads';

/**
 * Messages between the PostgreSQL driver (main thread, pg/driver.ts) and its worker (pg/worker.ts).
 * The main thread posts one request and blocks on `Atomics.wait` over a shared Int32Array until the
 * worker stores the request's id in slot READY; the answer is read with `receiveMessageOnPort`.
 */

/** Slot of the shared Int32Array holding the id of the last answered request. */
export const READY = 0;
/** Slot of the shared Int32Array that is 1 while the worker knows the database is unreachable. */
export const DOWN = 1;
/**
 * Slot of the shared Int32Array the worker sets to 1 as its thread ends (any way: an uncaught error,
 * `process.exit`); it also stores -1 in READY and wakes the main thread, so a call waiting on a worker
 * that died fails at once with 503 instead of waiting out its timeout.
 */
export const EXITED = 2;
/** Bytes of the shared state: three Int32 slots (READY, DOWN, EXITED). */
export const STATE_BYTES = 12;

/** What the worker is started with (`workerData`). */
export interface WorkerInit {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  /** SharedArrayBuffer of {@link STATE_BYTES}: Int32 slots READY, DOWN, EXITED. */
  state: SharedArrayBuffer;
  port: MessagePort;
}

/** A request: one statement, a multi-statement script, or a transaction boundary. */
export type Request =
  | { id: number; op: 'query'; text: string; values: unknown[] }
  | { id: number; op: 'exec'; text: string }
  | { id: number; op: 'begin' | 'commit' | 'rollback' | 'close' }
  // Test-only (pg/driver.ts workerHooksForTests): the worker throws an uncaught error, i.e. dies.
  | { id: number; op: 'crash' }
  // The main thread gave up waiting for request `id` (and every one before it): not answered, handled
  // at once outside the queue. See pg/worker.ts for what the worker does with such a request.
  | { id: number; op: 'abandon' };

/** An answer: rows and the affected-row count, or an error (`unavailable` when the database cannot be reached). */
export type Reply =
  | { id: number; ok: true; rows: Record<string, unknown>[]; changes: number }
  | { id: number; ok: false; message: string; code: string | undefined; unavailable: boolean };
