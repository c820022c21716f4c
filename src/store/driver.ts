/**
 * The driver-neutral database handle the store modules are written against (issue 22). Two drivers
 * implement it: SQLite (db.ts: better-sqlite3 itself, statements are its native objects, so its cost
 * is unchanged) and PostgreSQL (pg/driver.ts: the same synchronous calls answered by a worker thread
 * that owns a `pg` pool). No raw handle leaves src/store/.
 *
 * Besides the synchronous calls, {@link Db.txAsync} runs a transaction without blocking the event
 * loop (issue 31: no network round trip blocks the loop): on PostgreSQL each step is one message to
 * the worker, answered while the loop goes on; on SQLite the same steps run at once, synchronously,
 * inside one BEGIN IMMEDIATE (the promise is already settled when returned).
 */

import { AppError } from '../lib/errors.ts';

/** The error of a step whose guarded statement ({@link Query.expectChanges}) changed another number of rows: AppError 409 `store.conflict`. */
export const conflict = (): AppError => new AppError(409, 'store.conflict', 'the rows changed since they were read: try again');

/** Which SQL the handle speaks. Store modules pick per-dialect statements where the two differ. */
export type Dialect = 'sqlite' | 'postgres';

/** What a write statement reports. */
export interface RunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
  /** SQLite's rowid of the last insert (0 on PostgreSQL: use `INSERT … RETURNING id` with `get`). */
  lastInsertRowid: number | bigint;
}

/**
 * A prepared statement. Parameters are positional (`?`) or one object for named ones (`@name`);
 * values are numbers, strings, Buffers or null (booleans are refused by SQLite, so none are passed).
 * Rows come back as plain objects with SQLite's types: integers (epoch ms included) as numbers,
 * flags as 0/1, JSON as text, blobs as Buffers.
 */
export interface Statement<P extends unknown[] = unknown[], R = unknown> {
  run(...params: P): RunResult;
  get(...params: P): R | undefined;
  all(...params: P): R[];
  iterate(...params: P): IterableIterator<R>;
}

/**
 * One statement with its parameters, for {@link Db.txAsync}: `sql` in SQLite's dialect (the
 * PostgreSQL driver translates it as {@link Db.prepare} does, once per text) or a dialect's own text
 * picked by the store module; `params` positional, or one object for `@name` parameters.
 */
export interface Query {
  sql: string;
  params: unknown[];
  /**
   * Optimistic concurrency: the statement must change exactly this many rows, else the step fails
   * with AppError 409 `store.conflict` and the transaction rolls back (e.g. an UPDATE guarded by the
   * values read in an earlier transaction: someone else changed the row meanwhile).
   */
  expectChanges?: number;
}

/** What one {@link Query} of a step returned: its rows (SQLite's types, as {@link Statement}) and the rows it changed. */
export interface QueryResult {
  rows: Record<string, unknown>[];
  changes: number;
}

/**
 * One step of an asynchronous transaction: statements run in order (on PostgreSQL in one message to
 * the worker: one main↔worker hop); with `commit` the transaction commits right after them in the
 * same hop, and the steps' generator must then return without another step.
 */
export interface Step {
  queries: Query[];
  commit?: boolean;
}

/**
 * The body of an asynchronous transaction: a generator that yields {@link Step}s and receives each
 * step's results. It must not touch the store otherwise (on SQLite it runs inside the transaction, on
 * PostgreSQL on another connection than the synchronous calls'); what it returns is the transaction's
 * value. Throwing rolls the transaction back.
 *
 * On PostgreSQL a transaction of several steps keeps its locks while its next step travels through
 * the event loop; a synchronous call made meanwhile that needs one of those rows blocks the loop,
 * so the next step never comes (until statement_timeout). Row locks are therefore taken and used in
 * one step (the committing one): read first, then write in one step guarded by what was read
 * ({@link Query.expectChanges}), as the ping batch does (store/healthchecks.ts).
 */
export type TxSteps<T> = Generator<Step, T, QueryResult[]>;

/** How long an asynchronous transaction may take, and how its caller gives up on it. */
export interface AsyncOptions {
  /** Gives up when aborted: the transaction is abandoned (PostgreSQL: its connection destroyed, the server rolls back). */
  signal?: AbortSignal;
  /** Gives up after this many ms in total (default: statement timeout + 5 s, as the synchronous calls). */
  timeoutMs?: number;
}

/** The handle of one open database. */
export interface Db {
  readonly dialect: Dialect;
  /**
   * Prepares `sql` (written in SQLite's dialect; the PostgreSQL driver translates placeholders and the
   * few functions listed in pg/translate.ts, or the store module passes a PostgreSQL statement).
   * @throws the driver's error for invalid SQL (SQLite at once; PostgreSQL at first use)
   */
  prepare<P extends unknown[] | {} = unknown[], R = unknown>(sql: string): Statement<P extends unknown[] ? P : [P], R>;
  /** Runs one or more statements without parameters (schema changes). */
  exec(sql: string): void;
  /**
   * Runs `fn` in one transaction (SQLite: BEGIN IMMEDIATE; PostgreSQL: one pinned connection,
   * BEGIN … COMMIT). Nested calls become savepoints. `fn` throwing rolls back and rethrows.
   */
  tx<T>(fn: () => T): T;
  /**
   * Runs `steps()` as one transaction without blocking the event loop (see {@link TxSteps}).
   * SQLite: synchronously, inside BEGIN IMMEDIATE (nested in a running {@link Db.tx}: a savepoint),
   * settled before it returns. PostgreSQL: on a connection of its own (a pool apart from the
   * synchronous calls'), each step one message; several run in parallel. A caller that gives up
   * (`opts.signal`, `opts.timeoutMs`) gets AppError 503 `store.unavailable` and the transaction is
   * abandoned on the server: its connection is destroyed, so nothing of it commits later.
   * @throws (rejects) AppError 503 `store.unavailable` while the database cannot be reached (nothing
   *   was saved); AppError 503 `store.outcome_unknown` when the connection was lost, or the caller gave
   *   up, once the COMMIT had been sent (it may have been saved; pg/driver.ts `outcomeUnknown`); the
   *   driver's error for a bad statement (the transaction is rolled back)
   */
  txAsync<T>(steps: () => TxSteps<T>, opts?: AsyncOptions): Promise<T>;
  /** True inside {@link Db.tx} (what runs now will commit or roll back with the transaction). */
  readonly inTransaction: boolean;
  /** False while the driver knows the database cannot be reached (calls then throw AppError 503 `store.unavailable`); SQLite: always true. */
  available(): boolean;
  /** Writes what the driver buffers to the main file (SQLite: WAL checkpoint TRUNCATE; PostgreSQL: nothing). */
  checkpoint(): void;
  /** Closes the handle (PostgreSQL: ends the pool and the worker). */
  close(): void;
}
