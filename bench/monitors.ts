/**
 * Bench: N HTTP monitors at a fixed frequency against a local target, Pharos side by side with the
 * baseline (bench/baseline.ts: bare timers + undici, no store). Whole processes, measured from /proc.
 *
 *   npm run bench:monitors -- --monitors 10000 [--frequency 10] [--duration 180] [--warmup 30]
 *                             [--pharos dist|src] [--only pharos|baseline] [--pharos-node-options '--flag']
 *                             [--scheme http|https|http,https|https,http] [--distinct]
 *
 * `--scheme https` checks an HTTPS target (bench/target-tls.ts) whose certificates come from a local
 * CA made for the run (test/support/certs.ts; Pharos trusts it through NODE_EXTRA_CA_CERTS), one per
 * 250 addresses; `http,https` runs both, in that order, each against its own target, for the HTTPS vs
 * HTTP comparison of issue 38 (run `https,http` too: the machine is shared). `--distinct` puts monitor
 * i on its own origin (127.2.x.y, as bench/origins.ts does); the undici baseline runs only for one
 * plain-HTTP origin. For every scheme the fresh-connection floor (bench/fresh-floor.ts: Node's own
 * http/https, a new connection per check, TLS sessions resumed) runs first, so the HTTPS/HTTP ratio of
 * Node itself stands beside Pharos's. HTTPS rows say how many of the window's handshakes the target
 * saw resumed.
 *
 * `--pharos` may name several builds, comma-separated, each optionally with environment for its
 * process after `+` (e.g. `/tmp/base/pharos,dist,dist+MALLOC_ARENA_MAX=2`): they run one after the
 * other against the same target, for a side-by-side comparison in one run.
 *
 * Reports per run: checks/s due and done, schedule lag p50/p99 (ms between due time and probe start;
 * Pharos: from `pharos_scheduler_lag_hist_seconds` over the whole window, baseline: every check of
 * the window), CPU in cores, peak RSS (MB, `VmHWM`: the process's peak since it started), and for
 * Pharos the DB bytes per stored check. Results are printed as
 * a Markdown table and written to bench/results/ (not committed). See docs/PERFORMANCE.md.
 */
