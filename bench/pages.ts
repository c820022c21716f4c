/**
 * Bench: status page render cost against history length. A page of N monitors (paused: no checks
 * run) in sections of 10, each with uptime bars and a response-time graph; `--days` of synthetic
 * history written straight into the database while Pharos is stopped (an outage a day per monitor,
 * hourly rollups for every hour, monitors created `--days` ago). Then sequential GETs of the page
 * (24 h and 7 d graphs), summary.json and /healthz (the HTTP floor). Run it with --days 7 and
 * --days 365: the page's cost must not follow the history. See docs/PERFORMANCE.md.
 * Since issue 21 every GET after the first of a key is served from the render cache (a render at
 * most once a minute): single-render times are measured by bench/rush.ts (first GET of many pages).
 *
 *   npm run bench:pages -- [--services 50] [--days 90] [--requests 300] [--pharos dist|src|<binary>]
 */
import { benchArgs } from './args.ts';
import Database from 'better-sqlite3';
import { seedDailyOutages, timeRequests } from './history.ts';
import { forEachConcurrent, startBenchPharos, type BenchPharos } from './pharos.ts';

const { values: opt } = benchArgs({
  about: "A status page's render cost against history length: a page of N paused monitors with --days of synthetic history, sequential GETs.",
  npm: 'bench:pages',
  options: {
    services: { type: 'string', default: '50', help: 'monitors on the page' },
    days: { type: 'string', default: '90', help: 'days of synthetic history' },
    requests: { type: 'string', default: '300', help: 'sequential GETs per route' },
    pharos: { type: 'string', default: 'dist', help: "dist (the single executable, rebuilt when stale), src (tsx) or a binary's path" },
  },
});
const N = Number(opt.services);
const DAYS = Number(opt.days);
const REQUESTS = Number(opt.requests);
const DAY = 86_400_000;
const HOUR = 3_600_000;

const timed = (p: BenchPharos, path: string) => timeRequests(() => fetch(p.url + path), REQUESTS, 20);

const seed = await startBenchPharos(opt.pharos!);
const uuids: string[] = new Array(N);
await forEachConcurrent(N, 8, async (i) => {
  const res = await seed.api('/v1/monitors', 'POST', { name: `Service ${i}`, url: `http://127.0.0.1:9/m${i}`, check_frequency: 3600, paused: true });
  if (res.status !== 201) throw new Error(`create monitor: ${res.status}`);
  uuids[i] = ((await res.json()) as { uuid: string }).uuid;
});
const sections = Array.from({ length: Math.ceil(N / 10) }, (_, s) => ({ name: `Section ${s}`, services: uuids.slice(s * 10, s * 10 + 10).map((u) => ({ monitor_uuid: u })) }));
const page = await seed.api('/v2/statuspages', 'POST', { name: 'Bench', subdomain: 'bench', sections });
if (page.status !== 201) throw new Error(`create page: ${page.status} ${await page.text()}`);
await seed.stop();

const db = new Database(seed.dbFile);
const now = Date.now();
const ids = db.prepare('SELECT id FROM monitors ORDER BY id').all() as Array<{ id: number }>;
const insertRollup = db.prepare('INSERT INTO check_rollups_hourly(monitor_id, hour_start, checks, failures, latency_sum_ms, latency_max_ms) VALUES (?, ?, 60, 0, ?, ?)');
let incident = 0;
let rollups = 0;
db.transaction(() => {
  db.prepare('UPDATE monitors SET created_at = ?').run(now - DAYS * DAY);
  incident = seedDailyOutages(
    db,
    ids.map((r) => r.id),
    DAYS,
    now,
  );
  for (const { id } of ids) {
    const first = now - (now % HOUR) - DAYS * 24 * HOUR;
    for (let h = first; h < now; h += HOUR, rollups++) insertRollup.run(id, h, 60 * (80 + ((h / HOUR + id) % 40)), 200);
  }
})();
db.close();

const p = await startBenchPharos(opt.pharos!, undefined, seed);
try {
  const floor = await timed(p, '/healthz');
  const day = await timed(p, '/status/bench');
  const week = await timed(p, '/status/bench?range=7d');
  const summary = await timed(p, '/status/bench/summary.json');
  const f = (n: number) => n.toFixed(1);
  const kb = (n: number) => `${Math.round(n / 1024)} KiB`;
  console.log(`\n${N} services (monitors) × ${DAYS} days of history (${incident} outages, ${rollups} hourly rollups); ${REQUESTS} sequential requests each\n`);
  console.log('| request | p50 ms | p99 ms | size |');
  console.log('|---|---:|---:|---:|');
  console.log(`| GET /healthz (HTTP floor) | ${f(floor.p50)} | ${f(floor.p99)} | |`);
  console.log(`| GET /status/bench (90-day bars, 24 h graphs) | ${f(day.p50)} | ${f(day.p99)} | ${kb(day.bytes)} |`);
  console.log(`| GET /status/bench?range=7d (7 d graphs) | ${f(week.p50)} | ${f(week.p99)} | ${kb(week.bytes)} |`);
  console.log(`| GET /status/bench/summary.json | ${f(summary.p50)} | ${f(summary.p99)} | ${kb(summary.bytes)} |`);
} finally {
  await p.cleanup();
}
