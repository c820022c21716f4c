import type { Db } from '../db.ts';

/**
 * Raw check results move from one rowid table plus a (monitor_id, at) index (~52–55 B a check) to one
 * WITHOUT ROWID table per UTC hour, `check_results_h<hour>` (hour = floor(at / 3,600,000)), keyed by
 * (monitor_id, t) with t the ms since the hour's start, and a dictionary of what repeats
 * (`check_contexts`: ok, region, probe, reason). Pruning drops whole hours (issue 14 point 14) instead
 * of deleting row by row; a row is ~15 B (issue 21). The hourly tables are created by the checks store
 * (src/store/checks.ts) as results arrive; `last_hour` is the newest hour that used a context, so the
 * prune can delete contexts no stored result refers to.
 */
export const sql = `
CREATE TABLE check_contexts (
  id INTEGER PRIMARY KEY,
  ok INTEGER NOT NULL,
  region TEXT NOT NULL,
  probe TEXT,
  reason TEXT,
  last_hour INTEGER NOT NULL
);
CREATE INDEX check_contexts_key ON check_contexts(ok, region, probe, reason);
`;

const HOUR_MS = 3_600_000;

/** The DDL of one hourly results table (the same text the checks store uses; frozen here for 0016). */
export const hourTableSql = (hour: number): string =>
  `CREATE TABLE IF NOT EXISTS check_results_h${hour} (
  monitor_id INTEGER NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  t INTEGER NOT NULL,
  ctx INTEGER NOT NULL,
  latency_ms INTEGER NOT NULL,
  code INTEGER NOT NULL,
  PRIMARY KEY (monitor_id, t, ctx, latency_ms, code)
) WITHOUT ROWID`;

/**
 * Moves every row of the old `check_results` into the hourly tables (hour by hour, one INSERT … SELECT
 * each), then drops the old table. Rows identical in every column (same monitor, millisecond, region,
 * probe, outcome, latency and status) cannot share a key: each repeat is stored 1 ms later, so the
 * number of results is kept exactly.
 */
export function run(db: Db): void {
  db.exec(`INSERT INTO check_contexts(ok, region, probe, reason, last_hour)
    SELECT ok, region, probe, reason, max(at / ${HOUR_MS}) FROM check_results GROUP BY ok, region, probe, reason`);
  const hours = (db.prepare(`SELECT DISTINCT at / ${HOUR_MS} AS h FROM check_results`).all() as Array<{ h: number }>).map((r) => r.h);
  for (const h of hours) {
    db.exec(hourTableSql(h));
    const base = h * HOUR_MS;
    const from = `FROM check_results r JOIN check_contexts c ON c.ok = r.ok AND c.region = r.region AND c.probe IS r.probe AND c.reason IS r.reason
      WHERE r.at >= ${base} AND r.at < ${base + HOUR_MS}`;
    const moved = db.prepare(`INSERT OR IGNORE INTO check_results_h${h}(monitor_id, t, ctx, latency_ms, code)
      SELECT r.monitor_id, r.at - ${base}, c.id, r.latency_ms, r.status_code - 200 ${from}`).run().changes;
    const all = (db.prepare(`SELECT count(*) AS n FROM check_results WHERE at >= ${base} AND at < ${base + HOUR_MS}`).get() as { n: number }).n;
    if (moved === all) continue;
    // Exact repeats: one stored, the others 1 ms apart (the next free millisecond).
    const repeats = db.prepare(`SELECT r.monitor_id AS m, r.at - ${base} AS t, c.id AS ctx, r.latency_ms AS l, r.status_code - 200 AS code, count(*) - 1 AS extra ${from}
      GROUP BY r.monitor_id, r.at, c.id, r.latency_ms, r.status_code HAVING count(*) > 1`).all() as Array<{ m: number; t: number; ctx: number; l: number; code: number; extra: number }>;
    const put = db.prepare(`INSERT OR IGNORE INTO check_results_h${h}(monitor_id, t, ctx, latency_ms, code) VALUES (?, ?, ?, ?, ?)`);
    for (const r of repeats) {
      for (let left = r.extra, t = r.t + 1; left > 0; t++) if (put.run(r.m, t, r.ctx, r.l, r.code).changes) left--;
    }
  }
  db.exec('DROP TABLE check_results');
}