import { mkdirSync, writeFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { benchArgs } from './args.ts';
import Database from 'better-sqlite3';
import { countResults, resultBytes } from './results-db.ts';
import { ProcessWindow, fdSampler, quantile, sleep, startChild } from './proc.ts';
import { buckets, metric, windowQuantile } from './prom.ts';
import { ROOT, forEachConcurrent, startBenchPharos, stop, type BenchPharos } from './pharos.ts';
import { startCheckTarget, type CheckTarget } from './check-target.ts';
import { originAddress } from './origins-lib.ts';

const { values: opt } = benchArgs({
  about: 'N HTTP monitors at a fixed frequency against a local target, Pharos side by side with the bare timers + undici baseline (bench/baseline.ts).',
  npm: 'bench:monitors',
  options: {
    monitors: { type: 'string', default: '1000', help: 'HTTP monitors' },
    frequency: { type: 'string', default: '10', help: 'their check frequency, seconds' },
    duration: { type: 'string', default: '180', help: 'seconds measured' },
    warmup: { type: 'string', default: '30', help: 'seconds before the window' },
    pharos: { type: 'string', default: 'dist', help: "dist, src or a binary's path; several comma-separated, each optionally +ENV=value, run in turn" },
    only: { type: 'string', help: 'pharos or baseline: run only that side (baseline: the undici baseline and the fresh-connection floor)' },
    'pharos-node-options': { type: 'string', help: "node options for the Pharos process, e.g. '--cpu-prof'" },
    scheme: { type: 'string', default: 'http', help: 'http, https, or both comma-separated in the order to run them (each against its own target)' },
    distinct: { type: 'boolean', default: false, help: 'each monitor on its own origin (127.2.x.y); only the fresh-connection floor runs beside Pharos' },
  },
});
const N = Number(opt.monitors);
const FREQ_S = Number(opt.frequency);
const DURATION_S = Number(opt.duration);
const WARMUP_S = Number(opt.warmup);
const NODE = process.execPath;
const SCHEMES = opt.scheme!.split(',') as Array<'http' | 'https'>;
if (SCHEMES.some((x) => x !== 'http' && x !== 'https')) throw new Error(`--scheme: http or https, comma-separated (got ${opt.scheme})`);

/** One measured run. */
interface Row {
  what: string;
  monitors: number;
  duePerS: number;
  donePerS: number;
  lagP50Ms: number;
  lagP99Ms: number;
  cpuCores: number;
  peakRssMb: number;
  dbBytesPerCheck?: number;
  /** CPU per check done, ms. */
  cpuMsPerCheck?: number;
  /** Peak open descriptors (1 s samples). */
  peakFds?: number;
  notes?: string;
}



async function runBaseline(target: string): Promise<Row> {
  return runFloor('baseline (timers + undici)', [join(ROOT, 'bench/baseline.ts'), String(N), String(FREQ_S), target], {});
}

/**
 * The fresh-connection floor (bench/fresh-floor.ts) against `target`: Node's own http/https, a new
 * connection per check, TLS sessions resumed per origin — what Pharos's checks cost with nothing of
 * Pharos, for the HTTPS/HTTP ratio of Node itself in the same run.
 */
async function runFreshFloor(target: CheckTarget, scheme: string): Promise<Row> {
  const u0 = opt.distinct ? target.url(0).replace(originAddress(0), '{addr}') : target.url(0);
  const template = u0.replace(/\/m\/0$/, '/m/{i}');
  return runFloor(`floor ${scheme}${opt.distinct ? ' distinct' : ''} (timers + node:${scheme}, new connection)`, [join(ROOT, 'bench/fresh-floor.ts'), String(N), String(FREQ_S), template], target.env);
}

/** Runs one floor process (`args` after node) for the warm-up and the window; its own counts and lag samples. */
async function runFloor(what: string, args: string[], env: Record<string, string>): Promise<Row> {
  const b = startChild(NODE, args, env);
  await b.nextLine();
  await sleep(WARMUP_S * 1000);
  b.proc.kill('SIGUSR2');
  const done0 = JSON.parse(await b.nextLine()).done as number;
  const win = new ProcessWindow(b.proc.pid!);
  await sleep(DURATION_S * 1000);
  const m = win.end();
  b.proc.kill('SIGTERM');
  const final = JSON.parse(await b.nextLine()) as { done: number; failed?: number; lagMs: number[]; resumed?: number; full?: number };
  const donePerS = (final.done - done0) / m.wallS;
  return {
    what,
    monitors: N,
    duePerS: N / FREQ_S,
    donePerS,
    cpuMsPerCheck: (m.cpuCores * 1000) / donePerS,
    lagP50Ms: quantile(final.lagMs, 0.5),
    lagP99Ms: quantile(final.lagMs, 0.99),
    cpuCores: m.cpuCores,
    peakRssMb: m.peakRss / 2 ** 20,
    notes: final.failed === undefined ? undefined : `${final.failed} failed${final.full || final.resumed ? `; TLS handshakes since start: ${final.full} full, ${final.resumed} resumed` : ''}`,
  };
}

async function createMonitors(p: BenchPharos, target: CheckTarget): Promise<void> {
  await forEachConcurrent(N, 8, async (i) => {
    const res = await p.api('/v1/monitors', 'POST', { name: `bench ${i}`, url: target.url(i), monitor_type: 'status', check_frequency: FREQ_S });
    if (res.status !== 201) throw new Error(`create monitor ${i}: ${res.status} ${await res.text()}`);
  });
}

async function runPharos(target: CheckTarget, scheme: string, variant: string): Promise<Row> {
  const [how, ...envs] = variant.split('+');
  const env = { ...target.env, ...Object.fromEntries(envs.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)])) };
  const p = await startBenchPharos(how!, opt['pharos-node-options'], undefined, '', env);
  try {
    const t0 = performance.now();
    await createMonitors(p, target);
    const createS = (performance.now() - t0) / 1000;
    await sleep(Math.max(WARMUP_S, FREQ_S + 10) * 1000);
    const scrape = () => p.api('/metrics').then((r) => r.text());
    const first = await scrape();
    const checks0 = metric(first, 'pharos_checks_total');
    const lag0 = buckets(first, 'pharos_scheduler_lag_hist_seconds');
    const hs0 = await target.handshakes?.();
    const win = new ProcessWindow(p.child.proc.pid!);
    const fds = fdSampler(p.child.proc.pid!);
    await sleep(DURATION_S * 1000);
    const m = win.end();
    const peakFds = fds.peak();
    const hs1 = await target.handshakes?.();
    const last = await scrape();
    const checks1 = metric(last, 'pharos_checks_total');
    const lag1 = buckets(last, 'pharos_scheduler_lag_hist_seconds');
    const heapMb = (name: string) => (metric(last, name) / 2 ** 20).toFixed(0);
    await p.stop();
    const db = new Database(p.dbFile, { readonly: true });
    const rows = countResults(db);
    const tableBytes = resultBytes(db);
    db.close();
    const fileBytes = statSync(p.dbFile).size;
    const donePerS = (checks1 - checks0) / m.wallS;
    const tls = hs0 && hs1 ? `; TLS handshakes in the window: ${hs1.full - hs0.full} full, ${hs1.resumed - hs0.resumed} resumed` : '';
    return {
      what: `pharos ${scheme}${opt.distinct ? ' distinct' : ''} (${variant}${opt['pharos-node-options'] ? ` ${opt['pharos-node-options']}` : ''})`,
      monitors: N,
      duePerS: N / FREQ_S,
      donePerS,
      cpuMsPerCheck: (m.cpuCores * 1000) / donePerS,
      peakFds,
      lagP50Ms: windowQuantile(lag0, lag1, 0.5) * 1000,
      lagP99Ms: windowQuantile(lag0, lag1, 0.99) * 1000,
      cpuCores: m.cpuCores,
      peakRssMb: m.peakRss / 2 ** 20,
      dbBytesPerCheck: tableBytes / rows,
      notes: `${tls.slice(2)}${tls ? '; ' : ''}V8 heap used ${heapMb('pharos_nodejs_heap_size_used_bytes')} MB of ${heapMb('pharos_nodejs_heap_size_total_bytes')} MB, external ${heapMb('pharos_nodejs_external_memory_bytes')} MB; created ${N} monitors in ${createS.toFixed(1)} s; ${rows} results, file ${(fileBytes / 2 ** 20).toFixed(1)} MB (${(fileBytes / rows).toFixed(0)} B/check incl. monitors)`,
    };
  } finally {
    await p.cleanup();
  }
}

