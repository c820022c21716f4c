/**
 * Bench: remote probes (issue #7), two parts, whole processes on loopback.
 *
 *   npm run bench:agents -- [--part ingest|latency|both] [--pharos dist|src]
 *                           [--monitors 2000] [--senders 4] [--batch 1000] [--duration 30]
 *                           [--latency-monitors 50] [--rounds 5]
 *
 * ingest: how many agent results/s one main stores. `--senders` simulated agents (each keeps a long
 *   poll open, as `pharos agent` does, so the main assigns them the monitors) push batches of
 *   `--batch` results for `--monitors` monitors as fast as the main acknowledges them. Side by side
 *   with a baseline: a bare node:http server that parses the same JSON and inserts the rows into
 *   SQLite in one transaction per batch (no rollups, no state machine, no idempotency). Reports
 *   results/s, batch latency p50/p99, server CPU and peak RSS, and (Pharos) that the rows stored
 *   equal the results acknowledged.
 * latency: from a failure seen to an outage opened. Three real `pharos agent` processes (paris,
 *   tokyo, sydney; source addresses 127.0.0.2–4) check `--latency-monitors` monitors every 10 s;
 *   the target flips to 503 for all, then back, `--rounds` times. Per outage: created_at −
 *   start_at (start = the first failing check's start). Side by side: the local probe alone
 *   (confirmation by 3 consecutive checks, 3 s apart, CONTRACT.md).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './args.ts';
import Database from 'better-sqlite3';
import { countResults } from './results-db.ts';
import { ProcessWindow, median, quantile, sleep, startChild, type Child } from './proc.ts';
import { ROOT, forEachConcurrent, freePort, startBenchPharos, stop, type BenchPharos } from './pharos.ts';

const { values: opt } = benchArgs({
  about: 'Remote probes (issue 7): results/s one main stores from simulated agents, and the time from a failure to an outage with three real `pharos agent` processes.',
  npm: 'bench:agents',
  options: {
    part: { type: 'string', default: 'both', help: 'ingest, latency or both' },
    pharos: { type: 'string', default: 'dist', help: 'dist (the single executable, rebuilt when stale) or src (tsx)' },
    monitors: { type: 'string', default: '2000', help: 'monitors the simulated agents report on (ingest)' },
    senders: { type: 'string', default: '4', help: 'simulated agents pushing batches at once (ingest)' },
    batch: { type: 'string', default: '1000', help: 'results per pushed batch (ingest)' },
    duration: { type: 'string', default: '30', help: 'seconds of pushing (ingest)' },
    'latency-monitors': { type: 'string', default: '50', help: 'monitors the three real agents check every 10 s (latency)' },
    rounds: { type: 'string', default: '5', help: 'down/up flips of the target (latency)' },
  },
});
const N = Number(opt.monitors);
const SENDERS = Number(opt.senders);
const BATCH = Number(opt.batch);
const DURATION_S = Number(opt.duration);
const LAT_N = Number(opt['latency-monitors']);
const ROUNDS = Number(opt.rounds);
const BIN = join(ROOT, 'dist/pharos');

/** A target on 127.0.0.1 whose status the bench flips. */
async function target(): Promise<{ url: string; status: number; close(): void }> {
  const t = { url: '', status: 200, close: () => server.close() };
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(t.status).end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return t;
}

const agentId = (i: number) => 'prb_bench' + String(i).padStart(17, '0');
const results = (uuids: string[], from: number, n: number, at: number) =>
  Array.from({ length: n }, (_, k) => ({ monitor: uuids[(from + k) % uuids.length]!, at: at + k, ok: true, latencyMs: 12, statusCode: 200, reason: null }));

interface IngestRow {
  what: string;
  resultsPerS: number;
  batchP50Ms: number;
  batchP99Ms: number;
  cpuCores: number;
  peakRssMb: number;
  acknowledged: number;
  stored: string;
}

