import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AppError } from '../lib/errors.ts';
import { startCheckpointer, type Checkpointer, type CheckpointOptions } from './checkpointer.ts';
import { conflict, type Db, type QueryResult, type Statement, type Step, type TxSteps } from './driver.ts';
import { MIGRATIONS, migrationFailed, pendingMigrations, type Migration, type MigrationReport } from './migrations/index.ts';


export type { Db } from './driver.ts';

/** The SQLite driver's handle: the neutral {@link Db} plus better-sqlite3's own object for SQLite-only work (backup, PRAGMAs in tests). */
export interface SqliteDb extends Db {
  readonly dialect: 'sqlite';
  readonly sqlite: Database.Database;
  /** The background checkpoint worker (store/checkpointer.ts), when opened with one. */
  readonly checkpointer?: Checkpointer | undefined;
}

/**
 * A statement prepared by SQLite at its first use, not when a store module is built (issue 38 point
 * 1, idle footprint): the store modules build a few hundred statements at start and a configuration
 * runs a fraction of them, while each prepared one holds SQLite's compiled program. A statement with
 * an SQL error therefore throws at its first run instead of at start.
 */
function lazyStatement(raw: Database.Database, sql: string): Statement {
  let st: Database.Statement | undefined;
  const s = () => (st ??= raw.prepare(sql));
  return { run: (...p) => s().run(...p), get: (...p) => s().get(...p), all: (...p) => s().all(...p), iterate: (...p) => s().iterate(...p) };
}

/**
 * The {@link Db} of a better-sqlite3 handle: statements are better-sqlite3's own (no wrapper on the
 * hot path), `tx` is `db.transaction(fn).immediate()` as before the driver split. With a
 * `checkpointer`, close() stops its worker first, then checkpoints (TRUNCATE) and closes.
 */
export function sqliteDb(raw: Database.Database, checkpointer?: Checkpointer): SqliteDb {
  const checkpoint = () => void raw.pragma('wal_checkpoint(TRUNCATE)');
  // Statements of txAsync steps by text, prepared once (the store modules reuse a few texts).
  const prepared = new Map<string, Database.Statement>();
  const runStep = (step: Step): QueryResult[] =>
    step.queries.map(({ sql, params, expectChanges }) => {
      let st = prepared.get(sql);
      if (!st) prepared.set(sql, (st = raw.prepare(sql)));
      if (st.reader) return { rows: st.all(...params) as Record<string, unknown>[], changes: 0 };
      const changes = st.run(...params).changes;
      if (expectChanges !== undefined && changes !== expectChanges) throw conflict();
      return { rows: [], changes };
    });
  // The synchronous fast path behind the asynchronous interface: every step at once inside one
  // transaction, so nothing else can interleave with it and no promise is awaited while it is open.
  const txSteps = <T>(steps: () => TxSteps<T>): T =>
    raw.transaction(() => {
      const it = steps();
      let r = it.next(undefined as unknown as QueryResult[]);
      let committed = false;
      while (!r.done) {
        if (committed) throw new Error('txAsync: a step after the committing one');
        committed = r.value.commit === true;
        r = it.next(runStep(r.value));
      }
      return r.value;
    }).immediate();
  return {
    dialect: 'sqlite',
    sqlite: raw,
    checkpointer,
    prepare: ((sql: string) => lazyStatement(raw, sql)) as Db['prepare'],
    exec: (sql) => void raw.exec(sql),
    tx: (fn) => raw.transaction(fn).immediate(),
    txAsync<T>(steps: () => TxSteps<T>): Promise<T> {
      try {
        return Promise.resolve(txSteps(steps));
      } catch (e) {
        return Promise.reject(e as Error);
      }
    },
    get inTransaction() {
      return raw.inTransaction;
    },
    available: () => true,
    checkpoint,
    close: () => {
      if (checkpointer && raw.open) {
        checkpointer.stop();
        checkpoint();
      }
      raw.close();
    },
  };
}

/** better-sqlite3's object behind `db` when it is a SQLite handle, else undefined (SQLite-only operations). */
export function sqliteOf(db: Db): Database.Database | undefined {
  return db.dialect === 'sqlite' ? (db as SqliteDb).sqlite : undefined;
}

/**
 * Opens (creating when missing) `<dataDir>/pharos.db` with WAL, foreign keys and
 * synchronous=NORMAL (durable across process crashes; WAL fsyncs at checkpoints), then applies
 * pending migrations.
 * @param dataDir folder of the database, created when missing
 * @param migrations the list to apply (tests pass prefixes of MIGRATIONS)
 * @param nativeBinding the loaded better-sqlite3 addon inside the single executable (see lib/sea.ts)
 * @param checkpoints when given, WAL checkpoints run on a worker thread (store/checkpointer.ts), not
 *   inside the commits of this connection (the server passes it; CLI commands and tests of the store alone do not)
 * @throws AppError `store.newer_schema` when the file was written by a newer Pharos (downgrade refused)
 */
export function openDb(dataDir: string, migrations: readonly Migration[] = MIGRATIONS, nativeBinding?: object, checkpoints?: CheckpointOptions, onMigrated?: (r: MigrationReport) => void): SqliteDb {
  mkdirSync(dataDir, { recursive: true });
  return openDbFile(join(dataDir, 'pharos.db'), migrations, nativeBinding, checkpoints, onMigrated);
}