function table(rows: Row[]): string {
  const f = (n: number | undefined, d = 1) => (n === undefined ? '–' : n.toFixed(d));
  return [
    '| run | monitors | checks/s due | checks/s done | lag p50 ms | lag p99 ms | CPU (cores) | CPU ms/check | peak RSS MB | peak fds | DB B/check |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.what} | ${r.monitors} | ${f(r.duePerS)} | ${f(r.donePerS)} | ${f(r.lagP50Ms)} | ${f(r.lagP99Ms)} | ${f(r.cpuCores, 2)} | ${f(r.cpuMsPerCheck, 2)} | ${f(r.peakRssMb, 0)} | ${f(r.peakFds, 0)} | ${f(r.dbBytesPerCheck, 0)} |`),
    ...rows.filter((r) => r.notes).map((r) => `\n${r.what}: ${r.notes}`),
  ].join('\n');
}

const rows: Row[] = [];
for (const scheme of SCHEMES) {
  const target = await startCheckTarget(scheme, N, Boolean(opt.distinct), NODE);
  try {
    // The undici keep-alive baseline knows one plain-HTTP origin (bench/origins.ts has the
    // distinct-origin one); the fresh-connection floor runs for every scheme and origin layout.
    if (opt.only !== 'pharos' && scheme === 'http' && !opt.distinct) rows.push(await runBaseline(target.url(0).replace(/\/m\/0$/, '')));
    if (opt.only !== 'pharos') rows.push(await runFreshFloor(target, scheme));
    if (opt.only !== 'baseline') for (const v of opt.pharos!.split(',')) rows.push(await runPharos(target, scheme, v));
  } finally {
    await target.stop();
  }
}
const out = table(rows);
console.log(`\n${N} ${SCHEMES.join(' then ').toUpperCase()} monitors every ${FREQ_S} s${opt.distinct ? ' on distinct origins' : ''}, ${DURATION_S} s window after ${WARMUP_S} s warm-up\n\n${out}`);
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, `bench/results/monitors-${N}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(rows, null, 2));
