import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';

// Issue 38 point 1: the single executable starts with `--no-turbofan` and `pharos serve` / `pharos
// agent` turn TurboFan on once started (src/lib/optimizer.ts). This checks, on the Node the project
// runs, that a function hot before `enableOptimizer()` stays unoptimized under the binary's flags, and
// that after the call it is optimized by TurboFan — so V8's flags are still writable after start and
// read at each tiering decision. V8's `%GetOptimizationStatus` bit 6 (64) is "TurboFanned".

const ROOT = new URL('../../../', import.meta.url).pathname;
const TURBOFANNED = 1 << 6;
const CHILD = `
const status = new Function('f', 'return %GetOptimizationStatus(f)');
const { enableOptimizer } = await import(${JSON.stringify(`${ROOT}src/lib/optimizer.ts`)});
function hot(x) { let s = 0; for (let i = 0; i < 10; i++) s += x * i; return s; }
for (let i = 0; i < 300000; i++) hot(i);
const before = status(hot);
if (process.argv.includes('enable')) enableOptimizer();
for (let i = 0; i < 3000000; i++) hot(i);
console.log(JSON.stringify({ before, after: status(hot) }));
`;

/** Runs CHILD under the binary's tiering flags; its statuses before and after the (optional) call. */
function run(enable: boolean): Promise<{ before: number; after: number }> {
  return new Promise((resolve, reject) => {
    const args = ['--no-maglev', '--no-turbofan', '--no-concurrent-recompilation', '--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', CHILD, '--', ...(enable ? ['enable'] : [])];
    execFile(process.execPath, args, { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout.trim()))));
  });
}

test('a function hot before enableOptimizer() is optimized by TurboFan after it, not before', async () => {
  const on = await run(true);
  assert.equal(on.before & TURBOFANNED, 0, `status before: ${on.before.toString(2)}`);
  assert.equal(on.after & TURBOFANNED, TURBOFANNED, `status after: ${on.after.toString(2)}`);
});

test('without enableOptimizer() the same function stays unoptimized (the binary never leaves start)', async () => {
  const off = await run(false);
  assert.equal(off.after & TURBOFANNED, 0, `status: ${off.after.toString(2)}`);
});
