import { AppError } from '../lib/errors.ts';
import type { CheckpointOptions } from './checkpointer.ts';
import { openDb } from './db.ts';
import type { Db } from './driver.ts';
import { copySqliteToPostgres, type TableCount } from './copy.ts';
import { createStore, type Store } from './index.ts';
import { openPostgresDb, redactUrl } from './pg/driver.ts';
import type { Migration, MigrationReport } from './migrations/index.ts';
import { migratePostgres, PG_MIGRATIONS, postgresSchemaVersion } from './pg/migrations.ts';
import { registerHost, storeHost } from './host-client.ts';

/** Where the store lives (config `storage.driver` and friends; see src/config/storage.ts). */
export type StorageTarget = (
  | { driver: 'sqlite'; dataDir: string; nativeBinding?: object | undefined; checkpoints?: CheckpointOptions | undefined }
  | { driver: 'postgres'; url: string; poolSize: number; statementTimeoutMs: number }
) & {
  /** Told what opening migrated, when any migration ran (the server logs it, issue 37 point 4). */
  onMigrated?: ((r: MigrationReport) => void) | undefined;
};

/**
 * Opens the database of `target` and applies pending migrations: SQLite `<dataDir>/pharos.db`, or
 * PostgreSQL through the worker-thread driver (pg/driver.ts).
 * @throws AppError `store.open_failed` (the URL in the message has its password masked),
 *   `store.newer_schema` when the schema is newer than this Pharos
 */
export function openDatabase(target: StorageTarget): Db {
  if (target.driver === 'sqlite') {
    try {
      return openDb(target.dataDir, undefined, target.nativeBinding, target.checkpoints, target.onMigrated);
    } catch (e) {
      if (e instanceof AppError) throw e;
      throw new AppError(500, 'store.open_failed', `cannot open the database in ${target.dataDir}: ${(e as Error).message}`);
    }
  }
  const db = openPostgresDb({ url: target.url, poolSize: target.poolSize, statementTimeoutMs: target.statementTimeoutMs });
  try {
    migratePostgres(db, undefined, target.onMigrated);
    return db;
  } catch (e) {
    db.close();
    if (e instanceof AppError && e.code !== 'store.unavailable') throw e;
    const why = e instanceof AppError ? 'it does not answer' : (e as Error).message.split(target.url).join(redactUrl(target.url));
    throw new AppError(500, 'store.open_failed', `cannot open the PostgreSQL database ${redactUrl(target.url)}: ${why}`);
  }
}

/**
 * {@link openDatabase} wrapped in the store modules (what the core is given). On PostgreSQL
 * `store.async` goes through the store host thread (host-client.ts), started at its first call.
 */
export function openStore(target: StorageTarget): Store {
  const db = openDatabase(target);
  if (target.driver === 'sqlite') return createStore(db);
  const host = storeHost({ url: target.url, poolSize: 2, statementTimeoutMs: target.statementTimeoutMs });
  const store = createStore(db, { async: (modules) => host.asyncStore(modules), onClose: () => host.close() });
  registerHost(store, host);
  return store;
}

/**
 * Calls `changed(false)` when the database becomes unreachable and `changed(true)` when it answers
 * again, looking once a second (an unref'd timer). For one log line per outage, not one per request.
 * @returns a function that stops watching
 */
export function watchAvailability(store: Pick<Store, 'available'>, changed: (available: boolean) => void): () => void {
  let was = store.available();
  const timer = setInterval(() => {
    const now = store.available();
    if (now !== was) changed((was = now));
  }, 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * `pharos storage copy`: opens both databases (migrating each to this version's schema), copies every
 * table from the SQLite `from` into the empty PostgreSQL `to` (copy.ts) and closes both.
 * @returns the row count of every table, read back from the target
 * @throws AppError from {@link openDatabase} and from copy.ts (`storage.target_not_empty`, count mismatch)
 */
export function copyStorage(from: StorageTarget & { driver: 'sqlite' }, to: StorageTarget & { driver: 'postgres' }): TableCount[] {
  let source: Db | undefined;
  let target: Db | undefined;
  try {
    source = openDatabase(from);
    target = openDatabase(to);
    return copySqliteToPostgres(source, target);
  } finally {
    target?.close();
    source?.close();
  }
}

/** A one-line description of `target` for logs (PostgreSQL: the URL with the password masked). */
export function describeTarget(target: StorageTarget): string {
  return target.driver === 'sqlite' ? `sqlite ${target.dataDir}/pharos.db` : `postgres ${redactUrl(target.url)}`;
}

/**
 * The start-up log line of what opening `target` migrated: a new database created, or an upgrade
 * with where the copy from before it is (SQLite), or that none was taken (PostgreSQL: pg_dump).
 */
export function migrationLine(target: StorageTarget, r: MigrationReport): string {
  const steps = `${r.applied.length} migration${r.applied.length === 1 ? '' : 's'}, one transaction each`;
  if (r.from === 0) return `database created (${describeTarget(target)}): schema version ${r.to} (${steps})`;
  const kept = r.copy !== null ? `the database from before is kept as ${r.copy} (pharos restore it to go back)` : target.driver === 'postgres' ? 'Pharos took no copy of a PostgreSQL database: the pg_dump taken before the upgrade is the way back (docs/operations.md "Upgrading")' : 'no copy was needed';
  return `database upgraded (${describeTarget(target)}): schema version ${r.from} → ${r.to} (${steps}); ${kept}`;
}

/**
 * The schema of the PostgreSQL database at `url` against this Pharos's migrations, read without
 * changing anything (`pharos version --check-db` on PostgreSQL): like SQLite's `schemaStatusOfFile`.
 * @throws AppError `store.open_failed` when the database cannot be reached (the URL's password masked)
 */
export function postgresSchemaStatus(url: string, statementTimeoutMs: number): { current: number; latest: number; pending: Migration[]; newer: boolean } {
  let db: Db | undefined;
  try {
    db = openPostgresDb({ url, poolSize: 1, statementTimeoutMs });
    const current = postgresSchemaVersion(db);
    const latest = PG_MIGRATIONS.at(-1)!.version;
    return { current, latest, pending: current > latest ? [] : PG_MIGRATIONS.filter((m) => m.version > current), newer: current > latest };
  } catch (e) {
    const why = e instanceof AppError ? 'it does not answer' : (e as Error).message.split(url).join(redactUrl(url));
    throw new AppError(500, 'store.open_failed', `cannot open the PostgreSQL database ${redactUrl(url)}: ${why}`);
  } finally {
    db?.close();
  }
}
