import type Database from 'better-sqlite3';
import { sqliteOf, type Db } from './db.ts';
import type { Statement } from './driver.ts';
import { hourTableSql } from './migrations/0016_results_hourly_tables.ts';
import { pgHourTableSql } from './pg/0016_results_hourly.ts';

/** Length of one results table's span: one UTC hour, the same grain as the hourly rollups. */
export const HOUR_MS = 3_600_000;
/** `status_code` is stored as `code = status_code − 200`: the common 200 is the integer 0, which SQLite stores in no byte. */
export const CODE_BASE = 200;

/** A raw row of an hourly table, with its context (see migration 0016). */
export interface RawRow {
  at: number;
  ok: number;
  region: string;
  probe: string | null;
  latency_ms: number;
  status_code: number;
  reason: string | null;
}

/** The statements of one hourly table, prepared once and kept while the table exists. */
export interface HourStatements {
  insert: Statement<[number, number, number, number, number, number]>;
  newest: Statement<[number], { t: number | null }>;
  latest: Statement<[number, number], { t: number; ctx: number; latency_ms: number; code: number }>;
  count: Statement<[number], { n: number }>;
  /** PostgreSQL: a whole batch in one statement (column arrays), answering the rows it stored. */
  insertMany: Statement<[number[], number[], number[], number[], number[]], { monitor_id: number; t: number; ctx: number; latency_ms: number; code: number }> | undefined;
  /** SQLite: a JSON array of ids; PostgreSQL: the ids as an array. */
  newestOf: Statement<[string | number[]], { id: number; t: number | null }>;
}

/**
 * The hourly results tables `check_results_h<hour>` of one connection (migration 0016): which exist
 * (listed from `sqlite_schema`, re-read only when `PRAGMA schema_version` moved, so another connection's
 * change is seen), creating one on first use, their prepared statements, and dropping one whole.
 * Dropping a WITHOUT ROWID table frees its pages without rewriting them (no index to maintain, a few
 * freelist pages to the WAL), which is what makes pruning cheap.
 */
export class ResultHours {
  private readonly schemaVersion: Database.Statement<[], number> | undefined;
  private readonly listing: Statement<[], { name: string }>;
  /** better-sqlite3 itself on SQLite; undefined on PostgreSQL. */
  private readonly lite: Database.Database | undefined;
  private version = -1;
  private sorted: number[] = [];
  private readonly statements = new Map<number, HourStatements>();

  constructor(private readonly db: Db) {
    this.lite = sqliteOf(db);
    this.schemaVersion = this.lite?.prepare<[], number>('PRAGMA schema_version').pluck();
    this.listing = this.lite
      ? db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name GLOB 'check_results_h[0-9]*'")
      : db.prepare("SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'check\\_results\\_h%'");
  }

  /** Hour numbers (floor(epoch ms / 3,600,000)) of the existing tables, oldest first. */
  hours(): readonly number[] {
    const list = () => this.listing.all().map((r) => Number(r.name.slice('check_results_h'.length))).sort((a, b) => a - b);
    // Inside a transaction the schema may still roll back: read it afresh and cache nothing. Outside, a
    // committed schema_version names one committed schema (it only grows), so the cache is exact.
    // PostgreSQL has no cheap schema version (and other instances may add or drop hours): read afresh, one round trip.
    if (!this.lite || this.lite.inTransaction) return list();
    const v = this.schemaVersion!.get()!;
    if (v !== this.version) {
      this.sorted = list();
      this.version = v;
      const live = new Set(this.sorted);
      for (const h of this.statements.keys()) if (!live.has(h)) this.statements.delete(h);
    }
    return this.sorted;
  }

  /** Existing hours at or before `hour`, newest first. */
  hoursDownFrom(hour: number): number[] {
    const all = this.hours();
    const out: number[] = [];
    for (let i = all.length - 1; i >= 0; i--) if (all[i]! <= hour) out.push(all[i]!);
    return out;
  }

  /**
   * Creates the table of `hour` when missing (inside the caller's transaction; `CREATE TABLE IF NOT
   * EXISTS`, so a creation rolled back with its batch is simply made again) and returns its statements.
   */
  ensure(hour: number): HourStatements {
    this.db.exec(this.lite ? hourTableSql(hour) : pgHourTableSql(hour));
    return this.of(hour);
  }

  /** Statements of an existing hour's table. */
  of(hour: number): HourStatements {
    let s = this.statements.get(hour);
    if (!s) {
      const t = `check_results_h${hour}`;
      s = {
        // INSERT … SELECT … WHERE EXISTS: a result of a monitor deleted while it sat in the write buffer is
        // dropped instead of failing the whole batch on the foreign key.
        insert: this.db.prepare(
          this.lite
            ? `INSERT INTO ${t}(monitor_id, t, ctx, latency_ms, code) SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM monitors WHERE id = ?) ON CONFLICT DO NOTHING`
            : `INSERT INTO ${t}(monitor_id, t, ctx, latency_ms, code) SELECT CAST(? AS bigint), CAST(? AS integer), CAST(? AS bigint), CAST(? AS integer), CAST(? AS integer) WHERE EXISTS (SELECT 1 FROM monitors WHERE id = ?) ON CONFLICT DO NOTHING`,
        ),
        newest: this.db.prepare(`SELECT max(t) AS t FROM ${t} WHERE monitor_id = ?`),
        latest: this.db.prepare(`SELECT t, ctx, latency_ms, code FROM ${t} WHERE monitor_id = ? ORDER BY t DESC LIMIT ?`),
        count: this.db.prepare(`SELECT count(*) AS n FROM ${t} WHERE monitor_id = ?`),
        newestOf: this.db.prepare(
          this.lite
            ? `SELECT j.value AS id, (SELECT max(t) FROM ${t} WHERE monitor_id = j.value) AS t FROM json_each(?) j`
            : `SELECT j.id, (SELECT max(t) FROM ${t} WHERE monitor_id = j.id) AS t FROM unnest(CAST(? AS bigint[])) AS j(id)`,
        ),
        insertMany: this.lite
          ? undefined
          : this.db.prepare(
              `INSERT INTO ${t}(monitor_id, t, ctx, latency_ms, code)
               SELECT u.* FROM unnest(CAST(? AS bigint[]), CAST(? AS integer[]), CAST(? AS bigint[]), CAST(? AS integer[]), CAST(? AS integer[])) AS u(monitor_id, t, ctx, latency_ms, code)
               WHERE EXISTS (SELECT 1 FROM monitors m WHERE m.id = u.monitor_id) ON CONFLICT DO NOTHING RETURNING monitor_id, t, ctx, latency_ms, code`,
            ),
      };
      this.statements.set(hour, s);
    }
    return s;
  }

  /**
   * Drops one hour's table (inside the caller's transaction).
   * @returns the results it held, read from the hour's rollups (one seek per monitor): every stored
   *   result is counted in its hour's rollup in the same transaction, and counting the table itself
   *   would read every page a second time (it doubled the drop's time: 37 + 35 ms at 3.6 M rows)
   */
  drop(hour: number): number {
    if (!this.hours().includes(hour)) return 0;
    const n = this.db.prepare<[number], { n: number | null }>('SELECT sum(r.checks) AS n FROM monitors m JOIN check_rollups_hourly r ON r.monitor_id = m.id AND r.hour_start = ?').get(hour * HOUR_MS)?.n ?? 0;
    this.statements.delete(hour);
    this.db.exec(`DROP TABLE check_results_h${hour}`);
    return n;
  }
}
