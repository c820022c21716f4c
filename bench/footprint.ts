/**
 * Bench (issue 38 point 1): Pharos's memory beside the floor (bench/footprint-floor.mjs: Node +
 * better-sqlite3 + a hono server, doing the same checks with one INSERT each) in one run, in both
 * orders (floor then Pharos, then Pharos then floor), for three cases against issue 38's aims:
 *
 *   idle       `pharos serve` on SQLite with no monitors                       aim < 80 MB
 *   1,000      1,000 HTTP monitors @10 s on one local target                   aim < 120 MB
 *   10,000     10,000 HTTP monitors @10 s on 10,000 distinct origins           aim < 220 MB
 *
 *   node --import tsx bench/footprint.ts [--cases idle,1000,10000] [--pharos dist|src|<binary>]
 *                                        [--settle 10] [--warmup 15] [--window 30]
 *
 * Per process: RSS at the end of the window (`VmRSS`) and its peak since start (`VmHWM`, the kernel's:
 * for Pharos it includes creating the monitors through the API; the peak once they are created is a
 * column of its own), from /proc, all threads. Idle: the
 * window starts `--settle` s after /healthz first answers. Monitors: created through the API, then
 * `--warmup` s (at least one period), then the window. Prints a Markdown table; raw rows go to
 * bench/results/footprint-<time>.json (not committed).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './args.ts';
import { ProcessWindow, peakRssBytes, rssBytes, sleep, startChild, type Child } from './proc.ts';
import { ROOT, forEachConcurrent, freePort, startBenchPharos, stop } from './pharos.ts';
import { originAddress } from './origins-lib.ts';

const { values: opt } = benchArgs({
  about: "Pharos's RSS beside the floor (Node + better-sqlite3 + hono doing the same checks), both orders in one run: idle, 1,000 monitors, 10,000 monitors on 10,000 origins (issue 38's aims).",
  options: {
    cases: { type: 'string', default: 'idle,1000,10000', help: 'comma-separated: idle, 1000 (one target), 10000 (distinct origins); any number N: N monitors (N ≥ 5000 on distinct origins)' },
    pharos: { type: 'string', default: 'dist', help: "dist, src or a binary's path" },
    settle: { type: 'string', default: '10', help: 'idle: seconds after the first /healthz answer before reading' },
    warmup: { type: 'string', default: '15', help: 'monitors: seconds after creating them before the window (at least one period)' },
    window: { type: 'string', default: '30', help: 'monitors: seconds measured' },
    frequency: { type: 'string', default: '10', help: 'check frequency, seconds' },
  },
});
const FREQ_S = Number(opt.frequency);
/** Issue 38's aims, MB of RSS, by case. */
const AIMS: Record<string, number> = { idle: 80, '1000': 120, '10000': 220 };

interface Row {
  case: string;
  order: number;
  what: 'floor' | 'Pharos';
  rssMb: number;
  peakMb: number;
  cpuCores?: number;
  /** Results the floor stored / checks Pharos counted in the window (a sanity check that it worked). */
  checks?: number;
  /** Pharos: its peak RSS (VmHWM) right after the monitors were created through the API, before the warm-up. */
  createdPeakMb?: number;
}

const mb = (b: number) => b / 2 ** 20;

/** Waits for `url` to answer 200. */
async function healthy(url: string, child: Child): Promise<void> {
  for (;;) {
    if (child.proc.exitCode !== null) throw new Error(`exited: ${child.stderr()}`);
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await sleep(50);
  }
}

/** Where monitors' checks go for n monitors: one target, or distinct origins from 5,000 up. */
const distinct = (n: number) => n >= 5000;

