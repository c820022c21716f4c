import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Issue 38 point 4: every bench script answers `--help` with its options (exit 0) and an unknown
// option with a message naming it (exit 2), through the one parser in bench/args.ts, before it
// starts any work (a script that started a Pharos or a load first would not answer within the
// timeout, and would print before the usage line).

const ROOT = new URL('../../', import.meta.url).pathname;
const BENCH = join(ROOT, 'bench');
/** Modules the scripts import: they take no command line. */
const LIBRARIES = ['args.ts', 'check-target.ts', 'floor-loop.ts', 'history.ts', 'origins-lib.ts', 'pharos.ts', 'ping-protos.ts', 'proc.ts', 'prom.ts', 'results-db.ts'];
const files = readdirSync(BENCH).filter((f) => f.endsWith('.ts')).sort();
const scripts = files.filter((f) => !LIBRARIES.includes(f));

interface Run { code: number | null; stdout: string; stderr: string }
const run = (file: string, args: string[]): Promise<Run> =>
  new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', join(BENCH, file), ...args], { cwd: ROOT, timeout: 60_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: unknown }).code as number | null) : 0;
      resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
    });
  });

/** Runs `jobs` at most `limit` at a time (the machine's two cores are shared). */
async function bounded<T>(jobs: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]!();
    }
  }));
  return out;
}

test('every bench file is a library or a script that parses its command line through bench/args.ts', () => {
  for (const f of files) {
    const src = readFileSync(join(BENCH, f), 'utf8');
    if (f === 'args.ts') continue;
    assert.ok(!/process\.argv/.test(src), `${f} reads process.argv itself: use benchArgs (bench/args.ts)`);
    assert.ok(!/from 'node:util'[\s\S]*parseArgs|parseArgs\(/.test(src), `${f} calls parseArgs itself: use benchArgs (bench/args.ts)`);
    if (LIBRARIES.includes(f)) assert.ok(!src.includes('benchArgs('), `${f} is listed as a library but parses a command line`);
    else assert.ok(src.includes('benchArgs('), `${f} is a script without benchArgs: call it first thing, or list it in LIBRARIES if it only exports`);
  }
});

test('every bench script answers --help with its options (exit 0)', { timeout: 600_000 }, async () => {
  const results = await bounded(scripts.map((f) => () => run(f, ['--help'])), 3);
  scripts.forEach((f, i) => {
    const help = results[i]!;
    assert.equal(help.code, 0, `${f} --help exited ${help.code}: ${help.stderr.slice(0, 500)}`);
    assert.match(help.stdout, new RegExp(`^Usage: node --import tsx bench/${f.replace('.', '\\.')} `), `${f} --help prints its usage line`);
    assert.match(help.stdout, /\n {2}--help, -h +this text\n/, `${f} --help lists --help`);
    // Every option the file's doc comment shows in its usage (`[--name …]`) is listed with a description.
    const doc = /^\/\*\*[\s\S]*?\*\//.exec(readFileSync(join(BENCH, f), 'utf8'))?.[0] ?? '';
    for (const [, name] of doc.matchAll(/\[--([a-z][a-z-]*)/g)) {
      assert.match(help.stdout, new RegExp(`\\n {2}--${name}(?=[ ,])[^\\n]* {2}\\S`), `${f} --help describes --${name}`);
    }
  });
});

// The same parser answers every script's bad usage; two scripts stand for the rest (one with options
// only, one child process with arguments).
test('an unknown option or a missing argument is a message naming it, exit 2, no work started', { timeout: 120_000 }, async () => {
  const [pings, target, missing] = await bounded([() => run('pings.ts', ['--no-such-option']), () => run('target.ts', ['--no-such-option', '1']), () => run('target.ts', [])], 3);
  assert.equal(pings!.code, 2);
  assert.match(pings!.stderr, /^bench\/pings\.ts: unknown option --no-such-option \(options: --healthchecks, /);
  assert.equal(pings!.stdout, '', 'nothing started');
  assert.equal(target!.code, 2);
  assert.match(target!.stderr, /^bench\/target\.ts: unknown option --no-such-option \(this script takes no options\)/);
  assert.equal(missing!.code, 2);
  assert.match(missing!.stderr, /^bench\/target\.ts: missing argument <port>\n/);
  assert.equal(missing!.stdout, '', 'it did not listen');
});
