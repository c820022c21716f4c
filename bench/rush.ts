/**
 * Bench (issue 21): a status page under a rush. Pharos with M HTTP monitors every 10 s (the
 * scheduler's load) and a page of S of them; then, in one run:
 * 1. single renders: the first GET of each of P identical pages (each a render) and the second (cached);
 * 2. quiet window (the baseline): pings to one healthcheck, one at a time, and the scheduler lag;
 * 3. the rush: autocannon with C connections on the page (Accept-Encoding: br, gzip) for D s, the
 *    same pings and lag measured during it.
 * Lag p99 comes from the histogram over each whole window; peak RSS from VmHWM.
 *
 *   node --import tsx bench/rush.ts [--monitors 1000] [--services 50] [--pages 40] [--connections 1000]
 *                                   [--duration 20] [--path /status/bench] [--pharos dist|src]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { ProcessWindow, quantile, sleep, startChild } from './proc.ts';
import { ROOT, forEachConcurrent, freePort, startBenchPharos, stop, type BenchPharos } from './pharos.ts';
import { histogram, peakRss, windowQuantile } from './origins-lib.ts';

const { values: opt } = parseArgs({
  options: {
    monitors: { type: 'string', default: '1000' },
    services: { type: 'string', default: '50' },
    pages: { type: 'string', default: '40' },
    connections: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '20' },
    path: { type: 'string', default: '/status/bench' },
    pharos: { type: 'string', default: 'dist' },
  },
});
const M = Number(opt.monitors);
const S = Number(opt.services);
const P = Number(opt.pages);
const C = Number(opt.connections);
const D = Number(opt.duration);

/** Times sequential GETs of `paths`, ms. */
async function timeGets(base: string, paths: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const path of paths) {
    const t = performance.now();
    const r = await fetch(base + path, { headers: { 'accept-encoding': 'br, gzip' } });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    out.push(performance.now() - t);
  }
  return out;
}

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

const targetPort = await freePort();
const target = startChild(process.execPath, [join(ROOT, 'bench/target.ts'), String(targetPort)]);
await target.nextLine();
const p = await startBenchPharos(opt.pharos!);
try {
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
  const pingUrl = `${p.url}/ping/${((await hc.json()) as { healthcheck: { uuid: string } }).healthcheck.uuid}`;
  await sleep(20_000); // every monitor checked at least once

  const pagePaths = Array.from({ length: P }, (_, i) => `/status/render${i}`);
  const renders = await timeGets(p.url, pagePaths);
  const cached = await timeGets(p.url, pagePaths);

  const quiet = await window(p, pingUrl, () => sleep(D * 1000));
  const rush = await window(p, pingUrl, () =>
    autocannon({ url: p.url + opt.path, connections: C, duration: D, headers: { 'accept-encoding': 'br, gzip' } }),
  );
  const r = rush.result as autocannon.Result;
  const rss = peakRss(p.child.proc.pid!);
  const f = (n: number, d = 1) => n.toFixed(d);
  console.log(`\n${M} monitors every 10 s; pages of ${S} services; ${C} connections on ${opt.path} for ${D} s\n`);
  console.log(`Single render (first GET of ${P} pages): p50 ${f(quantile(renders, 0.5))} ms, p99 ${f(quantile(renders, 0.99))} ms; cached GET: p50 ${f(quantile(cached, 0.5))} ms, p99 ${f(quantile(cached, 0.99))} ms\n`);
  console.log('| window | responses/s | response p50 ms | response p99 ms | non-2xx + errors | scheduler lag p99 ms (checks) | ping p50 ms | ping p99 ms (pings) | Pharos CPU (cores) |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  console.log(`| quiet (baseline) | – | – | – | – | ${f(quiet.lagP99)} (${quiet.lagN}) | ${f(quiet.pingP50)} | ${f(quiet.pingP99)} (${quiet.pings}) | ${f(quiet.cpu, 2)} |`);
  console.log(`| rush | ${f(r['2xx'] / r.duration, 0)} | ${f(r.latency.p50)} | ${f(r.latency.p99)} | ${r.non2xx + r.errors} | ${f(rush.lagP99)} (${rush.lagN}) | ${f(rush.pingP50)} | ${f(rush.pingP99)} (${rush.pings}) | ${f(rush.cpu, 2)} |`);
  console.log(`\nPeak RSS (VmHWM) of Pharos over the run: ${f(rss / 2 ** 20, 0)} MB; ${r.throughput.average ? f(r.throughput.average / 2 ** 20, 1) : '?'} MB/s sent`);
} finally {
  await p.cleanup();
  await stop(target);
}
