/**
 * Bench (issue 21): N HTTP monitors on N distinct origins (addresses of 127.0.0.0/8 on one port,
 * bench/target-many.ts), side by side in one run with the baseline (bare timers + undici keep-alive,
 * one socket kept per origin: what Pharos did before), Pharos as is, and Pharos under `ulimit -n`.
 *
 *   node --import tsx bench/origins.ts [--monitors 10000] [--frequency 10] [--duration 60] [--warmup 20]
 *                                      [--nofile 1024] [--pharos dist|src] [--only baseline|pharos]
 *                                      [--pharos-node-options '--cpu-prof --cpu-prof-dir=/tmp/prof']
 *
 * `--pharos` may name several builds, comma-separated (e.g. `/tmp/base/pharos,dist`): each runs in
 * turn against the same target, for a side-by-side comparison in one run. `--nofile 0` skips the
 * runs under a descriptor limit.
 *
 * Per run: checks/s due and done, checks reported down, lag p99 (Pharos: from the histogram over the
 * whole window; baseline: every check), CPU in cores, peak RSS (VmHWM), open file descriptors (peak
 * of 1 s samples), monitors with at least one stored result, EMFILE/ENFILE met (retried).
 */
import { join } from 'node:path';
import { benchArgs } from './args.ts';
import Database from 'better-sqlite3';
import { ProcessWindow, fdSampler, quantile, sleep, startChild } from './proc.ts';
import { ROOT, forEachConcurrent, freePort, startBenchPharos, stop } from './pharos.ts';
import { histogram, metric, originAddress, peakRss, windowQuantile } from './origins-lib.ts';

const { values: opt } = benchArgs({
  about: 'N HTTP monitors on N distinct origins (addresses of 127.0.0.0/8): the keep-alive baseline, Pharos as is, and Pharos under `ulimit -n`.',
  options: {
    monitors: { type: 'string', default: '10000', help: 'HTTP monitors, one origin each' },
    frequency: { type: 'string', default: '10', help: 'their check frequency, seconds' },
    duration: { type: 'string', default: '60', help: 'seconds measured' },
    warmup: { type: 'string', default: '20', help: 'seconds before the window' },
    nofile: { type: 'string', default: '1024', help: 'descriptor limit of the extra run under ulimit -n (0: no such run)' },
    pharos: { type: 'string', default: 'dist', help: "dist, src or a binary's path; several comma-separated, run in turn" },
    only: { type: 'string', help: 'baseline or pharos: run only that side' },
    'pharos-node-options': { type: 'string', help: "node options for the Pharos process, e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof'" },
  },
});
const N = Number(opt.monitors);
const FREQ_S = Number(opt.frequency);
const DURATION_S = Number(opt.duration);
const WARMUP_S = Number(opt.warmup);

interface Row {
  what: string;
  due: number;
  done: number;
  down: number;
  lagP99Ms: number;
  cpu: number;
  rssMb: number;
  fds: number;
  checked?: number;
  emfile?: number;
}

async function runBaseline(port: number): Promise<Row> {
  const b = startChild(process.execPath, [join(ROOT, 'bench/baseline.ts'), String(N), String(FREQ_S), `origins:${port}`]);
  await b.nextLine();
  await sleep(WARMUP_S * 1000);
  b.proc.kill('SIGUSR2');
  const done0 = JSON.parse(await b.nextLine()).done as number;
  const win = new ProcessWindow(b.proc.pid!);
  const fds = fdSampler(b.proc.pid!);
  await sleep(DURATION_S * 1000);
  const m = win.end();
  const rss = peakRss(b.proc.pid!);
  const fdPeak = fds.peak();
  b.proc.kill('SIGTERM');
  const final = JSON.parse(await b.nextLine()) as { done: number; lagMs: number[] };
  return { what: 'baseline (timers + undici keep-alive)', due: N / FREQ_S, done: (final.done - done0) / m.wallS, down: NaN, lagP99Ms: quantile(final.lagMs, 0.99), cpu: m.cpuCores, rssMb: rss / 2 ** 20, fds: fdPeak };
}

async function runPharos(port: number, build: string, nofile?: number): Promise<Row> {
  const p = await startBenchPharos(build, opt['pharos-node-options'], undefined, '', {}, nofile);
  try {
    await forEachConcurrent(N, 8, async (i) => {
      const res = await p.api('/v1/monitors', 'POST', { name: `origin ${i}`, url: `http://${originAddress(i)}:${port}/m/${i}`, check_frequency: FREQ_S });
      if (res.status !== 201) throw new Error(`create monitor ${i}: ${res.status} ${await res.text()}`);
    });
    await sleep(Math.max(WARMUP_S, FREQ_S + 5) * 1000);
    const scrape = () => p.api('/metrics').then((r) => r.text());
    const t0 = await scrape();
    const win = new ProcessWindow(p.child.proc.pid!);
    const fds = fdSampler(p.child.proc.pid!);
    await sleep(DURATION_S * 1000);
    const m = win.end();
    const fdPeak = fds.peak();
    const t1 = await scrape();
    const rss = peakRss(p.child.proc.pid!);
    await p.stop();
    const db = new Database(p.dbFile, { readonly: true });
    const checked = (db.prepare('SELECT count(DISTINCT monitor_id) AS n FROM check_rollups_hourly').get() as { n: number }).n;
    db.close();
    const d = (name: string, label?: string) => metric(t1, name, label) - metric(t0, name, label);
    return {
      what: `Pharos${opt.pharos!.includes(',') ? ` (${build})` : ''}${nofile ? `, ulimit -n ${nofile}` : ''}`,
      due: N / FREQ_S,
      done: d('pharos_checks_total') / m.wallS,
      down: d('pharos_checks_total', 'result="down"'),
      lagP99Ms: windowQuantile(histogram(t0, 'pharos_scheduler_lag_hist_seconds'), histogram(t1, 'pharos_scheduler_lag_hist_seconds'), 0.99).ms,
      cpu: m.cpuCores,
      rssMb: rss / 2 ** 20,
      fds: fdPeak,
      checked,
      emfile: metric(t1, 'pharos_checks_descriptor_exhausted_total'),
    };
  } finally {
    await p.cleanup();
  }
}

const port = await freePort();
const target = startChild(process.execPath, [join(ROOT, 'bench/target-many.ts'), String(port), String(N)]);
await target.nextLine();
const rows: Row[] = [];
try {
  if (opt.only !== 'pharos') rows.push(await runBaseline(port));
  if (opt.only !== 'baseline') {
    for (const build of opt.pharos!.split(',')) {
      rows.push(await runPharos(port, build));
      if (Number(opt.nofile) > 0) rows.push(await runPharos(port, build, Number(opt.nofile)));
    }
  }
} finally {
  await stop(target);
}
const f = (n: number | undefined, d = 1) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(d));
console.log(`\n${N} HTTP monitors every ${FREQ_S} s on ${N} distinct origins, ${DURATION_S} s window after ${WARMUP_S} s warm-up\n`);
console.log('| run | checks/s due | checks/s done | checks down | lag p99 ms | CPU (cores) | peak RSS MB | peak fds | monitors checked | EMFILE retried |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.what} | ${f(r.due)} | ${f(r.done)} | ${f(r.down, 0)} | ${f(r.lagP99Ms)} | ${f(r.cpu, 2)} | ${f(r.rssMb, 0)} | ${r.fds} | ${r.checked ?? '–'} | ${r.emfile ?? '–'} |`);
