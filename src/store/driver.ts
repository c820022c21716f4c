/**
 * The driver-neutral database handle the store modules are written against (issue 22). Two drivers
 * implement it: SQLite (db.ts: better-sqlite3 itself, statements are its native objects, so its cost
 * is unchanged) and PostgreSQL (pg/driver.ts: the same synchronous calls answered by a worker thread
 * that owns a `pg` pool). No raw handle leaves src/store/.
 */

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
  /** False while the driver knows the database cannot be reached (calls then throw AppError 503 `store.unavailable`); SQLite: always true. */
  available(): boolean;
  /** Writes what the driver buffers to the main file (SQLite: WAL checkpoint TRUNCATE; PostgreSQL: nothing). */
  checkpoint(): void;
  /** Closes the handle (PostgreSQL: ends the pool and the worker). */
  close(): void;
}
