import type { MessagePort } from 'node:worker_threads';

/**
 * Messages between the PostgreSQL driver (main thread, pg/driver.ts) and its worker (pg/worker.ts).
 * Two ports. The synchronous one: the main thread posts one request and blocks on `Atomics.wait`
 * over a shared Int32Array until the worker stores the request's id in slot READY; the answer is read
 * with `receiveMessageOnPort`. The asynchronous one (issue 31, `Db.txAsync`): steps of transactions
 * posted without waiting, handled in parallel on a pool of their own, answered in any order as
 * ordinary messages.
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
  /** The port of asynchronous requests ({@link AsyncRequest}) and their answers ({@link AsyncReply}). */
  asyncPort: MessagePort;
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

/**
 * An answer: rows and the affected-row count, or an error (`unavailable` when the database cannot be
 * reached; `outcomeUnknown` when, besides, the connection was lost while the server ran a COMMIT or a
 * write that commits by itself, so it may have been saved).
 */
export type Reply =
  | { id: number; ok: true; rows: Record<string, unknown>[]; changes: number }
  | { id: number; ok: false; message: string; code: string | undefined; unavailable: boolean; outcomeUnknown?: boolean };

/**
 * The worker's answer to an `abandon` (both ports), sent at once: whether the request's committing
 * statement (COMMIT, or a write that commits by itself) had been sent to the server. Not sent: it never
 * will be, so the change was not saved (`store.unavailable`); sent: its outcome is unknown.
 */
export interface AbandonAck {
  id: number;
  abandonAck: true;
  sent: boolean;
}

/**
 * True for a statement that may change data when it runs outside a transaction (it then commits by
 * itself): anything but a plain read. Its lost connection leaves the outcome unknown (see {@link Reply}).
 */
export const mayWrite = (text: string): boolean => !/^\s*(SELECT|SHOW|VALUES)\b/i.test(text);

/** A statement as the worker runs it: PostgreSQL text (`$1`…) and its values. */
export interface WireQuery {
  text: string;
  values: unknown[];
  /** `Query.expectChanges` (driver.ts): another row count fails the step with code {@link CONFLICT}. */
  expectChanges?: number;
}

/** The error code of a step whose guarded statement changed another number of rows (the main thread answers AppError 409 `store.conflict`). */
export const CONFLICT = 'PHAROS_CONFLICT';

/**
 * An asynchronous request: one step of the transaction `tx` (the main thread's number for it).
 * `begin`: the step opens it (the worker takes a client of its asynchronous pool and sends BEGIN);
 * `end`: the step ends it after its statements. Any error ends it too (rolled back, the client
 * dropped). `abandon` is the same message as the synchronous port's, for this one request only: the
 * main thread's caller gave up on it (timeout or AbortSignal), its connection is destroyed.
 */
export type AsyncRequest =
  | { id: number; op: 'step'; tx: number; begin: boolean; queries: WireQuery[]; end: 'commit' | 'rollback' | null }
  // `timedOut`: given up at its deadline, not by an AbortSignal: the worker takes the database for down (as a chain request's timeout does) until its probe answers.
  | { id: number; op: 'abandon'; timedOut: boolean };

/** The answer to an asynchronous step: each statement's rows and affected-row count, or an error as {@link Reply}'s. */
export type AsyncReply =
  | { id: number; ok: true; results: Array<{ rows: Record<string, unknown>[]; changes: number }> }
  | { id: number; ok: false; message: string; code: string | undefined; unavailable: boolean; outcomeUnknown?: boolean };
