/**
 * Bench: pruning a backlog of raw results under load. N HTTP monitors (default 5,000) every 10 s,
 * with `storage.prune_interval_minutes: 1`, measured over a window around the first prune:
 * 1. baseline: nothing past the retention (the prune finds nothing);
 * 2. backlog: M rows (default 2,000,000) dated 8 days ago written into the database while Pharos
 *    was stopped, so the prune 60 s after the start deletes them all while checks run.
 * Same database, same monitors, one Pharos restarted between the runs. Scheduler lag p50/p99 and the
 * highest lag bucket reached come from the lag histogram over the whole window. The prune drops the
 * backlog's hourly tables whole (src/store/checks.ts); the former row-by-row delete is in
 * docs/PERFORMANCE.md for comparison.
 *
 *   node --import tsx bench/prune.ts [--monitors 5000] [--rows 2000000] [--window 60] [--pharos dist|src]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchArgs } from './args.ts';
import Database from 'better-sqlite3';
import type { CheckResult } from '../src/domain/check.ts';
import { checksStore } from '../src/store/checks.ts';
import { sqliteDb } from '../src/store/db.ts';
import { countResults } from './results-db.ts';
import { ProcessWindow, sleep, startChild } from './proc.ts';
import { ROOT, forEachConcurrent, freePort, startBenchPharos, stop, type BenchPharos } from './pharos.ts';
import { buckets, metric, windowCount, windowQuantile } from './prom.ts';

const { values: opt } = benchArgs({
  about: 'Pruning a backlog of raw results under load: N monitors every 10 s, the first prune with nothing to delete, then with M rows past the retention.',
  options: {
    monitors: { type: 'string', default: '5000', help: 'HTTP monitors every 10 s' },
    rows: { type: 'string', default: '2000000', help: 'rows of backlog written 8 days back' },
    window: { type: 'string', default: '60', help: 'seconds measured around the first prune' },
    pharos: { type: 'string', default: 'dist', help: 'dist (the single executable, rebuilt when stale) or src (tsx)' },
  },
});
const N = Number(opt.monitors);
const ROWS = Number(opt.rows);
const WINDOW_S = Number(opt.window);
const FREQ_S = 10;
const DAY_MS = 86_400_000;
/** The first prune runs this long after a start (prune_interval_minutes: 1); the window opens before it. */
const PRUNE_AFTER_S = 60;
const OPEN_WINDOW_AT_S = 45;
const CONFIG = 'storage:\n  prune_interval_minutes: 1\n';

interface Run {
  what: string;
  checksPerS: number;
  lagP50Ms: number;
  lagP99Ms: number;
  /** Upper bound of the highest lag bucket with an observation in the window. */
  lagMaxBucketMs: number;
  cpuCores: number;
  peakRssMb: number;
  oldRowsLeft: number;
}

function highestBucket(before: Map<number, number>, after: Map<number, number>): number {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  let prev = 0;
  let highest = 0;
  for (const b of bounds) {
    const c = (after.get(b) ?? 0) - (before.get(b) ?? 0);
    if (c > prev) highest = b;
    prev = c;
  }
  return highest;
}

const oldRows = (dbFile: string) => {
  const db = new Database(dbFile, { readonly: true });
  const n = countResults(db, 'at < ?', [Date.now() - 7 * DAY_MS]);
  db.close();
  return n;
};

