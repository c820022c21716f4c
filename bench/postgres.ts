/**
 * Bench (issue 22): N HTTP monitors on PostgreSQL vs SQLite in one run — the same binary, the same
 * local target, the same window, the two stores one after the other (`--rounds 2` alternates
 * sqlite, postgres, postgres, sqlite). PostgreSQL is a real cluster in a temp dir (test/support/postgres.ts,
 * fsync off as in the tests).
 *
 *   node --import tsx bench/postgres.ts [--monitors 10000] [--frequency 10] [--duration 60] [--warmup 30] [--rounds 1] [--pharos dist|src]
 *
 * Per run: checks/s done, scheduler lag p50/p99 (from `pharos_scheduler_lag_hist_seconds` over the
 * whole window), Pharos CPU (cores, /proc of its process), PostgreSQL CPU (cores, /proc of the
 * postmaster and every backend it forked), Pharos peak RSS (VmHWM) and the bytes per stored check
 * (SQLite: dbstat pages of the hourly results tables, rollups and contexts; PostgreSQL:
 * pg_total_relation_size of the same tables) / rows. Printed as Markdown; see docs/PERFORMANCE.md.
 */
import { join } from 'node:path';
import { benchArgs } from './args.ts';
import Database from 'better-sqlite3';
import pg from 'pg';
import { startPostgres, type TestPostgres } from '../test/support/postgres.ts';
import { cpuSeconds, ProcessWindow, sleep, startChild } from './proc.ts';
import { buckets, metric, windowQuantile } from './prom.ts';
import { ROOT, forEachConcurrent, freePort, startBenchPharos, stop, type BenchPharos } from './pharos.ts';

const { values: opt } = benchArgs({
  about: 'N HTTP monitors on PostgreSQL vs SQLite in one run: the same binary, target and window, the two stores one after the other.',
  options: {
    monitors: { type: 'string', default: '10000', help: 'HTTP monitors' },
    frequency: { type: 'string', default: '10', help: 'their check frequency, seconds' },
    duration: { type: 'string', default: '60', help: 'seconds measured per store' },
    warmup: { type: 'string', default: '30', help: 'seconds before the window' },
    rounds: { type: 'string', default: '1', help: 'rounds (2 alternates sqlite, postgres, postgres, sqlite)' },
    pharos: { type: 'string', default: 'dist', help: 'dist (the single executable, rebuilt when stale) or src (tsx)' },
  },
});
const N = Number(opt.monitors);
const FREQ_S = Number(opt.frequency);
const DURATION_S = Number(opt.duration);
const WARMUP_S = Number(opt.warmup);

interface Row {
  store: 'sqlite' | 'postgres';
  donePerS: number;
  lagP50Ms: number;
  lagP99Ms: number;
  pharosCores: number;
  postgresCores: number | null;
  peakRssMb: number;
  bytesPerCheck: number;
  rows: number;
}

const cpuOf = (pids: number[]) => pids.reduce((s, p) => s + (() => { try { return cpuSeconds(p); } catch { return 0; } })(), 0);

