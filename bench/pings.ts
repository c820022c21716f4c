/**
 * Bench: ping ingestion. N healthchecks; autocannon (in this process) drives GET /ping/<token>,
 * cycling through the tokens, against Pharos and against a no-store baseline (bench/ping-baseline.ts).
 *
 *   npm run bench:pings -- [--healthchecks 10000] [--duration 30] [--connections 50] [--rate 0]
 *                          [--pharos dist|src|/path/to/binary[,…]] [--rounds 1] [--pharos-node-options=--flag]
 *                          [--proto main,rows,thread,journal,journal-nice]   (experiments, after the baseline:
 *                                 bench/ping-store-proto.ts; journal[-nice]: bench/ping-journal-proto.ts)
 *                          [--order sequential|random] [--pin] [--postgres]
 *
 * `--order sequential` (the default) sends the tokens in the order the healthchecks were created, so a
 * batch of pings touches neighbouring rows; `--order random` sends them in one shuffled order (the
 * same for every target of the run), as a fleet of unrelated jobs does: each ping of a batch then
 * touches its own database pages. `--pin` (Linux `taskset`) keeps the load generator on CPU 0 and the
 * measured server on CPU 1 during each load window: the server gets one core of its own, threads included.
 *
 * Each round runs the baseline, then every `--pharos` build in turn (comma-separated: e.g. a build of
 * main and the candidate, side by side in one run). Reports pings/s, latency p50/p99/p99.9 (ms, to
 * 0.01 ms: every 2xx response's time as autocannon measured it, kept in a µs histogram — autocannon's
 * own histogram keeps whole milliseconds), server CPU (cores, from /proc) and peak RSS, and for Pharos
 * whether every acknowledged ping (2xx) was stored: the sum of the healthchecks' ping counters and
 * the ping rows, read from the database after a clean stop. See docs/PERFORMANCE.md.
 *
 * `--postgres`: each Pharos run stores in a fresh real PostgreSQL 15 cluster in a temp dir
 * (test/support/postgres.ts, the same as bench/postgres.ts) instead of SQLite; the stored counts are
 * read from it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './args.ts';
import { createHistogram } from 'node:perf_hooks';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import pg from 'pg';
import { startPostgres, type TestPostgres } from '../test/support/postgres.ts';
import { ProcessWindow, startChild } from './proc.ts';
import { ROOT, forEachConcurrent, freePort, startBenchPharos, stop } from './pharos.ts';

const { values: opt } = benchArgs({
  about: 'Ping ingestion: autocannon drives GET /ping/<token> over N healthchecks, against the no-store baseline (bench/ping-baseline.ts) and each Pharos build.',
  npm: 'bench:pings',
  options: {
    healthchecks: { type: 'string', default: '10000', help: 'healthchecks pinged, cycling through their tokens' },
    duration: { type: 'string', default: '30', help: 'seconds of load per target' },
    connections: { type: 'string', default: '50', help: 'autocannon connections' },
    rate: { type: 'string', default: '0', help: 'requests/s offered (0: closed loop, as fast as answered)' },
    'pharos-node-options': { type: 'string', help: 'node options for the Pharos process' },
    pharos: { type: 'string', default: 'dist', help: "dist, src or a binary's path; several comma-separated, run in turn" },
    rounds: { type: 'string', default: '1', help: 'times the whole series runs' },
    proto: { type: 'string', default: '', help: 'experiments after the baseline: main,rows,thread,journal,journal-nice (comma list)' },
    order: { type: 'string', default: 'sequential', help: 'sequential (creation order) or random (one shuffled order)' },
    pin: { type: 'boolean', help: 'keep the load generator on CPU 0 and the server on CPU 1 (taskset)' },
    postgres: { type: 'boolean', help: 'store in a fresh PostgreSQL cluster instead of SQLite' },
  },
});
// --pin: the load generator (this process, autocannon in it) on CPU 0 and the measured server (every
// thread) on CPU 1, so neither takes the other's core: the server's own threads (checkpoints, a
// journal's fold) then share its one core instead of taking CPU from the load generator.
const pinTo = (pid: number, cpu: number) => void execFileSync('taskset', ['-a', '-cp', String(cpu), String(pid)], { stdio: 'ignore' });
if (opt.pin) pinTo(process.pid, 0);
const N = Number(opt.healthchecks);
/** Ping rows kept per healthcheck (config `storage.pings_per_healthcheck`, default). */
const KEEP = 100;
const DURATION_S = Number(opt.duration);
const CONNECTIONS = Number(opt.connections);
/** Requests per second over all connections (autocannon `overallRate`); 0 = as fast as the server answers. */
const RATE = Number(opt.rate);
if (opt.order !== 'sequential' && opt.order !== 'random') throw new Error('--order: sequential or random');
/** The order in which token indexes are pinged: creation order, or one shuffle shared by every target. */
const ORDER = Array.from({ length: N }, (_, i) => i);
if (opt.order === 'random') {
  for (let i = N - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [ORDER[i], ORDER[j]] = [ORDER[j]!, ORDER[i]!];
  }
}