/**
 * Like {@link openDb} for an explicit file path (`:memory:` works too, never with a checkpoint worker).
 * @param onMigrated told what was migrated when any migration ran (not called when none was pending)
 * @throws AppError `store.migration_failed` naming the step that failed (the steps before it stay)
 */
export function openDbFile(file: string, migrations: readonly Migration[] = MIGRATIONS, nativeBinding?: object, checkpoints?: CheckpointOptions, onMigrated?: (r: MigrationReport) => void): SqliteDb {
  const db = new Database(file, dbOptions(nativeBinding));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  try {
    const from = db.pragma('user_version', { simple: true }) as number;
    const copy = copyBeforeUpgrade(db, file, migrations);
    const applied = migrate(db, migrations);
    if (applied.length > 0) onMigrated?.({ from, to: applied.at(-1)!, applied, copy });
  } catch (e) {
    db.close();
    throw e;
  }
  const background = checkpoints && !db.memory ? startCheckpointer(db, nativeBinding, checkpoints) : undefined;
  return sqliteDb(db, background);
}

/**
 * Where the file of schema `from` is copied before migrations up to `to` run:
 * `<file>.schema<from>.before-upgrade-to-<to>` (issue 37 point 4).
 */
export function preUpgradeCopyName(file: string, from: number | string, to: number | string): string {
  return `${file}.schema${from}.before-upgrade-to-${to}`;
}

/**
 * The schema of an existing database against `migrations` (`pharos version --check-db`, the
 * downgrade refusal): its `user_version`, the latest this Pharos knows, the migrations pending.
 */
export function schemaStatus(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): { current: number; latest: number; pending: Migration[]; newer: boolean } {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.at(-1)?.version ?? 0;
  return { current, latest, pending: current > latest ? [] : migrations.filter((m) => m.version > current), newer: current > latest };
}

/**
 * {@link schemaStatus} of an existing database file, opened read-only (nothing changes).
 * @throws Error from better-sqlite3 when the file cannot be opened as a database
 */
export function schemaStatusOfFile(file: string, nativeBinding?: object): ReturnType<typeof schemaStatus> {
  const db = new Database(file, { readonly: true, fileMustExist: true, ...dbOptions(nativeBinding) });
  try {
    return schemaStatus(db);
  } finally {
    db.close();
  }
}

/**
 * Before the first pending migration of a database that has a schema (version ≥ 1), a whole copy of
 * it ({@link preUpgradeCopyName}, `VACUUM INTO`: consistent, synchronous, at start before serving),
 * so an upgrade that goes wrong can be undone with `pharos restore`. Kept when present (a start that
 * failed and is tried again). A database newer than `migrations` is refused here with the message
 * operators see.
 * @returns the copy's path (made now or kept from before), or null when none is needed
 * @throws AppError `store.newer_schema` (the file, both versions, what to do)
 */
function copyBeforeUpgrade(db: Database.Database, file: string, migrations: readonly Migration[]): string | null {
  const { current, latest, pending, newer } = schemaStatus(db, migrations);
  if (newer) {
    throw new AppError(500, 'store.newer_schema', `${file}: schema version ${current} is newer than this Pharos knows (up to ${latest}): a newer Pharos wrote it; refusing to downgrade it. Run the newer Pharos, or restore a backup from before the upgrade (pharos restore FILE; Pharos copied the database before each upgrade to ${preUpgradeCopyName(file, '<old>', '<new>')})`);
  }
  if (current < 1 || pending.length === 0 || db.memory) return null;
  const copy = preUpgradeCopyName(file, current, latest);
  if (!existsSync(copy)) db.prepare('VACUUM INTO ?').run(copy);
  return copy;
}

/**
 * Applies every migration whose version is above `PRAGMA user_version`, each in its own transaction
 * together with the version bump, so a crash leaves the schema at a whole step.
 * @returns the versions applied
 * @throws AppError `store.migration_failed` naming the step that failed (rolled back; the steps before it stay)
 */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const current = db.pragma('user_version', { simple: true }) as number;
  const applied: number[] = [];
  for (const m of pendingMigrations(current, migrations)) {
    // The pragma is a no-op inside a transaction: it is set around it (sqlite.org/foreignkeys.html).
    const fkWas = m.foreignKeysOff ? (db.pragma('foreign_keys', { simple: true }) as number) : undefined;
    if (m.foreignKeysOff) db.pragma('foreign_keys = OFF');
    try {
      db.transaction(() => {
        try {
          db.exec(m.sql);
          m.run?.(sqliteDb(db));
          if (m.foreignKeysOff) {
            const broken = db.pragma('foreign_key_check') as unknown[];
            if (broken.length > 0) throw new Error(`${broken.length} foreign key violations, e.g. ${JSON.stringify(broken[0])}`);
          }
          db.pragma(`user_version = ${m.version}`);
        } catch (e) {
          throw migrationFailed(m, applied.at(-1) ?? current, e);
        }
      })();
    } finally {
      if (fkWas) db.pragma('foreign_keys = ON');
    }
    applied.push(m.version);
  }
  return applied;
}

/** SQLite library version, e.g. `3.54.1`. */
export function sqliteVersion(nativeBinding?: object): string {
  const db = new Database(':memory:', dbOptions(nativeBinding));
  try {
    return (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  } finally {
    db.close();
  }
}

// @types/better-sqlite3 types nativeBinding as a path; better-sqlite3 ≥ 9 also takes the loaded addon object.
const dbOptions = (nativeBinding?: object): Database.Options => (nativeBinding ? ({ nativeBinding } as unknown as Database.Options) : {});
