import { AppError } from '../lib/errors.ts';
import { sqliteOf } from './db.ts';
import type { Db } from './driver.ts';
import { pgHourTableSql } from './pg/0016_results_hourly.ts';

/** Rows copied and found in one table (`pharos storage copy`). */
export interface TableCount {
  table: string;
  source: number;
  target: number;
}

/** Rows per INSERT: one round trip to PostgreSQL each, well under its 65,535 parameters. */
const BATCH_PARAMS = 20_000;

/**
 * Copies every table of a SQLite store into an empty PostgreSQL store at the same schema version
 * (both opened through openDatabase, so both are migrated to this Pharos's latest), in one
 * transaction on the target, tables in foreign-key order, identity sequences moved past the copied
 * ids and past every id SQLite ever gave (`sqlite_sequence`); then counts the rows of every table on both sides.
 * @returns the per-table counts (equal when this returns)
 * @throws AppError 409 `storage.target_not_empty` naming a table that has rows (nothing is written),
 *   400 `storage.unsupported` for another direction, 500 `storage.count_mismatch` naming the table
 */
export function copySqliteToPostgres(from: Db, to: Db): TableCount[] {
  const lite = sqliteOf(from);
  if (!lite || to.dialect !== 'postgres') throw new AppError(400, 'storage.unsupported', 'storage copy: only from sqlite: to postgres:// is supported');
  // leader_lease is the running cluster's state, not data: the target keeps its own seeded row (issue 31).
  const tables = foreignKeyOrder(lite).filter((t) => t !== 'leader_lease');
  const pgColumns = new Map<string, Map<string, string>>();
  // Raw results live in one table per hour (migration 0016): make the source's hours on the target first.
  const hourTables = tables.filter((t) => /^check_results_h\d+$/.test(t));
  if (hourTables.length) to.tx(() => hourTables.forEach((t) => to.exec(pgHourTableSql(Number(t.slice('check_results_h'.length))))));
  for (const r of to.prepare<[], { t: string; c: string; type: string }>("SELECT table_name AS t, column_name AS c, data_type AS type FROM information_schema.columns WHERE table_schema = 'public'").all()) {
    if (!pgColumns.has(r.t)) pgColumns.set(r.t, new Map());
    pgColumns.get(r.t)!.set(r.c, r.type);
  }
  const count = (db: Db, t: string) => db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM "${t}"`).get()!.n;
  to.tx(() => {
    for (const t of tables) {
      if (!pgColumns.has(t)) throw new AppError(500, 'storage.schema_mismatch', `storage copy: table ${t} is missing on the PostgreSQL side`);
      // counters holds the seeded incident_number row of a fresh schema: it is replaced, not a sign of data.
      if (t !== 'counters' && count(to, t) > 0) throw new AppError(409, 'storage.target_not_empty', `storage copy: the target is not empty (table ${t} has rows); copy into an empty database`);
    }
    to.exec('DELETE FROM counters');
    for (const t of tables) {
      const cols = (lite.prepare(`SELECT name FROM pragma_table_info('${t}')`).all() as { name: string }[]).map((c) => c.name);
      const types = pgColumns.get(t)!;
      const bigint = cols.map((c) => types.get(c) === 'bigint');
      const perBatch = Math.max(1, Math.floor(BATCH_PARAMS / cols.length));
      const insertOf = new Map<number, ReturnType<Db['prepare']>>();
      const flush = (rows: unknown[][]) => {
        if (!rows.length) return;
        let stmt = insertOf.get(rows.length);
        if (!stmt) {
          const one = `(${cols.map(() => '?').join(', ')})`;
          stmt = to.prepare(`INSERT INTO "${t}"(${cols.map((c) => `"${c}"`).join(', ')}) VALUES ${Array.from({ length: rows.length }, () => one).join(', ')}`);
          insertOf.set(rows.length, stmt);
        }
        stmt.run(...rows.flat());
      };
      let rows: unknown[][] = [];
      for (const r of lite.prepare(`SELECT * FROM "${t}"`).raw().iterate() as IterableIterator<unknown[]>) {
        // A fraction SQLite kept in an INTEGER column (it stores what it is given) fits a BIGINT rounded.
        rows.push(r.map((v, i) => (bigint[i] && typeof v === 'number' && !Number.isInteger(v) ? Math.round(v) : v)));
        if (rows.length === perBatch) {
          flush(rows);
          rows = [];
        }
      }
      flush(rows);
      if (types.get('id') === 'bigint' && cols.includes('id')) {
        // Past the highest id SQLite ever gave (sqlite_sequence: AUTOINCREMENT tables, migration 0027),
        // not only past the rows left: an id deleted before the copy is not given again (issue 35).
        const given = (lite.prepare("SELECT seq FROM sqlite_sequence WHERE name = ?").get(t) as { seq: number } | undefined)?.seq ?? 0;
        to.prepare(`SELECT setval(pg_get_serial_sequence('"${t}"', 'id'), greatest((SELECT coalesce(max(id), 0) FROM "${t}"), CAST(? AS bigint)) + 1, false)`).get(given);
      }
    }
  });
  const counts = tables.map((t) => ({ table: t, source: count(from, t), target: count(to, t) }));
  const off = counts.find((c) => c.source !== c.target);
  if (off) throw new AppError(500, 'storage.count_mismatch', `storage copy: ${off.table} has ${off.source} rows in the source but ${off.target} in the target`);
  return counts;
}

/** Tables of a SQLite store, each after the tables its foreign keys point at. */
function foreignKeyOrder(lite: NonNullable<ReturnType<typeof sqliteOf>>): string[] {
  const names = (lite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  const deps = new Map(names.map((n) => [n, (lite.prepare(`SELECT DISTINCT "table" AS t FROM pragma_foreign_key_list('${n}')`).all() as { t: string }[]).map((r) => r.t).filter((t) => t !== n)]));
  const out: string[] = [];
  const visit = (n: string, path: Set<string>) => {
    if (out.includes(n) || path.has(n)) return;
    path.add(n);
    for (const d of deps.get(n) ?? []) visit(d, path);
    out.push(n);
  };
  for (const n of names) visit(n, new Set());
  return out;
}
