/**
 * Bench (issue 31 point 4): capacity of a cluster on one PostgreSQL — 1, 2 and 3 instances side by
 * side in one run, on the same PostgreSQL cluster (a fresh database per run), the same machine and the
 * same load: closed-loop pings spread evenly over every instance (autocannon in this process, as
 * bench/pings.ts drives one instance) while the leader checks HTTP monitors against a local target.
 *
 *   npm run bench:cluster -- [--instances 1,2,3] [--healthchecks 1000] [--connections 48] [--duration 20]
 *                            [--monitors 500] [--frequency 10] [--warmup 15] [--pharos dist|src] [--rounds 1]
 *
 * Per run: pings/s answered 200 (all instances together), 503s and other errors, deadlocks as
 * PostgreSQL counted them in the run's database (`pg_stat_database.deadlocks`: every "deadlock
 * detected" error, whoever got it), check results/s stored (rows of the results tables timed inside
 * the window; the schedule asks monitors ÷ frequency), CPU of the Pharos processes and of PostgreSQL
 * (cores, /proc), and whether every acknowledged ping was counted (sum of `pings_total` ≥ 200s).
 * Each instance pings the healthchecks in its own shuffled order (unrelated jobs behind a load
 * balancer). PostgreSQL is a real cluster in a temp dir (test/support/postgres.ts, fsync off as in
 * the tests). Printed as Markdown; see docs/operations.md "Faults, measured" and docs/PERFORMANCE.md.
 */
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { benchArgs } from './args.ts';
import autocannon from 'autocannon';
import pg from 'pg';
import { startPostgres, type TestPostgres } from '../test/support/postgres.ts';
import { cpuSeconds, ProcessWindow, sleep, startChild } from './proc.ts';
import { ROOT, forEachConcurrent, freePort, startBenchPharos, stop, type BenchPharos } from './pharos.ts';

const { values: opt } = benchArgs({
  about: 'Pings/s and check results/s on one PostgreSQL with 1, 2 and 3 Pharos instances side by side.',
  npm: 'bench:cluster',
  options: {
    instances: { type: 'string', default: '1,2,3', help: 'instance counts to run, in this order (each on a fresh database)' },
    healthchecks: { type: 'string', default: '1000', help: 'healthchecks pinged (GET /ping/<token>), each instance in its own shuffled order' },
    connections: { type: 'string', default: '48', help: 'autocannon connections in all, split evenly over the instances (closed loop)' },
    duration: { type: 'string', default: '20', help: 'seconds of load per run' },
    monitors: { type: 'string', default: '500', help: 'HTTP monitors the leader checks meanwhile (against a local target)' },
    frequency: { type: 'string', default: '10', help: 'their check frequency, seconds' },
    warmup: { type: 'string', default: '15', help: 'seconds between creating the monitors and the load' },
    pharos: { type: 'string', default: 'dist', help: "dist (the single executable, rebuilt when stale), src (tsx) or a binary's path" },
    rounds: { type: 'string', default: '1', help: 'repeat the whole series' },
    'per-instance': { type: 'boolean', help: '--connections per instance (the load grows with the cluster) instead of split over them' },
    statements: { type: 'boolean', help: "also print PostgreSQL's busiest statements of each run's window (pg_stat_statements)" },
  },
});
const COUNTS = opt.instances!.split(',').map(Number);
const H = Number(opt.healthchecks);
const CONNECTIONS = Number(opt.connections);
const DURATION_S = Number(opt.duration);
const MONITORS = Number(opt.monitors);
const FREQ_S = Number(opt.frequency);
const WARMUP_S = Number(opt.warmup);

interface Row {
  instances: number;
  pingsPerS: number;
  acknowledged: number;
  status503: number;
  otherErrors: number;
  deadlocks: number;
  resultsPerS: number;
  pharosCores: number;
  /** CPU of each instance, cores (the leader first). */
  perInstance: number[];
  postgresCores: number;
  /** CPU of this process (autocannon, the load generator), cores. */
  loadCores: number;
  /** Change messages (NOTIFY on the cluster channel) per second in the window, and the changes they carried. */
  messagesPerS: number;
  changesPerS: number;
  stored: string;
}

/** CPU seconds so far of each process of the cluster (backends that ended are missing). */
const cpuOf = (c: TestPostgres) => {
  const m = new Map<number, number>();
  for (const p of c.pids()) {
    try {
      m.set(p, cpuSeconds(p));
    } catch {
      // a backend that ended meanwhile
    }
  }
  return m;
};
/** CPU seconds used between two readings of {@link cpuOf}: backends started in between count from 0. */
const cpuBetween = (a: Map<number, number>, b: Map<number, number>) => [...b].reduce((s, [p, t]) => s + t - (a.get(p) ?? 0), 0);

