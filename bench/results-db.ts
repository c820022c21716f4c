/**
 * Bench helpers over a stopped Pharos's database file: raw results live in one table per UTC hour
 * (`check_results_h<hour>`, migration 0016), with their repeated context in `check_contexts`.
 */
import type Database from 'better-sqlite3';

const HOUR_MS = 3_600_000;

/** Names of the hourly results tables, oldest first. */
export const hourTables = (db: Database.Database): string[] =>
  (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name GLOB 'check_results_h[0-9]*'").pluck().all() as string[]).sort();

/**
 * Stored results, optionally filtered by a condition on `at` (epoch ms, computed per table) and the
 * context columns `c.ok`, `c.region`, `c.probe`, `c.reason`.
 */
export function countResults(db: Database.Database, where = 'true', params: unknown[] = []): number {
  let n = 0;
  // A database of a Pharos before migration 0016 (comparison runs against an older build).
  if (db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'check_results'").get()) {
    n += db.prepare(`SELECT count(*) FROM check_results c WHERE ${where}`).pluck().get(...params) as number;
  }
  for (const t of hourTables(db)) {
    const base = Number(t.slice('check_results_h'.length)) * HOUR_MS;
    n += db.prepare(`SELECT count(*) FROM (SELECT ${base} + r.t AS at, c.* FROM ${t} r JOIN check_contexts c ON c.id = r.ctx) c WHERE ${where}`).pluck().get(...params) as number;
  }
  return n;
}

/** Bytes of every page holding results: the hourly tables, the contexts, the hourly rollups (`dbstat`); before 0016 the one table and its index. */
export function resultBytes(db: Database.Database): number {
  const names = [...hourTables(db), 'check_results', 'check_results_monitor_at', 'check_contexts', 'check_contexts_key', 'check_rollups_hourly', 'sqlite_autoindex_check_rollups_hourly_1'];
  return db.prepare(`SELECT sum(pgsize) FROM dbstat WHERE name IN (${names.map(() => '?').join(', ')})`).pluck().get(...names) as number;
}
