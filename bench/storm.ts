/**
 * Bench (issue 21): an outage storm. N HTTP monitors every F s on one target; once all are up the
 * target process stops (connections refused): how long until every monitor is down (outages opened
 * after its interval plus confirmation), how many flood notices reach the webhook channel (aim: one),
 * scheduler lag p99 (histogram over the window), CPU, peak RSS (VmHWM). Then the target comes back:
 * how long until every monitor is up again, and the lag during it.
 *
 *   node --import tsx bench/storm.ts [--monitors 10000] [--frequency 10] [--pharos dist|src|PATH] [--node-options '--cpu-prof']
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { benchArgs } from './args.ts';
import { ProcessWindow, sleep, startChild } from './proc.ts';
import { ROOT, forEachConcurrent, freePort, startBenchPharos, stop, type BenchPharos } from './pharos.ts';
import { histogram, metric, peakRss, windowQuantile } from './origins-lib.ts';

const { values: opt } = benchArgs({
  about: 'An outage storm: N HTTP monitors, then the target stops: time until all are down, flood notices, lag; then the target comes back.',
  options: {
    monitors: { type: 'string', default: '10000', help: 'HTTP monitors on one target' },
    frequency: { type: 'string', default: '10', help: 'their check frequency, seconds' },
    pharos: { type: 'string', default: 'dist', help: "dist, src or a binary's path" },
    'node-options': { type: 'string', help: "node options for the Pharos process, e.g. '--cpu-prof'" },
  },
});
const N = Number(opt.monitors);
const FREQ_S = Number(opt.frequency);
const LAG = 'pharos_scheduler_lag_hist_seconds';

// The webhook receiver: counts flood notices (and any other delivery).
const notices: string[] = [];
let deliveries = 0;
const hook = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    deliveries++;
    if (/lost connectivity|regained|recovered/i.test(body)) notices.push(JSON.parse(body).title ?? body.slice(0, 80));
    res.end('ok');
  });
});
await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;

/** Polls /metrics every 500 ms until `done(text)`; returns seconds waited (or Infinity after `maxS`). */
async function until(p: BenchPharos, done: (text: string) => boolean, maxS: number): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const text = await p.api('/metrics').then((r) => r.text());
    if (done(text)) return (performance.now() - t0) / 1000;
    if ((performance.now() - t0) / 1000 > maxS) return Infinity;
    await sleep(500);
  }
}

const port = await freePort();
const startTarget = async () => {
  const t = startChild(process.execPath, [join(ROOT, 'bench/target.ts'), String(port)]);
  await t.nextLine();
  return t;
};
let target = await startTarget();
const p = await startBenchPharos(opt.pharos!, opt['node-options'], undefined, `channels:\n  - name: hook\n    type: webhook\n    url: ${hookUrl}\n`);
try {
  await forEachConcurrent(N, 8, async (i) => {
    const res = await p.api('/v1/monitors', 'POST', { name: `storm ${i}`, url: `http://127.0.0.1:${port}/m/${i}`, check_frequency: FREQ_S });
    if (res.status !== 201) throw new Error(`create monitor ${i}: ${res.status} ${await res.text()}`);
  });
  const up = (t: string) => metric(t, 'pharos_monitors', 'status="up"');
  const down = (t: string) => metric(t, 'pharos_monitors', 'status="down"');
  const warm = await until(p, (t) => up(t) === N, 120);
  if (warm === Infinity) throw new Error('monitors never all up');
  await sleep((FREQ_S + 5) * 1000); // new monitors count as up before their first check: let every one be checked
  const pid = p.child.proc.pid!;

  // The storm.
  const h0 = histogram(await p.api('/metrics').then((r) => r.text()), LAG);
  const win = new ProcessWindow(pid);
  await stop(target);
  const allDown = await until(p, (t) => down(t) === N, 180);
  await sleep(5_000);
  const m1 = win.end();
  const t1 = await p.api('/metrics').then((r) => r.text());
  const stormLag = windowQuantile(h0, histogram(t1, LAG), 0.99);
  const rssStorm = peakRss(pid);
  const stormNotices = [...notices];

  // The recovery.
  const win2 = new ProcessWindow(pid);
  target = await startTarget();
  const allUp = await until(p, (t) => up(t) === N, 180);
  await sleep(5_000);
  const m2 = win2.end();
  const t2 = await p.api('/metrics').then((r) => r.text());
  const recLag = windowQuantile(histogram(t1, LAG), histogram(t2, LAG), 0.99);
  const rssAll = peakRss(pid);
  const f = (n: number, d = 1) => n.toFixed(d);
  console.log(`\n${N} monitors every ${FREQ_S} s on one target; the target stops, then comes back\n`);
  console.log('| phase | seconds until all ' + 'changed | scheduler lag p99 ms (checks) | CPU (cores) | peak RSS MB (VmHWM, so far) | flood notices |');
  console.log('|---|---:|---:|---:|---:|---|');
  console.log(`| storm: target stops → all ${N} down | ${f(allDown)} | ${f(stormLag.ms)} (${stormLag.count}) | ${f(m1.cpuCores, 2)} | ${f(rssStorm / 2 ** 20, 0)} | ${stormNotices.length}: ${stormNotices.join(' / ')} |`);
  console.log(`| recovery: target back → all ${N} up | ${f(allUp)} | ${f(recLag.ms)} (${recLag.count}) | ${f(m2.cpuCores, 2)} | ${f(rssAll / 2 ** 20, 0)} | ${notices.length - stormNotices.length} more: ${notices.slice(stormNotices.length).join(' / ')} |`);
  console.log(`\nwebhook deliveries in all: ${deliveries}; alerts held by the flood guard: ${metric(t2, 'pharos_alerts_held_total')}`);
} finally {
  await p.cleanup();
  await stop(target);
  hook.close();
}
