/**
 * `npm test` and `npm run test:postgres`: runs the given test files (globs) with node:test in two
 * pools side by side (run as `node test/support/run-tests.ts GLOB…`; Node 24 strips the types).
 *
 * - the main pool: every file but those below, two at a time (the machine's 2 cores);
 * - the real-time pool: the files listed in {@link REAL_TIME}, two at a time, at a higher CPU
 *   priority (nice -5, inherited by the servers and databases its tests start; as root, as CI
 *   runs; otherwise at normal priority, with a note).
 *   They spend most of their minutes waiting on the real clock (real processes, real timeouts:
 *   a 30 s freeze, a 70 s healthcheck deadline) and need little CPU; in the main pool they held a
 *   slot each while a core idled. At the higher priority, their processes get the CPU they ask for
 *   at once although the main pool keeps both cores busy, so their real-time bounds hold as before
 *   (the main pool is not lowered instead: on a machine shared with other work it would starve).
 *
 * The main pool's output streams; the real-time pool's is held until the main pool ends, then
 * streams. Exit code: 0 when both pools pass. At the end, the slowest files of each pool with their
 * durations (node:test's per-file summary), to see where the time goes. Every process of the run
 * shares one V8 code cache (NODE_COMPILE_CACHE in a temp dir, unless set).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { globSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Files that mostly wait on the real clock. A file skipped under the current driver (`ONCE_IN_…`)
 * costs a second wherever it is, so one list serves both runs.
 */
export const REAL_TIME: readonly string[] = [
  'test/api/agents.test.ts',
  'test/api/cluster-relay.test.ts',
  'test/api/db-outage.test.ts',
  'test/api/descriptors.test.ts',
  'test/api/event-loop-postgres.test.ts',
  'test/api/failover-state.test.ts',
  'test/api/failover.test.ts',
  'test/api/faults-database.test.ts',
  'test/api/faults-process.test.ts',
  'test/api/healthcheck-realtime.test.ts',
  'test/api/lease-freeze.test.ts',
  'test/api/pings-frozen-postgres.test.ts',
  'test/api/pings-postgres-instances.test.ts',
  'test/api/postgres-outage.test.ts',
  'test/api/restart.test.ts',
];

/** Files run at once in each pool. */
const CONCURRENCY = 2;
/** Niceness of the real-time pool (the main pool keeps 0). */
const REAL_TIME_NICENESS = -5;
/** Slowest files listed per pool at the end. */
const SLOWEST = 12;

interface Pool {
  name: string;
  files: string[];
  child: ChildProcess;
  durations: string;
  exit: Promise<number>;
  started: number;
  ended?: number;
}

const DURATIONS_REPORTER = new URL('./durations-reporter.ts', import.meta.url).pathname;

function startPool(name: string, files: string[], out: (chunk: Buffer) => void, dir: string): Pool {
  const durations = join(dir, `${name}.durations`);
  const args = ['--import', 'tsx', '--test', `--test-concurrency=${CONCURRENCY}`, '--test-reporter=spec', '--test-reporter-destination=stdout', `--test-reporter=${DURATIONS_REPORTER}`, `--test-reporter-destination=${durations}`, ...files];
  // V8's code cache on disk for the run (NODE_COMPILE_CACHE, inherited by every process the tests
  // start from source): each test file and `pharos` process compiles the same few hundred modules;
  // with the cache, all but the first read them compiled (~20% less CPU to start each).
  const env = { ...process.env, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(dir, 'compile-cache') };
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  child.stdout!.on('data', out);
  child.stderr!.on('data', out);
  const pool: Pool = { name, files, child, durations, exit: Promise.resolve(0), started: Date.now() };
  pool.exit = new Promise<number>((resolve) =>
    child.once('exit', (code, signal) => {
      pool.ended = Date.now();
      resolve(code ?? (signal ? 1 : 0));
    }),
  );
  return pool;
}

function slowest(pool: Pool): string {
  let lines: string[];
  try {
    lines = readFileSync(pool.durations, 'utf8').split('\n').filter(Boolean);
  } catch (e) {
    return `  (no durations: ${(e as Error).message})\n`;
  }
  return lines.slice(0, SLOWEST).map((l) => `  ${l}\n`).join('');
}

async function main(): Promise<number> {
  const patterns = process.argv.slice(2);
  if (patterns.length === 0) throw new Error('usage: node test/support/run-tests.ts GLOB…');
  const files = [...new Set(patterns.flatMap((p) => globSync(p)))].sort();
  const realTime = files.filter((f) => REAL_TIME.includes(f));
  const rest = files.filter((f) => !REAL_TIME.includes(f));
  const dir = mkdtempSync(join(tmpdir(), 'pharos-run-tests-'));

  const held: Buffer[] = [];
  let mainDone = false;
  // A pool without files is not started: `node --test` without files would run every test it finds.
  const main = rest.length ? startPool('main', rest, (c) => process.stdout.write(c), dir) : undefined;
  const timed = realTime.length ? startPool('real-time', realTime, (c) => (mainDone ? process.stdout.write(c) : held.push(c)), dir) : undefined;
  try {
    if (timed?.child.pid) setPriority(timed.child.pid, REAL_TIME_NICENESS);
  } catch (e) {
    process.stderr.write(`run-tests: could not raise the real-time pool's priority (${(e as Error).message}); it runs at normal priority\n`);
  }
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => [main, timed].forEach((p) => p?.child.kill(sig)));

  const mainCode = main ? await main.exit : 0;
  process.stdout.write(`\n=== real-time pool (${realTime.length} files, ${CONCURRENCY} at a time, beside the main pool): ${timed ? '' : 'none'}\n`);
  for (const c of held) process.stdout.write(c);
  mainDone = true;
  const timedCode = timed ? await timed.exit : 0;

  for (const p of [main, timed]) {
    if (!p) continue;
    process.stdout.write(`\n=== ${p.name} pool: ${p.files.length} files in ${Math.round(((p.ended ?? Date.now()) - p.started) / 1000)} s; slowest:\n${slowest(p)}`);
  }
  rmSync(dir, { recursive: true, force: true });
  if (mainCode !== 0) process.stderr.write(`the main pool failed (exit ${mainCode})\n`);
  if (timedCode !== 0) process.stderr.write(`the real-time pool failed (exit ${timedCode})\n`);
  return mainCode !== 0 || timedCode !== 0 ? 1 : 0;
}

process.exitCode = await main();