const shuffled = (n: number) => {
  const a = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
};

/** Closed-loop GET /ping/<token> at one instance for DURATION_S: 2xx, 503 and other failures. */
function load(base: string, tokens: string[], connections: number): Promise<{ ok: number; s503: number; other: number; durationS: number }> {
  const order = shuffled(tokens.length);
  let i = 0;
  let s503 = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      { url: base, connections, duration: DURATION_S, requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/ping/${tokens[order[i++ % tokens.length]!]}` }) }] },
      (err, r) => (err ? reject(err) : resolve({ ok: r['2xx'], s503, other: r.errors + r.non2xx - s503, durationS: r.duration })),
    );
    instance.on('response', (_client, status) => {
      if (status === 503) s503++;
    });
  });
}

async function run(cluster: TestPostgres, k: number, round: number, target: string): Promise<Row> {
  const dbName = `bench_cluster_${round}_${k}`;
  const url = await cluster.createDatabase(dbName);
  const ps: BenchPharos[] = [];
  try {
    const config = 'storage:\n  pings_per_healthcheck: 100\n';
    ps.push(await startBenchPharos(opt.pharos!, undefined, undefined, config, { PHAROS_DATABASE_URL: url }));
    // The first instance leads (it took the lock alone); the others join as followers.
    ps.push(...(await Promise.all(Array.from({ length: k - 1 }, () => startBenchPharos(opt.pharos!, undefined, undefined, config, { PHAROS_DATABASE_URL: url })))));
    const first = ps[0]!;
    const tokens: string[] = new Array(H);
    await forEachConcurrent(H, 8, async (i) => {
      const res = await first.api('/v1/healthchecks', 'POST', { name: `job ${i}`, period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' });
      if (res.status !== 201) throw new Error(`create healthcheck ${i}: ${res.status} ${await res.text()}`);
      tokens[i] = ((await res.json()) as { healthcheck: { uuid: string } }).healthcheck.uuid;
    });
    await forEachConcurrent(MONITORS, 8, async (i) => {
      const res = await first.api('/v1/monitors', 'POST', { name: `m${i}`, url: `${target}/m/${i}`, check_frequency: FREQ_S, timeout: Math.min(FREQ_S, 10) });
      if (res.status !== 201) throw new Error(`create monitor ${i}: ${res.status} ${await res.text()}`);
    });
    await sleep(WARMUP_S * 1000);

    const c = new pg.Client({ connectionString: url });
    await c.connect();
    // Change messages between the instances (cluster/postgres.ts, channel pharos_cluster), counted in the window.
    let [messages, changes, counting] = [0, 0, false];
    c.on('notification', (n) => {
      if (!counting || n.channel !== 'pharos_cluster') return;
      messages++;
      changes += (JSON.parse(n.payload ?? '{}') as { changes?: unknown[] }).changes?.length ?? 0;
    });
    await c.query('LISTEN pharos_cluster');
    if (opt.statements) {
      await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await c.query('SELECT pg_stat_statements_reset()');
    }
    const deadlocks = async () => Number((await c.query('SELECT deadlocks FROM pg_stat_database WHERE datname = $1', [dbName])).rows[0].deadlocks);
    const resultsBetween = async (from: number, to: number) => {
      const hours = (await c.query("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'check\\_results\\_h%'")).rows.map((r) => r.t as string);
      let n = 0;
      for (const t of hours) {
        const base = Number(t.slice('check_results_h'.length)) * 3_600_000;
        n += Number((await c.query(`SELECT count(*) AS n FROM ${t} WHERE t + $1::bigint >= $2::bigint AND t + $1::bigint < $3::bigint`, [base, from, to])).rows[0].n);
      }
      return n;
    };
    // Backends the instances open during the load (pools grow) are counted from their start.
    const pg0 = cpuOf(cluster);
    const self0 = process.cpuUsage();
    const windows = ps.map((p) => new ProcessWindow(p.child.proc.pid!));
    const dead0 = await deadlocks();
    const t0 = Date.now();
    counting = true;
    const per = ps.map((_, j) => (opt['per-instance'] ? CONNECTIONS : Math.floor(CONNECTIONS / k) + (j < CONNECTIONS % k ? 1 : 0)));
    const results = await Promise.all(ps.map((p, j) => load(p.url, tokens, per[j]!)));
    const t1 = Date.now();
    counting = false;
    const ms = windows.map((w) => w.end());
    const pgCores = cpuBetween(pg0, cpuOf(cluster)) / ms[0]!.wallS;
    const self = process.cpuUsage(self0);
    const loadCores = (self.user + self.system) / 1e6 / ms[0]!.wallS;
    // The statistics of a backend reach pg_stat_database when its transaction ends (≤ 1 s later when busy).
    await sleep(1500);
    const dead = (await deadlocks()) - dead0;
    // Results of checks made inside the window, stored by now (group commit every 100 ms).
    const resultsPerS = (await resultsBetween(t0, t1)) / ((t1 - t0) / 1000);
    if (opt.statements) {
      const top = await c.query(
        `SELECT calls, round(total_exec_time::numeric, 0) AS ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS q FROM pg_stat_statements
          JOIN pg_database d ON d.oid = dbid WHERE d.datname = $1 ORDER BY calls DESC LIMIT 12`,
        [dbName],
      );
      console.log(`\n${k} instance(s): busiest statements in the window (calls, ms of execution, statement)`);
      for (const r of top.rows) console.log(`  ${String(r.calls).padStart(8)} ${String(r.ms).padStart(7)}  ${r.q}`);
    }
    for (const p of ps) await p.stop();
    const counted = Number((await c.query('SELECT coalesce(sum(pings_total), 0) AS n FROM healthchecks')).rows[0].n);
    await c.end();
    const ok = results.reduce((s, r) => s + r.ok, 0);
    return {
      instances: k,
      pingsPerS: results.reduce((s, r) => s + r.ok / r.durationS, 0),
      acknowledged: ok,
      status503: results.reduce((s, r) => s + r.s503, 0),
      otherErrors: results.reduce((s, r) => s + r.other, 0),
      deadlocks: dead,
      resultsPerS,
      pharosCores: ms.reduce((s, m) => s + m.cpuCores, 0),
      perInstance: ms.map((m) => m.cpuCores),
      postgresCores: pgCores,
      loadCores,
      messagesPerS: messages / ((t1 - t0) / 1000),
      changesPerS: changes / ((t1 - t0) / 1000),
      stored: counted >= ok ? `${counted} counted ≥ ${ok} acknowledged` : `PINGS MISSING: ${counted} counted < ${ok} acknowledged`,
    };
  } finally {
    for (const p of ps) await p.cleanup();
  }
}

const targetPort = await freePort();
const target = startChild(process.execPath, [join(ROOT, 'bench/target.ts'), String(targetPort)]);
await target.nextLine();
const cluster = await startPostgres('postgres');
if (opt.statements) {
  // pg_stat_statements must be preloaded: set it and restart the cluster once.
  const admin = cluster.admin();
  await admin.connect();
  await admin.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
  await admin.end();
  await cluster.stop();
  await cluster.start();
}
const rows: Row[] = [];
try {
  for (let round = 1; round <= Number(opt.rounds); round++) for (const k of COUNTS) rows.push(await run(cluster, k, round, `http://127.0.0.1:${targetPort}`));
} finally {
  await cluster.cleanup();
  await stop(target);
}
const f = (n: number, d = 0) => n.toFixed(d);
const one = rows.find((r) => r.instances === 1);
console.log(
  `\n${new Date().toISOString()}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}: ${H} healthchecks pinged closed-loop (GET /ping/<token>, ${CONNECTIONS} connections ${opt['per-instance'] ? 'per instance' : 'split over the instances'}, ${DURATION_S} s), ${MONITORS} HTTP monitors every ${FREQ_S} s (${f(MONITORS / FREQ_S)} results/s scheduled), Pharos ${opt.pharos}, PostgreSQL 15 (fsync off)\n`,
);
console.log('| instances | pings/s | × one instance | 503s | other errors | deadlocks | check results/s stored | Pharos CPU (cores, all; each) | PostgreSQL CPU (cores) | load generator CPU (cores) | change messages/s (changes/s) | acknowledged pings |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
for (const r of rows)
  console.log(`| ${r.instances} | ${f(r.pingsPerS)} | ${one ? f(r.pingsPerS / one.pingsPerS, 2) : '–'} | ${r.status503} | ${r.otherErrors} | ${r.deadlocks} | ${f(r.resultsPerS, 1)} | ${f(r.pharosCores, 2)} (${r.perInstance.map((x) => f(x, 2)).join(', ')}) | ${f(r.postgresCores, 2)} | ${f(r.loadCores, 2)} | ${f(r.messagesPerS)} (${f(r.changesPerS)}) | ${r.stored} |`);