async function run(store: 'sqlite' | 'postgres', target: string): Promise<Row> {
  let pgCluster: TestPostgres | undefined;
  let p: BenchPharos | undefined;
  try {
    const env: Record<string, string> = {};
    if (store === 'postgres') {
      pgCluster = await startPostgres();
      env.PHAROS_DATABASE_URL = pgCluster.url;
    }
    p = await startBenchPharos(opt.pharos!, undefined, undefined, '', env);
    const bench = p;
    await forEachConcurrent(N, 8, async (i) => {
      const res = await bench.api('/v1/monitors', 'POST', { name: `bench ${i}`, url: `${target}/m/${i}`, check_frequency: FREQ_S });
      if (res.status !== 201) throw new Error(`create monitor ${i}: ${res.status} ${await res.text()}`);
    });
    await sleep(Math.max(WARMUP_S, FREQ_S + 10) * 1000);
    const scrape = () => bench.api('/metrics').then((r) => r.text());
    const first = await scrape();
    const pids = pgCluster ? pgCluster.pids() : [];
    const pg0 = cpuOf(pids);
    const win = new ProcessWindow(p.child.proc.pid!);
    await sleep(DURATION_S * 1000);
    const m = win.end();
    const pgCores = pgCluster ? (cpuOf(pids) - pg0) / m.wallS : null;
    const last = await scrape();
    await p.stop();
    let rows: number;
    let bytes: number;
    if (pgCluster) {
      const c = new pg.Client({ connectionString: pgCluster.url });
      await c.connect();
      // Raw results live in one table per hour (migration 16).
      const tables = (await c.query("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'check\\_results\\_h%'")).rows.map((r) => r.t as string);
      rows = 0;
      bytes = Number((await c.query("SELECT pg_total_relation_size('check_rollups_hourly') + pg_total_relation_size('check_contexts') AS b")).rows[0].b);
      for (const t of tables) {
        rows += Number((await c.query(`SELECT count(*) AS n FROM ${t}`)).rows[0].n);
        bytes += Number((await c.query(`SELECT pg_total_relation_size('${t}') AS b`)).rows[0].b);
      }
      await c.end();
    } else {
      const db = new Database(p.dbFile, { readonly: true });
      const tables = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name GLOB 'check_results_h[0-9]*'").all() as { name: string }[]).map((r) => r.name);
      rows = tables.reduce((n, t) => n + (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n, 0);
      bytes = (db.prepare("SELECT sum(pgsize) AS b FROM dbstat WHERE name GLOB 'check_results_h[0-9]*' OR name IN ('check_rollups_hourly', 'sqlite_autoindex_check_rollups_hourly_1', 'check_contexts', 'check_contexts_key')").get() as { b: number }).b;
      db.close();
    }
    return {
      store,
      donePerS: (metric(last, 'pharos_checks_total') - metric(first, 'pharos_checks_total')) / m.wallS,
      lagP50Ms: windowQuantile(buckets(first, 'pharos_scheduler_lag_hist_seconds'), buckets(last, 'pharos_scheduler_lag_hist_seconds'), 0.5) * 1000,
      lagP99Ms: windowQuantile(buckets(first, 'pharos_scheduler_lag_hist_seconds'), buckets(last, 'pharos_scheduler_lag_hist_seconds'), 0.99) * 1000,
      pharosCores: m.cpuCores,
      postgresCores: pgCores,
      peakRssMb: m.peakRss / 2 ** 20,
      bytesPerCheck: bytes / rows,
      rows,
    };
  } finally {
    await p?.cleanup();
    await pgCluster?.cleanup();
  }
}

const targetPort = await freePort();
const target = startChild(process.execPath, [join(ROOT, 'bench/target.ts'), String(targetPort)]);
await target.nextLine();
const rows: Row[] = [];
try {
  for (let r = 0; r < Number(opt.rounds); r++) {
    const order: Array<'sqlite' | 'postgres'> = r % 2 === 0 ? ['sqlite', 'postgres'] : ['postgres', 'sqlite'];
    for (const s of order) rows.push(await run(s, `http://127.0.0.1:${targetPort}`));
  }
} finally {
  await stop(target);
}
const f = (n: number | null, d = 1) => (n === null ? '–' : n.toFixed(d));
console.log(`\n${N} HTTP monitors every ${FREQ_S} s, ${DURATION_S} s window after ${WARMUP_S} s warm-up, Pharos ${opt.pharos}\n`);
console.log('| store | checks/s done | lag p50 ms | lag p99 ms | Pharos CPU (cores) | PostgreSQL CPU (cores) | Pharos peak RSS MB | bytes/check (results + rollups) |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.store} | ${f(r.donePerS)} | ${f(r.lagP50Ms)} | ${f(r.lagP99Ms)} | ${f(r.pharosCores, 2)} | ${f(r.postgresCores, 2)} | ${f(r.peakRssMb, 0)} | ${f(r.bytesPerCheck, 0)} (${r.rows} rows) |`);
