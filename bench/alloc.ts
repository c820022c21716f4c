/**
 * Bench helper (issue 21, memory): where a running Pharos allocates. Starts Pharos in this process
 * (sources, real clock) with N HTTP monitors every F s against bench/target.ts, lets it run W s,
 * then samples allocations for D s with V8's sampling heap profiler **including objects already
 * collected by minor and major GCs** (so it shows garbage per check, not only what survives), and
 * prints the top allocation sites by bytes, the allocated bytes per check, and the live heap per
 * monitor after a full GC.
 *
 *   node --expose-gc --max-semi-space-size=2 --import tsx bench/alloc.ts [--monitors 10000] [--warmup 20] [--duration 20]
 *
 * ALLOC_PROFILE=file.json also writes the raw sampling profile (to follow a site's stacks).
 */
import { Session } from 'node:inspector/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './args.ts';
import { parseConfig } from '../src/config/load.ts';
import { silentLogger } from '../src/lib/logger.ts';
import { startPharos } from '../src/pharos.ts';
import { sleep, startChild } from './proc.ts';
import { ROOT, freePort } from './pharos.ts';

const { values: opt } = benchArgs({
  about: "Where a running Pharos allocates: N HTTP monitors in this process, V8's sampling heap profiler (collected objects included) for a window; run with --expose-gc --max-semi-space-size=2.",
  options: {
    monitors: { type: 'string', default: '10000', help: 'HTTP monitors against bench/target.ts' },
    frequency: { type: 'string', default: '10', help: 'their check frequency, seconds' },
    warmup: { type: 'string', default: '20', help: 'seconds before sampling starts' },
    duration: { type: 'string', default: '20', help: 'seconds of sampling' },
  },
});
const N = Number(opt.monitors);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const port = await freePort();
const target = startChild(process.execPath, [join(ROOT, 'bench/target.ts'), String(port)]);
await target.nextLine();
const dir = mkdtempSync(join(tmpdir(), 'pharos-alloc-'));
const config = parseConfig({ listen: '127.0.0.1:0', data_dir: dir, admin_token: 'phr_bench' + 'x'.repeat(38), log_level: 'warn' });
const p = await startPharos({ config, logger: silentLogger });
gc();
const heap0 = process.memoryUsage().heapUsed;
for (let i = 0; i < N; i++) await p.core.monitors.create({ name: `m${i}`, url: `http://127.0.0.1:${port}/m/${i}`, check_frequency: Number(opt.frequency) } as never, { type: 'system', id: 'cli', name: 'bench' });
await sleep(Number(opt.warmup) * 1000);
gc();
const perMonitor = (process.memoryUsage().heapUsed - heap0) / N;

const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
await session.post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
const metricsBefore = await (await fetch(`${p.url}/metrics`, { headers: { authorization: 'Bearer phr_bench' + 'x'.repeat(38) } })).text();
await sleep(Number(opt.duration) * 1000);
const metricsAfter = await (await fetch(`${p.url}/metrics`, { headers: { authorization: 'Bearer phr_bench' + 'x'.repeat(38) } })).text();
const { profile } = await session.post('HeapProfiler.stopSampling');
if (process.env.ALLOC_PROFILE) (await import('node:fs')).writeFileSync(process.env.ALLOC_PROFILE, JSON.stringify(profile));
/** Checks done so far: the sum of `pharos_checks_total` over its labels. */
const checksDone = (t: string) => [...t.matchAll(/^pharos_checks_total(?:\{[^}]*\})? (\S+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
const done = checksDone(metricsAfter) - checksDone(metricsBefore);

type Node = { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: Node[] };
const bySite = new Map<string, number>();
const byModule = new Map<string, number>();
let total = 0;
const walk = (n: Node, stack: string[]) => {
  const where = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/perf\//, '')}:${n.callFrame.lineNumber + 1}`;
  const s = [...stack, where];
  if (n.selfSize > 0) {
    total += n.selfSize;
    bySite.set(where, (bySite.get(where) ?? 0) + n.selfSize);
    // attribute to the nearest frame from our own code, and to the package
    const own = [...s].reverse().find((f) => f.includes(' src/')) ?? '(no src frame)';
    byModule.set(own, (byModule.get(own) ?? 0) + n.selfSize);
  }
  for (const c of n.children) walk(c, s);
};
walk(profile.head as unknown as Node, []);
const mb = (b: number) => (b / 2 ** 20).toFixed(1).padStart(7);
console.log(`${N} monitors; live heap per monitor after a full GC: ${perMonitor.toFixed(0)} B; checks in the window: ${done}; allocated ${mb(total)} MB = ${(total / Math.max(done, 1) / 1024).toFixed(1)} KiB per check`);
console.log('--- top allocation sites (self)');
for (const [k, v] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(mb(v), k);
console.log('--- by nearest src/ frame');
for (const [k, v] of [...byModule].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(mb(v), k);
await p.close();
target.proc.kill();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