async function measure(p: BenchPharos, what: string, startedAt: number): Promise<Run> {
  await sleep(Math.max(0, startedAt + OPEN_WINDOW_AT_S * 1000 - performance.now()));
  const scrape = () => p.api('/metrics').then((r) => r.text());
  const first = await scrape();
  const lag0 = buckets(first, 'pharos_scheduler_lag_hist_seconds');
  const checks0 = metric(first, 'pharos_checks_total');
  const win = new ProcessWindow(p.child.proc.pid!);
  await sleep(WINDOW_S * 1000);
  const m = win.end();
  const last = await scrape();
  const lag1 = buckets(last, 'pharos_scheduler_lag_hist_seconds');
  await p.stop();
  return {
    what,
    checksPerS: windowCount(lag0, lag1) / m.wallS,
    lagP50Ms: windowQuantile(lag0, lag1, 0.5) * 1000,
    lagP99Ms: windowQuantile(lag0, lag1, 0.99) * 1000,
    lagMaxBucketMs: highestBucket(lag0, lag1) * 1000,
    cpuCores: m.cpuCores,
    peakRssMb: m.peakRss / 2 ** 20,
    oldRowsLeft: oldRows(p.dbFile),
  };
}

const targetPort = await freePort();
const target = startChild(process.execPath, [join(ROOT, 'bench/target.ts'), String(targetPort)]);
await target.nextLine();
const targetUrl = `http://127.0.0.1:${targetPort}`;
const runs: Run[] = [];
let p = await startBenchPharos(opt.pharos!, undefined, undefined, CONFIG);
try {
  await forEachConcurrent(N, 8, async (i) => {
    const res = await p.api('/v1/monitors', 'POST', { name: `bench ${i}`, url: `${targetUrl}/m/${i}`, monitor_type: 'status', check_frequency: FREQ_S });
    if (res.status !== 201) throw new Error(`create monitor ${i}: ${res.status} ${await res.text()}`);
  });
  await p.stop();

  let started = performance.now();
  p = await startBenchPharos(opt.pharos!, undefined, p, CONFIG);
  runs.push(await measure(p, 'baseline: nothing to prune', started));

  // The backlog: 8-day-old results as the same monitors would have made them (one per monitor every
  // 10 s, ROWS / N checks each), with their hourly rollups, through the checks store.
  const db = new Database(p.dbFile);
  const ids = (db.prepare('SELECT id FROM monitors').all() as Array<{ id: number }>).map((r) => r.id);
  const checks = checksStore(sqliteDb(db));
  const old = Date.now() - 8 * DAY_MS;
  const batch: CheckResult[] = [];
  db.transaction(() => {
    for (let i = 0; i < ROWS; i++) {
      batch.push({ monitorId: ids[i % ids.length]!, at: old + Math.floor(i / ids.length) * FREQ_S * 1000 + (i % ids.length), region: 'london', probe: 'local', ok: true, latencyMs: 12, statusCode: 200, reason: null });
      if (batch.length === 10_000) checks.insertResults(batch.splice(0));
    }
    checks.insertResults(batch.splice(0));
  })();
  db.close();

  started = performance.now();
  p = await startBenchPharos(opt.pharos!, undefined, p, CONFIG);
  runs.push(await measure(p, `backlog: ${ROWS.toLocaleString('en')} rows pruned at ${PRUNE_AFTER_S} s`, started));
} finally {
  await p.cleanup();
  await stop(target);
}

const f = (n: number, d = 1) => (Number.isNaN(n) ? '–' : n.toFixed(d));
const table = [
  '| run | checks/s | lag p50 ms | lag p99 ms | highest lag bucket ms | CPU (cores) | peak RSS MB | old rows left |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  ...runs.map((r) => `| ${r.what} | ${f(r.checksPerS)} | ${f(r.lagP50Ms)} | ${f(r.lagP99Ms)} | ≤ ${f(r.lagMaxBucketMs, 1)} | ${f(r.cpuCores, 2)} | ${f(r.peakRssMb, 0)} | ${r.oldRowsLeft} |`),
].join('\n');
console.log(`\n${N} HTTP monitors every ${FREQ_S} s; window ${OPEN_WINDOW_AT_S}–${OPEN_WINDOW_AT_S + WINDOW_S} s after start, first prune at ${PRUNE_AFTER_S} s\n\n${table}`);
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, `bench/results/prune-${N}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(runs, null, 2));
