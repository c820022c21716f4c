/**
 * Bench (issue 21): a status page under a rush. Pharos with M HTTP monitors every 10 s (the
 * scheduler's load) and a page of S of them; then, in one run:
 * 1. single renders: the first GET of each of P identical pages (each a render) and the second (cached);
 *    `--rounds R` repeats it R times, each after the next minute (when every render expires). Besides
 *    the client's wall time, the CPU time of Pharos's main thread during each first GET
 *    (/proc/<pid>/task/<pid>/schedstat): the render's own cost, without the waits for a CPU that a
 *    shared machine adds to the wall time;
 * 2. quiet window (the baseline): pings to one healthcheck, one at a time, and the scheduler lag;
 * 3. the rush: autocannon with C connections on the page (Accept-Encoding: br, gzip) for D s, the
 *    same pings and lag measured during it (`--duration 0` skips 2 and 3).
 * Lag p99 comes from the histogram over each whole window; peak RSS from VmHWM.
 *
 * `--pharos a,b,…` compares builds in one run (e.g. `/tmp/base/pharos,dist`): every build runs its own
 * monitors and pages at the same time, the single renders alternate between builds page by page (so
 * the machine's load falls on each alike), and the page's HTML is compared between builds (CSP nonce
 * and "updated" time aside). The windows run one build at a time, the others stopped (SIGSTOP) meanwhile.
 *
 *   node --import tsx bench/rush.ts [--monitors 1000] [--services 50] [--pages 40] [--rounds 1] [--connections 1000]
 *                                   [--duration 20] [--path /status/bench] [--pharos dist|src|<binary>[,…]]
 *                                   [--pharos-node-options=--cpu-prof] [--verbose] [--save-page FILE]
 *   (--verbose: every timed GET's figures; --save-page: the first build's page HTML, e.g. to time compression)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './args.ts';
import autocannon from 'autocannon';
import { ProcessWindow, quantile, sleep, startChild } from './proc.ts';
import { ROOT, forEachConcurrent, freePort, startBenchPharos, stop, type BenchPharos } from './pharos.ts';
import { histogram, metric, peakRss, windowQuantile } from './origins-lib.ts';

const { values: opt } = benchArgs({
  about: 'A status page under a rush: single renders, then a quiet window and autocannon with C connections on the page while M monitors are checked.',
  options: {
    monitors: { type: 'string', default: '1000', help: 'HTTP monitors every 10 s meanwhile' },
    services: { type: 'string', default: '50', help: 'monitors on the page' },
    pages: { type: 'string', default: '40', help: 'identical pages rendered once each (single renders)' },
    rounds: { type: 'string', default: '1', help: 'single-render rounds, each after the next minute' },
    connections: { type: 'string', default: '1000', help: 'autocannon connections in the rush' },
    duration: { type: 'string', default: '20', help: 'seconds of each window (0: single renders only)' },
    path: { type: 'string', default: '/status/bench', help: "the page's path" },
    pharos: { type: 'string', default: 'dist', help: "dist, src or a binary's path; several comma-separated, compared in one run" },
    'pharos-node-options': { type: 'string', help: 'node options for the Pharos processes, e.g. --cpu-prof' },
    verbose: { type: 'boolean', help: "print every timed GET's figures" },
    'save-page': { type: 'string', help: "write the first build's page HTML to this file" },
  },
});
const M = Number(opt.monitors);
const S = Number(opt.services);
const P = Number(opt.pages);
const C = Number(opt.connections);
const D = Number(opt.duration);
const R = Number(opt.rounds);
const BUILDS = opt.pharos!.split(',');

/**
 * A process's main thread so far (`/proc/<pid>/task/<pid>/schedstat`, ns): time on a CPU, and time
 * runnable but waiting for a CPU (on the run queue), both ms.
 */