async function runFloor(name: string, order: number, n: number, targetPort: number): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'pharos-floor-'));
  const port = await freePort();
  const args = [join(ROOT, 'bench/footprint-floor.mjs'), String(port), join(dir, 'floor.db')];
  if (n > 0) args.push(String(n), String(FREQ_S), distinct(n) ? `origins:${targetPort}` : `http://127.0.0.1:${targetPort}`);
  const child = startChild(process.execPath, args);
  try {
    await child.nextLine();
    await healthy(`http://127.0.0.1:${port}/healthz`, child);
    const pid = child.proc.pid!;
    if (n === 0) {
      await sleep(Number(opt.settle) * 1000);
      return { case: name, order, what: 'floor', rssMb: mb(rssBytes(pid)), peakMb: mb(peakRssBytes(pid)) };
    }
    await sleep(Number(opt.warmup) * 1000);
    const count = async () => ((await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { results: number }).results;
    const c0 = await count();
    const win = new ProcessWindow(pid);
    await sleep(Number(opt.window) * 1000);
    const m = win.end();
    return { case: name, order, what: 'floor', rssMb: mb(m.rss), peakMb: mb(m.peakRss), cpuCores: m.cpuCores, checks: (await count()) - c0 };
  } finally {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runPharos(name: string, order: number, n: number, targetPort: number): Promise<Row> {
  const p = await startBenchPharos(opt.pharos!);
  try {
    const pid = p.child.proc.pid!;
    if (n === 0) {
      await sleep(Number(opt.settle) * 1000);
      return { case: name, order, what: 'Pharos', rssMb: mb(rssBytes(pid)), peakMb: mb(peakRssBytes(pid)) };
    }
    await forEachConcurrent(n, 8, async (i) => {
      const url = distinct(n) ? `http://${originAddress(i)}:${targetPort}/m/${i}` : `http://127.0.0.1:${targetPort}/m/${i}`;
      const res = await p.api('/v1/monitors', 'POST', { name: `m${i}`, url, check_frequency: FREQ_S });
      if (res.status !== 201) throw new Error(`create monitor ${i}: ${res.status} ${await res.text()}`);
    });
    const createdPeakMb = mb(peakRssBytes(pid));
    await sleep(Math.max(Number(opt.warmup), FREQ_S + 2) * 1000);
    const checks = async () => {
      const text = await (await p.api('/metrics')).text();
      return [...text.matchAll(/^pharos_checks_total(?:\{[^}]*\})? (\S+)$/gm)].reduce((s, m) => s + Number(m[1]), 0);
    };
    const c0 = await checks();
    const win = new ProcessWindow(pid);
    await sleep(Number(opt.window) * 1000);
    const m = win.end();
    return { case: name, order, what: 'Pharos', rssMb: mb(m.rss), peakMb: mb(m.peakRss), cpuCores: m.cpuCores, checks: (await checks()) - c0, createdPeakMb };
  } finally {
    await p.cleanup();
  }
}

const rows: Row[] = [];
for (const name of opt.cases!.split(',').map((s) => s.trim()).filter(Boolean)) {
  const n = name === 'idle' ? 0 : Number(name);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--cases: ${name} is neither idle nor a number of monitors`);
  const targetPort = await freePort();
  const target = n === 0 ? null : distinct(n)
    ? startChild(process.execPath, [join(ROOT, 'bench/target-many.ts'), String(targetPort), String(n)])
    : startChild(process.execPath, [join(ROOT, 'bench/target.ts'), String(targetPort)]);
  if (target) await target.nextLine();
  try {
    rows.push(await runFloor(name, 1, n, targetPort));
    rows.push(await runPharos(name, 1, n, targetPort));
    rows.push(await runPharos(name, 2, n, targetPort));
    rows.push(await runFloor(name, 2, n, targetPort));
  } finally {
    if (target) await stop(target);
  }
}

const f = (x: number | undefined, d = 0) => (x === undefined ? '–' : x.toFixed(d));
console.log(`\nPharos (${opt.pharos}) beside the floor (Node + better-sqlite3 + hono), both orders; monitors every ${FREQ_S} s, ${opt.window} s window after ${opt.warmup} s\n`);
console.log('| case | order | process | RSS MB | peak RSS MB (VmHWM) | peak once created MB | CPU (cores) | checks in window | aim | reached? |');
console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|---|');
for (const r of rows) {
  const aim = AIMS[r.case];
  const reached = r.what === 'Pharos' && aim !== undefined ? (r.peakMb < aim ? 'yes' : 'no') : '';
  console.log(`| ${r.case === 'idle' ? 'idle' : `${r.case} monitors${distinct(Number(r.case)) ? ', distinct origins' : ''}`} | ${r.order} | ${r.what} | ${f(r.rssMb)} | ${f(r.peakMb)} | ${f(r.createdPeakMb)} | ${f(r.cpuCores, 2)} | ${f(r.checks)} | ${aim ? `< ${aim}` : ''} | ${reached} |`);
}
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, `bench/results/footprint-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ options: opt, rows }, null, 2));
