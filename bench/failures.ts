/**
 * Bench: N HTTP monitors (default 10,000) every 10 s, all going down at once — the flood guard,
 * 10,000 outage writes in a burst and the alert outbox under load. Whole process, measured from /proc.
 *
 *   node --import tsx bench/failures.ts [--monitors 10000] [--frequency 10] [--warmup 20] [--window 60]
 *                                       [--pharos dist|src]
 *
 * One Pharos, one target process (bench/target.ts) that also receives the webhook alerts. Every
 * monitor has an escalation policy alerting a webhook at once. Two rounds on the same database:
 * 1. flood guard on (the default): the target starts answering 500 to every check;
 * 2. flood guard off (restart with `alerting.flood_guard.enabled: false`), after every monitor is up again.
 * Per round, over `--window` seconds from the flip: seconds until every monitor is down (all outages
 * opened), scheduler lag p50/p99 over the window (the lag histogram), CPU, peak RSS (VmHWM), alerts
 * delivered / pending at the end, webhooks the target received, whether the flood guard engaged.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchArgs } from './args.ts';
import { ProcessWindow, sleep, startChild } from './proc.ts';
import { ROOT, forEachConcurrent, freePort, startBenchPharos, stop, type BenchPharos } from './pharos.ts';
import { buckets, metric, windowQuantile } from './prom.ts';

const { values: opt } = benchArgs({
  about: 'N HTTP monitors all going down at once: the flood guard, the burst of outage writes and the alert outbox under load (flood guard on, then off).',
  options: {
    monitors: { type: 'string', default: '10000', help: 'HTTP monitors, each with a webhook escalation' },
    frequency: { type: 'string', default: '10', help: 'their check frequency, seconds' },
    warmup: { type: 'string', default: '20', help: 'seconds before the target starts failing' },
    window: { type: 'string', default: '60', help: 'seconds measured from the flip' },
    pharos: { type: 'string', default: 'dist', help: 'dist (the single executable, rebuilt when stale) or src (tsx)' },
  },
});
const N = Number(opt.monitors);
const FREQ_S = Number(opt.frequency);
const WARMUP_S = Number(opt.warmup);
const WINDOW_S = Number(opt.window);

interface Round {
  what: string;
  allDownS: number | null;
  lagP50Ms: number;
  lagP99Ms: number;
  cpuCores: number;
  peakRssMb: number;
  floodGuard: boolean;
  alertsDelivered: number;
  alertsPending: number;
  hooksReceived: number;
}

const targetPort = await freePort();
const target = startChild(process.execPath, [join(ROOT, 'bench/target.ts'), String(targetPort)]);
await target.nextLine();
const targetUrl = `http://127.0.0.1:${targetPort}`;
const hooks = async () => {
  target.proc.kill('SIGUSR1');
  return (JSON.parse(await target.nextLine()) as { hooks: number }).hooks;
};
const config = (floodGuard: boolean) =>
  [
    'channels:',
    '  - name: hook',
    '    type: webhook',
    `    url: ${targetUrl}/hook`,
    'escalation_policies:',
    '  - uuid: ep_bench',
    '    name: Bench',
    '    steps:',
    '      - after_minutes: 0',
    '        channels: [hook]',
    'alerting:',
    '  flood_guard:',
    `    enabled: ${floodGuard}`,
  ].join('\n');

async function round(p: BenchPharos, what: string): Promise<Round> {
  const scrape = () => p.api('/metrics').then((r) => r.text());
  const first = await scrape();
  const lag0 = buckets(first, 'pharos_scheduler_lag_hist_seconds');
  const delivered0 = metric(first, 'pharos_alerts_total', 'result="delivered"');
  const hooks0 = await hooks();
  const win = new ProcessWindow(p.child.proc.pid!);
  const t0 = performance.now();
  target.proc.kill('SIGUSR2'); // every check fails from now on
  let allDownS: number | null = null;
  let floodGuard = false;
  while (performance.now() - t0 < WINDOW_S * 1000) {
    await sleep(1000);
    const text = await scrape();
    floodGuard ||= metric(text, 'pharos_flood_guard_active') === 1;
    if (allDownS === null && metric(text, 'pharos_monitors', 'status="down"') === N) allDownS = (performance.now() - t0) / 1000;
  }
  const m = win.end();
  const last = await scrape();
  target.proc.kill('SIGUSR2'); // healthy again
  return {
    what,
    allDownS,
    lagP50Ms: windowQuantile(lag0, buckets(last, 'pharos_scheduler_lag_hist_seconds'), 0.5) * 1000,
    lagP99Ms: windowQuantile(lag0, buckets(last, 'pharos_scheduler_lag_hist_seconds'), 0.99) * 1000,
    cpuCores: m.cpuCores,
    peakRssMb: m.peakRss / 2 ** 20,
    floodGuard,
    alertsDelivered: metric(last, 'pharos_alerts_total', 'result="delivered"') - delivered0,
    alertsPending: metric(last, 'pharos_alerts_pending'),
    hooksReceived: (await hooks()) - hooks0,
  };
}

const rounds: Round[] = [];
let p = await startBenchPharos(opt.pharos!, undefined, undefined, config(true));
try {
  const t0 = performance.now();
  await forEachConcurrent(N, 8, async (i) => {
    const res = await p.api('/v1/monitors', 'POST', { name: `bench ${i}`, url: `${targetUrl}/m/${i}`, monitor_type: 'status', check_frequency: FREQ_S, escalation_policy: 'ep_bench' });
    if (res.status !== 201) throw new Error(`create monitor ${i}: ${res.status} ${await res.text()}`);
  });
  console.log(`created ${N} monitors in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await sleep(WARMUP_S * 1000);
  rounds.push(await round(p, 'flood guard on (default)'));
  // Back to all up before the second round.
  for (let i = 0; i < 120; i++) {
    await sleep(1000);
    if (metric(await p.api('/metrics').then((r) => r.text()), 'pharos_monitors', 'status="up"') === N) break;
  }
  await p.stop();
  p = await startBenchPharos(opt.pharos!, undefined, p, config(false));
  await sleep(WARMUP_S * 1000);
  rounds.push(await round(p, 'flood guard off'));
} finally {
  await p.cleanup();
  await stop(target);
}

const f = (n: number | null, d = 1) => (n === null || Number.isNaN(n) ? '–' : n.toFixed(d));
const table = [
  '| round | all down after s | lag p50 ms | lag p99 ms | CPU (cores) | peak RSS MB | flood guard | alerts delivered | pending at end | webhooks received |',
  '|---|---:|---:|---:|---:|---:|---|---:|---:|---:|',
  ...rounds.map((r) => `| ${r.what} | ${f(r.allDownS)} | ${f(r.lagP50Ms)} | ${f(r.lagP99Ms)} | ${f(r.cpuCores, 2)} | ${f(r.peakRssMb, 0)} | ${r.floodGuard ? 'engaged' : 'no'} | ${r.alertsDelivered} | ${r.alertsPending} | ${r.hooksReceived} |`),
].join('\n');
console.log(`\n${N} HTTP monitors every ${FREQ_S} s, all failing at once; ${WINDOW_S} s window from the flip\n\n${table}`);
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, `bench/results/failures-${N}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(rounds, null, 2));