/** Pushes batches from SENDERS workers for DURATION_S; returns acknowledged results and batch latencies. */
async function pushLoad(url: string, token: string, uuids: string[], pid: number, what: string): Promise<Omit<IngestRow, 'stored'>> {
  const latencies: number[] = [];
  let acknowledged = 0;
  const win = new ProcessWindow(pid);
  const endAt = performance.now() + DURATION_S * 1000;
  let t = Date.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async (_, s) => {
      let seq = 0;
      while (performance.now() < endAt) {
        const body = JSON.stringify({ agent: agentId(s), region: 'paris', batch: String(++seq), results: results(uuids, seq * BATCH, BATCH, (t += BATCH)) });
        const t0 = performance.now();
        const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
        if (!res.ok) throw new Error(`${what}: results answered ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        acknowledged += BATCH;
      }
    }),
  );
  const m = win.end();
  return { what, resultsPerS: acknowledged / m.wallS, batchP50Ms: median(latencies), batchP99Ms: quantile(latencies, 0.99), cpuCores: m.cpuCores, peakRssMb: m.peakRss / 2 ** 20, acknowledged };
}

async function ingestPharos(): Promise<IngestRow> {
  // One probe token for every simulated sender: lift the per-token agent cap (default 5) above them.
  const p = await startBenchPharos(opt.pharos!, undefined, undefined, `probe:\n  agents_per_token: ${Math.max(5, SENDERS)}\n`);
  try {
    const t = await target();
    const uuids: string[] = new Array(N);
    await forEachConcurrent(N, 8, async (i) => {
      const res = await p.api('/v1/monitors', 'POST', { name: `m${i}`, url: t.url, check_frequency: 3600, regions: ['paris'] });
      uuids[i] = ((await res.json()) as { uuid: string }).uuid;
    });
    const token = execFileSync(opt.pharos === 'src' ? process.execPath : BIN, [...(opt.pharos === 'src' ? ['--import', 'tsx', join(ROOT, 'src/main.ts')] : []), 'token', 'create', '--email', 'bench@localhost', '--scope', 'probe', '--region', 'paris,tokyo,sydney'], {
      env: { ...process.env, PHAROS_DATA_DIR: join(p.dir, 'data'), PHAROS_CONFIG: join(p.dir, 'config.yaml') },
    })
      .toString()
      .trim();
    // The simulated agents keep a poll open, so paris is theirs and the local probe stays idle.
    const polling = new AbortController();
    const polls = Array.from({ length: SENDERS }, async (_, s) => {
      let assignment: string | null = null;
      while (!polling.signal.aborted) {
        const res: Response | null = await fetch(`${p.url}/v1/probes/poll`, {
          method: 'POST',
          signal: polling.signal,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ agent: agentId(s), region: 'paris', name: `bench-${s}`, version: 'bench', assignment }),
        }).catch(() => null);
        if (!res) return;
        assignment = ((await res.json()) as { assignment: string }).assignment;
      }
    });
    await sleep(1000);
    const row = await pushLoad(`${p.url}/v1/probes/results`, token, uuids, p.child.proc.pid!, 'Pharos');
    polling.abort();
    await Promise.allSettled(polls);
    t.close();
    await p.stop();
    const db = new Database(p.dbFile, { readonly: true });
    const stored = countResults(db, "c.probe LIKE 'prb_bench%'");
    db.close();
    return { ...row, stored: stored === row.acknowledged ? `all ${stored}` : `${stored} of ${row.acknowledged}` };
  } finally {
    await p.cleanup();
  }
}

/** The baseline: node:http + JSON.parse + one SQLite insert transaction per batch, in a child process. */
const BASELINE = `
const http = require('node:http');
const Database = require(${JSON.stringify(join(ROOT, 'node_modules/better-sqlite3'))});
const db = new Database(process.env.DB);
db.pragma('journal_mode = WAL'); db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE IF NOT EXISTS r (id INTEGER PRIMARY KEY, monitor TEXT, at INTEGER, region TEXT, ok INTEGER, latency_ms INTEGER, status_code INTEGER, reason TEXT)');
const ins = db.prepare('INSERT INTO r (monitor, at, region, ok, latency_ms, status_code, reason) VALUES (?, ?, ?, ?, ?, ?, ?)');
const tx = db.transaction((b) => { for (const r of b.results) ins.run(r.monitor, r.at, b.region, r.ok ? 1 : 0, r.latencyMs, r.statusCode, r.reason); });
http.createServer((req, res) => { let s = ''; req.setEncoding('utf8'); req.on('data', (d) => (s += d)); req.on('end', () => { const b = JSON.parse(s); tx(b); res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ stored: b.results.length, duplicate: false })); }); })
  .listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
`;

async function ingestBaseline(): Promise<IngestRow> {
  const dir = mkdtempSync(join(tmpdir(), 'pharos-bench-agents-'));
  const port = await freePort();
  const child: Child = startChild(process.execPath, ['-e', BASELINE], { DB: join(dir, 'b.db'), PORT: String(port) });
  try {
    while (!(await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{"results":[]}' }).then(() => true, () => false))) await sleep(50);
    const uuids = Array.from({ length: N }, (_, i) => `mon_${i}`);
    return { ...(await pushLoad(`http://127.0.0.1:${port}/`, 'x', uuids, child.proc.pid!, 'baseline (http + JSON + SQLite insert)')), stored: 'n/a' };
  } finally {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

interface LatencyRow {
  what: string;
  outages: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Flips the target ROUNDS times; per outage, the time from the first failing check to the outage row. */
async function latency(withAgents: boolean): Promise<LatencyRow> {
  const p: BenchPharos = await startBenchPharos(opt.pharos!, undefined, undefined, 'probe:\n  region: london\n');
  const agents: Child[] = [];
  try {
    const t = await target();
    const regions = withAgents ? ['paris', 'tokyo', 'sydney'] : ['london'];
    if (withAgents) {
      const token = execFileSync(BIN, ['token', 'create', '--email', 'bench@localhost', '--scope', 'probe', '--region', 'paris,tokyo,sydney'], {
        env: { ...process.env, PHAROS_DATA_DIR: join(p.dir, 'data'), PHAROS_CONFIG: join(p.dir, 'config.yaml') },
      })
        .toString()
        .trim();
      regions.forEach((r, i) => agents.push(startChild(BIN, ['agent', '--server', p.url, '--region', r, '--source-address', `127.0.0.${i + 2}`], { PHAROS_AGENT_TOKEN: token })));
      for (;;) {
        const list = (await (await p.api('/v1/probes')).json()) as Array<{ id: string; status: string }>;
        if (list.filter((x) => x.id !== 'local' && x.status === 'online').length === 3) break;
        await sleep(200);
      }
    }
    await forEachConcurrent(LAT_N, 8, async (i) => {
      await p.api('/v1/monitors', 'POST', { name: `m${i}`, url: t.url, check_frequency: 10, regions });
    });
    const count = async (status: string) => ((await (await p.api('/v1/monitors')).json()) as Array<{ status: string }>).filter((m) => m.status === status).length;
    await sleep(12_000);
    for (let r = 0; r < ROUNDS; r++) {
      t.status = 503;
      while ((await count('down')) < LAT_N) await sleep(250);
      t.status = 200;
      while ((await count('up')) < LAT_N) await sleep(250);
      // Start the next failure at a different point of the 10 s rhythm.
      await sleep(3_700);
    }
    t.close();
  } finally {
    for (const a of agents) await stop(a);
    await p.stop();
  }
  const db = new Database(p.dbFile, { readonly: true });
  const gaps = (db.prepare('SELECT created_at - start_at AS ms FROM outages').all() as Array<{ ms: number }>).map((r) => r.ms);
  db.close();
  await p.cleanup();
  return {
    what: withAgents ? 'three agents (paris, tokyo, sydney), confirmations 2' : 'local probe only (3 checks, 3 s apart)',
    outages: gaps.length,
    p50Ms: median(gaps),
    p99Ms: quantile(gaps, 0.99),
    maxMs: Math.max(...gaps),
  };
}

const fmt = (n: number) => (Number.isFinite(n) ? (n >= 100 ? Math.round(n).toLocaleString('en') : n.toFixed(1)) : '–');
if (opt.part !== 'latency') {
  const rows = [await ingestPharos(), await ingestBaseline()];
  console.log(`\nIngest: ${N} monitors, ${SENDERS} senders, batches of ${BATCH}, ${DURATION_S} s\n`);
  console.log('| what | results/s | batch p50 ms | batch p99 ms | CPU cores | peak RSS MB | stored |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.what} | ${fmt(r.resultsPerS)} | ${fmt(r.batchP50Ms)} | ${fmt(r.batchP99Ms)} | ${r.cpuCores.toFixed(2)} | ${fmt(r.peakRssMb)} | ${r.stored} |`);
}
if (opt.part !== 'ingest') {
  const rows = [await latency(true), await latency(false)];
  console.log(`\nFailure seen → outage opened: ${LAT_N} monitors every 10 s, ${ROUNDS} rounds\n`);
  console.log('| what | outages | p50 ms | p99 ms | max ms |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.what} | ${r.outages} | ${fmt(r.p50Ms)} | ${fmt(r.p99Ms)} | ${fmt(r.maxMs)} |`);
}