interface Row {
  what: string;
  pingsPerS: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  cpuCores: number;
  peakRssMb: number;
  acknowledged: number;
  errors: number;
  stored?: string;
}

/** Drives `base` with autocannon for DURATION_S, token ORDER[requests % N], while measuring `pid`. */
async function load(what: string, base: string, tokens: string[], pid: number): Promise<Row> {
  if (opt.pin) pinTo(pid, 1);
  let i = 0;
  const win = new ProcessWindow(pid);
  const micros = createHistogram();
  const r = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: base,
        connections: CONNECTIONS,
        duration: DURATION_S,
        ...(RATE > 0 ? { overallRate: RATE } : {}),
        requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/ping/${tokens[ORDER[i++ % tokens.length]!]}` }) }],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    // Same samples as autocannon's latency (2xx only, its responseTime in ms), at µs resolution.
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) micros.record(Math.max(1, Math.round(ms * 1000)));
    });
  });
  const m = win.end();
  return {
    what,
    pingsPerS: r['2xx'] / r.duration,
    p50Ms: micros.percentile(50) / 1000,
    p99Ms: micros.percentile(99) / 1000,
    p999Ms: micros.percentile(99.9) / 1000,
    cpuCores: m.cpuCores,
    peakRssMb: m.peakRss / 2 ** 20,
    acknowledged: r['2xx'],
    errors: r.errors + r.non2xx,
  };
}

/** The healthchecks' ping counters summed and the ping rows counted, from PostgreSQL. */
async function pgCounts(url: string): Promise<{ counted: number; rows: number }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const counted = Number((await c.query('SELECT coalesce(sum(pings_total), 0) AS n FROM healthchecks')).rows[0].n);
    const rows = Number((await c.query('SELECT count(*) AS n FROM pings')).rows[0].n);
    return { counted, rows };
  } finally {
    await c.end();
  }
}

async function runPharos(build: string): Promise<Row> {
  const pgCluster: TestPostgres | undefined = opt.postgres ? await startPostgres() : undefined;
  const p = await startBenchPharos(build, opt['pharos-node-options'], undefined, '', pgCluster ? { PHAROS_DATABASE_URL: pgCluster.url } : {});
  try {
    const tokens: string[] = new Array(N);
    await forEachConcurrent(N, 8, async (i) => {
      const res = await p.api('/v1/healthchecks', 'POST', { name: `job ${i}`, period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' });
      if (res.status !== 201) throw new Error(`create healthcheck ${i}: ${res.status} ${await res.text()}`);
      tokens[i] = ((await res.json()) as { healthcheck: { uuid: string } }).healthcheck.uuid;
    });
    const row = await load(`pharos (${build})`, p.url, tokens, p.child.proc.pid!);
    await p.stop();
    let counted: number;
    let rows: number;
    if (pgCluster) ({ counted, rows } = await pgCounts(pgCluster.url));
    else {
      const db = new Database(p.dbFile, { readonly: true });
      counted = (db.prepare('SELECT sum(pings_total) AS n FROM healthchecks').get() as { n: number }).n;
      rows = (db.prepare('SELECT count(*) AS n FROM pings').get() as { n: number }).n;
      db.close();
    }
    row.what += opt['pharos-node-options'] ? ` ${opt['pharos-node-options']}` : '';
    row.what += pgCluster ? ' on PostgreSQL' : '';
    // Each healthcheck keeps its newest `storage.pings_per_healthcheck` (100) rows: a row per
    // acknowledged ping up to that, per healthcheck (the counters count them all).
    const kept = Math.min(rows, N * KEEP);
    row.stored = `${counted} counted, ${rows} rows (${counted >= row.acknowledged && kept >= Math.min(row.acknowledged, N * KEEP) ? 'every acknowledged ping stored' : 'PINGS MISSING'})`;
    return row;
  } finally {
    await p.cleanup();
    await pgCluster?.cleanup();
  }
}

/** The experiments `--proto` names: the script, its arguments after `<port> <tokensFile>`, and its row's label. */
const PROTOS: Record<string, { script: string; args: string[]; what: string }> = {
  main: { script: 'bench/ping-store-proto.ts', args: ['main'], what: "experiment: node:http + Pharos's ping SQL on the event loop" },
  rows: { script: 'bench/ping-store-proto.ts', args: ['rows'], what: "experiment: node:http + Pharos's ping SQL without the counter UPDATE, on the event loop" },
  thread: { script: 'bench/ping-store-proto.ts', args: ['thread'], what: "experiment: node:http + Pharos's ping SQL on a worker thread" },
  journal: { script: 'bench/ping-journal-proto.ts', args: ['0'], what: 'experiment: node:http + an append-only ping journal, folded by a thread' },
  'journal-nice': { script: 'bench/ping-journal-proto.ts', args: ['19'], what: 'experiment: node:http + an append-only ping journal, folded by a thread at nice 19' },
};
for (const proto of opt.proto!.split(',').filter(Boolean)) if (!PROTOS[proto]) throw new Error(`--proto: one or more of ${Object.keys(PROTOS).join(', ')}`);

/**
 * The no-store baseline, or with `proto` one of {@link PROTOS}: the same server storing each ping
 * with Pharos's SQL on the event loop (`main`, `rows`) or on a worker thread (`thread`), or in an
 * append-only journal folded by a thread (`journal`, `journal-nice`; bench/ping-journal-proto.ts).
 */
async function runBaseline(proto?: string): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'pharos-bench-'));
  const tokens = Array.from({ length: N }, (_, i) => `tok_baseline${String(i).padStart(10, '0')}`);
  writeFileSync(join(dir, 'tokens'), tokens.join('\n'));
  const port = await freePort();
  const p = proto ? PROTOS[proto]! : undefined;
  const b = p
    ? startChild(process.execPath, ['--import', 'tsx', join(ROOT, p.script), String(port), join(dir, 'tokens'), ...p.args])
    : startChild(process.execPath, [join(ROOT, 'bench/ping-baseline.ts'), String(port), join(dir, 'tokens')]);
  await b.nextLine();
  try {
    return await load(p?.what ?? 'baseline (node:http, no store)', `http://127.0.0.1:${port}`, tokens, b.proc.pid!);
  } finally {
    await stop(b);
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows: Row[] = [];
/** Per round, the baseline's row and every other row of that round. */
const rounds: Array<{ baseline: Row; others: Row[] }> = [];
for (let round = 1; round <= Number(opt.rounds); round++) {
  const first = rows.length;
  rows.push(await runBaseline());
  for (const proto of opt.proto!.split(',').filter(Boolean)) rows.push(await runBaseline(proto));
  for (const build of opt.pharos!.split(',')) rows.push(await runPharos(build));
  rounds.push({ baseline: rows[first]!, others: rows.slice(first + 1) });
}
const f = (n: number, d = 1) => n.toFixed(d);
const table = [
  '| run | pings/s | p50 ms | p99 ms | p99.9 ms | server CPU (cores) | peak RSS MB | acknowledged | errors | stored |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ...rows.map((r) => `| ${r.what} | ${f(r.pingsPerS, 0)} | ${f(r.p50Ms, 2)} | ${f(r.p99Ms, 2)} | ${f(r.p999Ms, 2)} | ${f(r.cpuCores, 2)} | ${f(r.peakRssMb, 0)} | ${r.acknowledged} | ${r.errors} | ${r.stored ?? '–'} |`),
].join('\n');
// The aim compares p99 with the baseline's in the same run; between rounds the baseline's own p99
// moves by a quarter or more on a shared 2-core machine, so each row is divided by its own round's
// baseline and the ratios' median is reported.
const middle = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const ratios = new Map<string, number[]>();
for (const r of rounds) for (const o of r.others) ratios.set(o.what, [...(ratios.get(o.what) ?? []), o.p99Ms / r.baseline.p99Ms]);
const ratioLines = [...ratios].map(([what, rs]) => `- ${what}: ${rs.map((x) => `${f(x, 2)}×`).join(', ')}${rs.length > 1 ? `; median ${f(middle(rs), 2)}×` : ''}`);
console.log(`\n${new Date().toISOString()}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}: ${N} healthchecks, GET /ping/<token> cycling through them (${opt.order} order), ${CONNECTIONS} connections, ${RATE > 0 ? `${RATE} req/s offered` : 'closed loop (as fast as answered)'}, ${DURATION_S} s each${opt.pin ? ', load generator pinned to CPU 0 and each server to CPU 1' : ''}\n\n${table}\n\np99 ÷ the same round's baseline p99:\n${ratioLines.join('\n')}`);
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, `bench/results/pings-${N}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(rows, null, 2));