function mainThreadSched(pid: number): [cpuMs: number, runQueueMs: number] {
  const [cpu, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ');
  return [Number(cpu) / 1e6, Number(wait) / 1e6];
}

/** One kept-alive connection per Pharos for the timed GETs. */
const timedAgents = new WeakMap<BenchPharos, Agent>();

/**
 * One GET of `path` (Accept-Encoding: br, gzip): its wall time as the client sees it, and Pharos's
 * main thread meanwhile: CPU time (the render's own work plus whatever else the loop ran in that time:
 * a few checks) and time runnable but waiting for a CPU, ms.
 *
 * The client is node:http on one kept-alive connection, reading the (compressed) bytes without
 * decoding them: `fetch` plus brotli-decoding a 310 KB page cost the client itself p50 2.4 / p99
 * 13.7 ms against a static node:http server answering the same bytes (node:http, bytes only: p50
 * 0.9 / p99 2.7 ms; session 8), which the wall times here then counted as the render's.
 */
function timeGet(p: BenchPharos, path: string): Promise<[wallMs: number, cpuMs: number, runQueueMs: number]> {
  const pid = p.child.proc.pid!;
  let agent = timedAgents.get(p);
  if (!agent) timedAgents.set(p, (agent = new Agent({ keepAlive: true, maxSockets: 1 })));
  const [cpu, wait] = mainThreadSched(pid);
  const t = performance.now();
  return new Promise((resolve, reject) => {
    get(p.url + path, { agent, headers: { 'accept-encoding': 'br, gzip' } }, (res) => {
      res.on('data', () => undefined);
      res.on('error', reject);
      res.on('end', () => {
        const wall = performance.now() - t;
        if (res.statusCode !== 200) return reject(new Error(`${path}: ${res.statusCode}`));
        const [cpu1, wait1] = mainThreadSched(pid);
        resolve([wall, cpu1 - cpu, wait1 - wait]);
      });
    }).on('error', reject);
  });
}

/** The kinds of prom-client's default GC histogram (`pharos_nodejs_gc_duration_seconds`). */
const GC_KINDS = ['major', 'minor', 'incremental', 'weakcb'] as const;

/** GC time so far by kind, ms, from Pharos's /metrics. */
async function gcMs(p: BenchPharos): Promise<Map<string, number>> {
  const text = await p.api('/metrics').then((r) => r.text());
  return new Map(GC_KINDS.map((k) => [k, metric(text, 'pharos_nodejs_gc_duration_seconds_sum', `kind="${k}"`) * 1000]));
}
/** ", GC: major 12.3 ms" for the kinds that ran between two {@link gcMs} reads ('' when none). */
function diffGc(a: Map<string, number>, b: Map<string, number>): string {
  const parts = [...b].map(([k, v]) => [k, v - (a.get(k) ?? 0)] as const).filter(([, d]) => d > 0.05).map(([k, d]) => `${k} ${d.toFixed(1)} ms`);
  return parts.length ? `, GC meanwhile: ${parts.join(', ')}` : '';
}

/** One timed GET's figures (`--verbose`). */
const timed = (wall: number, cpu: number, wait: number) => `${wall.toFixed(1)} ms wall, main thread ${cpu.toFixed(1)} ms on a CPU, ${wait.toFixed(1)} ms waiting for one`;

/** Pings `url` one at a time until `until()` says stop; returns latencies, ms. */
async function pingLoop(url: string, stopAt: () => boolean): Promise<number[]> {
  const out: number[] = [];
  while (!stopAt()) {
    const t = performance.now();
    const r = await fetch(url);
    await r.arrayBuffer();
    out.push(performance.now() - t);
    await sleep(10);
  }
  return out;
}

const LAG = 'pharos_scheduler_lag_hist_seconds';

/** Lag p99 and pings during `during` (a promise that ends the window). */
async function window(p: BenchPharos, pingUrl: string, during: () => Promise<unknown>) {
  const scrape = () => p.api('/metrics').then((r) => r.text());
  const h0 = histogram(await scrape(), LAG);
  const win = new ProcessWindow(p.child.proc.pid!);
  let done = false;
  const pings = pingLoop(pingUrl, () => done);
  const result = await during();
  done = true;
  const lat = await pings;
  const m = win.end();
  const h1 = histogram(await scrape(), LAG);
  const lag = windowQuantile(h0, h1, 0.99);
  return { result, pingP50: quantile(lat, 0.5), pingP99: quantile(lat, 0.99), pings: lat.length, lagP99: lag.ms, lagN: lag.count, cpu: m.cpuCores };
}

/** Creates the monitors, the pages and the healthcheck of one build; returns the ping URL. */
async function populate(p: BenchPharos, targetPort: number): Promise<string> {
  const uuids: string[] = new Array(M);
  await forEachConcurrent(M, 8, async (i) => {
    const res = await p.api('/v1/monitors', 'POST', { name: `Service ${i}`, url: `http://127.0.0.1:${targetPort}/m/${i}`, check_frequency: 10 });
    if (res.status !== 201) throw new Error(`create monitor: ${res.status} ${await res.text()}`);
    uuids[i] = ((await res.json()) as { uuid: string }).uuid;
  });
  const sections = Array.from({ length: Math.ceil(S / 10) }, (_, s) => ({ name: `Section ${s}`, services: uuids.slice(s * 10, Math.min(S, s * 10 + 10)).map((u) => ({ monitor_uuid: u })) }));
  for (const sub of ['bench', ...Array.from({ length: P }, (_, i) => `render${i}`)]) {
    const res = await p.api('/v2/statuspages', 'POST', { name: `Bench ${sub}`, subdomain: sub, sections });
    if (res.status !== 201) throw new Error(`create page: ${res.status} ${await res.text()}`);
  }
  const hc = await p.api('/v1/healthchecks', 'POST', { name: 'job', period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' });
  return `${p.url}/ping/${((await hc.json()) as { healthcheck: { uuid: string } }).healthcheck.uuid}`;
}

/** A page's HTML without what differs per response or per build run: the CSP nonce and the "updated" time. */
const comparable = (html: string) => html.replace(/nonce="[^"]*"/g, 'nonce=""').replace(/<p class="updated">.*?<\/p>/s, '<p class="updated"></p>');

const targetPort = await freePort();
const target = startChild(process.execPath, [join(ROOT, 'bench/target.ts'), String(targetPort)]);
await target.nextLine();
const builds: Array<{ name: string; p: BenchPharos; pingUrl: string; renders: number[]; renderCpu: number[]; renderWait: number[]; cached: number[] }> = [];
try {
  for (const name of BUILDS) {
    const p = await startBenchPharos(name, opt['pharos-node-options']);
    builds.push({ name, p, pingUrl: '', renders: [], renderCpu: [], renderWait: [], cached: [] });
  }
  for (const b of builds) b.pingUrl = await populate(b.p, targetPort);
  await sleep(20_000); // every monitor checked at least once

  const pagePaths = Array.from({ length: P }, (_, i) => `/status/render${i}`);
  for (let round = 0; round < R; round++) {
    if (round > 0) await sleep(60_000 - (Date.now() % 60_000) + 500); // every render expired
    for (const path of pagePaths) {
      for (const b of builds) {
        const gc0 = opt.verbose ? await gcMs(b.p) : null;
        const [wall, cpu, wait] = await timeGet(b.p, path);
        const gc = gc0 ? diffGc(gc0, await gcMs(b.p)) : '';
        b.renders.push(wall);
        b.renderCpu.push(cpu);
        b.renderWait.push(wait);
        if (opt.verbose) console.log(`${b.name} ${path} round ${round + 1}: ${timed(wall, cpu, wait)}${gc}`);
      }
    }
    for (const path of pagePaths) {
      for (const b of builds) {
        const [wall, cpu, wait] = await timeGet(b.p, path);
        b.cached.push(wall);
        if (opt.verbose) console.log(`${b.name} ${path} round ${round + 1} cached: ${timed(wall, cpu, wait)}`);
      }
    }
  }
  const pages = await Promise.all(builds.map((b) => fetch(b.p.url + opt.path).then((r) => r.text())));
  if (opt['save-page']) writeFileSync(opt['save-page'], pages[0]!);
  const f = (n: number, d = 1) => n.toFixed(d);
  console.log(`\n${M} monitors every 10 s per build; pages of ${S} services; ${C} connections on ${opt.path} for ${D} s; load average ${loadavg().map((l) => f(l, 2)).join(' ')}\n`);
  console.log(`Single render (first GET of ${P} pages × ${R} round(s), builds alternating page by page):\n`);
  console.log('| build | render p50 ms | render p90 ms | render p99 ms | render max ms | main-thread CPU per render p50 / p99 ms | main thread waiting for a CPU p50 / p99 ms | cached GET p50 ms | cached GET p99 ms | page bytes | same HTML as the first build |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const [i, b] of builds.entries()) {
    console.log(`| ${b.name} | ${f(quantile(b.renders, 0.5))} | ${f(quantile(b.renders, 0.9))} | ${f(quantile(b.renders, 0.99))} | ${f(Math.max(...b.renders))} | ${f(quantile(b.renderCpu, 0.5))} / ${f(quantile(b.renderCpu, 0.99))} | ${f(quantile(b.renderWait, 0.5))} / ${f(quantile(b.renderWait, 0.99))} | ${f(quantile(b.cached, 0.5))} | ${f(quantile(b.cached, 0.99))} | ${Buffer.byteLength(pages[i]!)} | ${i === 0 ? '–' : comparable(pages[i]!) === comparable(pages[0]!) ? 'yes' : '**no**'} |`);
  }
  if (D > 0) {
    console.log(`\n| build | window | responses/s | response p50 ms | response p99 ms | non-2xx + errors | scheduler lag p99 ms (checks) | ping p50 ms | ping p99 ms (pings) | Pharos CPU (cores) | peak RSS MB |`);
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const b of builds) {
      for (const o of builds) if (o !== b) o.p.child.proc.kill('SIGSTOP');
      const quiet = await window(b.p, b.pingUrl, () => sleep(D * 1000));
      const rush = await window(b.p, b.pingUrl, () => autocannon({ url: b.p.url + opt.path, connections: C, duration: D, headers: { 'accept-encoding': 'br, gzip' } }));
      const r = rush.result as autocannon.Result;
      const rss = f(peakRss(b.p.child.proc.pid!) / 2 ** 20, 0);
      console.log(`| ${b.name} | quiet (baseline) | – | – | – | – | ${f(quiet.lagP99)} (${quiet.lagN}) | ${f(quiet.pingP50)} | ${f(quiet.pingP99)} (${quiet.pings}) | ${f(quiet.cpu, 2)} | |`);
      console.log(`| ${b.name} | rush | ${f(r['2xx'] / r.duration, 0)} | ${f(r.latency.p50)} | ${f(r.latency.p99)} | ${r.non2xx + r.errors} | ${f(rush.lagP99)} (${rush.lagN}) | ${f(rush.pingP50)} | ${f(rush.pingP99)} (${rush.pings}) | ${f(rush.cpu, 2)} | ${rss} |`);
      await b.p.stop(); // the next build's windows run without this one
      if (b === builds.at(-1)) break;
      for (const o of builds) if (o !== b) o.p.child.proc.kill('SIGCONT');
      await sleep(12_000); // the resumed builds catch up on their checks outside any window
    }
  }
} finally {
  for (const b of builds) {
    b.p.child.proc.kill('SIGCONT');
    await b.p.cleanup();
  }
  await stop(target);
}
