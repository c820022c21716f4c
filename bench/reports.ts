/**
 * Bench: report cost with a year of history. N monitors (paused: no checks run), then a year of
 * synthetic outages (one a day per monitor, 5–65 min) and a weekly maintenance window per monitor
 * written straight into the database while Pharos is stopped; then GET /v2/reporting/monitor-reports
 * (7-day default window, every monitor) and one monitor's 1-year report, side by side with /healthz
 * (the HTTP floor). Medians and p99 of sequential requests; see docs/PERFORMANCE.md.
 *
 *   npm run bench:reports -- [--monitors 1000] [--days 365] [--requests 200] [--pharos dist|src|<binary>]
 */
import { benchArgs } from './args.ts';
import Database from 'better-sqlite3';
import { seedDailyOutages, timeRequests } from './history.ts';
import { forEachConcurrent, startBenchPharos, type BenchPharos } from './pharos.ts';

const { values: opt } = benchArgs({
  about: 'Report cost with a year of history: N paused monitors with synthetic outages and maintenance, the reports side by side with /healthz.',
  npm: 'bench:reports',
  options: {
    monitors: { type: 'string', default: '1000', help: 'monitors' },
    days: { type: 'string', default: '365', help: 'days of synthetic history' },
    requests: { type: 'string', default: '200', help: 'sequential GETs per route' },
    pharos: { type: 'string', default: 'dist', help: "dist (the single executable, rebuilt when stale), src (tsx) or a binary's path" },
  },
});
const N = Number(opt.monitors);
const DAYS = Number(opt.days);
const REQUESTS = Number(opt.requests);
const DAY = 86_400_000;

const timed = (p: BenchPharos, path: string) => timeRequests(() => p.api(path), REQUESTS);

const seed = await startBenchPharos(opt.pharos!);
const uuids: string[] = new Array(N);
await forEachConcurrent(N, 8, async (i) => {
  const res = await seed.api('/v1/monitors', 'POST', { name: `m${i}`, url: `http://127.0.0.1:9/m${i}`, check_frequency: 3600, paused: true });
  if (res.status !== 201) throw new Error(`create monitor: ${res.status}`);
  uuids[i] = ((await res.json()) as { uuid: string }).uuid;
});
await seed.stop();

// A year of history, written directly (the API has no way to backdate outages).
const db = new Database(seed.dbFile);
const now = Date.now();
const ids = db.prepare('SELECT id FROM monitors ORDER BY id').all() as Array<{ id: number }>;
const insertWindow = db.prepare(
  `INSERT INTO maintenance_windows(uuid, name, start_at, end_at, statuspages, updates, notification_option, notification_minutes, created_at, updated_at)
   VALUES (?, 'weekly', ?, ?, '[]', '[]', 'none', 60, ?, ?)`,
);
const linkWindow = db.prepare('INSERT INTO maintenance_monitors(window_id, monitor_id) VALUES (?, ?)');
let incident = 0;
db.transaction(() => {
  incident = seedDailyOutages(
    db,
    ids.map((r) => r.id),
    DAYS,
    now,
    (id, d, start) => {
      if (d % 7 !== 0) return;
      const w = insertWindow.run(`mw_b${id}_${d}`, start - 3_600_000, start - 1_800_000, start, start).lastInsertRowid;
      linkWindow.run(w, id);
    },
  );
})();
db.close();

const p = await startBenchPharos(opt.pharos!, undefined, seed);
try {
  const floor = await timed(p, '/healthz');
  const list = await timed(p, '/v2/reporting/monitor-reports');
  const yearFrom = new Date(now - DAYS * DAY).toISOString();
  const one = await timed(p, `/v2/reporting/monitor-reports/${uuids[0]}?from=${yearFrom}`);
  const f = (n: number) => n.toFixed(1);
  console.log(`\n${N} monitors × ${DAYS} days of history (${incident} outages, a weekly maintenance window each); ${REQUESTS} sequential requests each\n`);
  console.log('| request | p50 ms | p99 ms |');
  console.log('|---|---:|---:|');
  console.log(`| GET /healthz (HTTP floor) | ${f(floor.p50)} | ${f(floor.p99)} |`);
  console.log(`| GET /v2/reporting/monitor-reports (${N} monitors, last 7 days) | ${f(list.p50)} | ${f(list.p99)} |`);
  console.log(`| GET /v2/reporting/monitor-reports/{uuid}?from=<1 year ago> | ${f(one.p50)} | ${f(one.p99)} |`);
} finally {
  await p.cleanup();
}
