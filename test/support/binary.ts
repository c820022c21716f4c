import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from './process.ts';
import { httpTarget } from './targets.ts';

/**
 * The single executable in an empty folder (test/build/*): built by build.sh for one target, copied
 * alone into `dir`, run with an environment that has no Node on PATH (only `ping`).
 */
export interface BinaryUnderTest {
  /** The copied binary. */
  bin: string;
  /** argv prefix that runs it: `[bin]` natively, `[qemu-aarch64-static, -L, sysroot, bin]` under emulation. */
  argv: string[];
  /** An environment with only HOME (dir/home) and a PATH holding `ping` (no node anywhere), plus `extra`. */
  env(extra?: Record<string, string>): Record<string, string>;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * `build.sh --release --image` once per test run, for every test file that needs a build
 * (test/build/*): the first file to ask builds, the others wait for it. One build instead of one per
 * file saves CI minutes, and files running side by side no longer write dist/ at the same time.
 * A run is the `node --test` runner process (every test file's parent: `process.ppid`).
 * @returns dist/<target>/pharos of this machine
 * @throws when the build failed (in whichever file ran it), naming build.sh's exit
 */
export async function releaseBuild(): Promise<string> {
  const dist = join(ROOT, 'dist');
  mkdirSync(dist, { recursive: true });
  const mark = join(dist, `.test-build-${process.ppid}`);
  let mine = true;
  try {
    mkdirSync(`${mark}.lock`);
  } catch {
    mine = false;
  }
  if (mine) {
    try {
      execFileSync('bash', [join(ROOT, 'build.sh'), '--release', '--image'], { cwd: ROOT, stdio: 'ignore' });
      writeFileSync(`${mark}.done`, 'ok');
    } catch (e) {
      writeFileSync(`${mark}.done`, `build.sh --release --image failed: ${(e as Error).message}`);
    }
  }
  const outcome = await waitFor('the shared build (build.sh --release --image) to finish', async () => (existsSync(`${mark}.done`) ? readFileSync(`${mark}.done`, 'utf8') : null), 900_000);
  assert.equal(outcome, 'ok', outcome);
  return join(dist, process.arch === 'arm64' ? 'linux-arm64' : 'linux-x64', 'pharos');
}

/**
 * Copies a built binary alone into `dir` and gives it a home and a PATH with only `ping`.
 * @param emulator argv prefix for a binary this machine cannot run itself (qemu-user)
 */
export function prepareBinary(dir: string, built: string, emulator: string[] = []): BinaryUnderTest {
  const bin = join(dir, 'pharos');
  copyFileSync(built, bin);
  mkdirSync(join(dir, 'home'));
  mkdirSync(join(dir, 'bin'));
  const ping = execFileSync('sh', ['-c', 'command -v ping'], { encoding: 'utf8' }).trim();
  symlinkSync(ping, join(dir, 'bin', 'ping'));
  return { bin, argv: [...emulator, bin], env: (extra = {}) => ({ HOME: join(dir, 'home'), PATH: join(dir, 'bin'), ...extra }) };
}

/**
 * `pharos serve` from the binary: the API answers, a local HTTP target is checked, a status page
 * renders (with a font served from inside the binary), SIGTERM exits 0 with the WAL checkpointed.
 * @param startMs how long the binary may take to listen (longer under emulation)
 */
export async function serveSmoke(b: BinaryUnderTest, dir: string, startMs = 30_000): Promise<void> {
  const TOKEN = 'binary-smoke-token-0123456789';
  const target = await httpTarget();
  const port = await freePort();
  const child = spawn(b.argv[0]!, [...b.argv.slice(1), 'serve'], { cwd: dir, env: b.env({ PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_ADMIN_TOKEN: TOKEN }), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = `http://127.0.0.1:${port}`;
  const api = (path: string, init: RequestInit = {}) => fetch(url + path, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' } });
  try {
    await waitFor('the binary to listen', async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, startMs);
    const created = await api('/v1/monitors', { method: 'POST', body: JSON.stringify({ name: 'local', url: `${target.url}/health`, check_frequency: 10 }) });
    assert.equal(created.status, 201);
    const listed = (await (await api('/v1/monitors')).json()) as Array<{ name: string }> | { monitors: Array<{ name: string }> };
    assert.ok(JSON.stringify(listed).includes('"local"'), 'GET /v1/monitors lists it');
    await waitFor('a check of the local target', async () => target.hits > 0, 20_000);
    await waitFor('the check to be counted', async () => /pharos_checks_total\{protocol="http",result="up"\} [1-9]/.test(await (await api('/metrics')).text()), 20_000);
    assert.equal((await (await fetch(`${url}/docs/assets/swagger-ui.css`)).text()).length > 1000, true, '/docs assets are served from inside the binary');
    const monitor = (await created.json()) as { uuid: string };
    const page = await api('/v2/statuspages', { method: 'POST', body: JSON.stringify({ name: 'Binary Status', subdomain: 'bin', font: 'Roboto', sections: [{ name: 'Site', services: [{ monitor_uuid: monitor.uuid }] }] }) });
    assert.equal(page.status, 201);
    // Results are group-committed (every 100 ms): the page shows "no data yet" until the first is stored.
    let html = '';
    await waitFor('the page to show the checked service', async () => /data-status="operational"/.test((html = await (await fetch(`${url}/status/bin`)).text())), 10_000);
    assert.match(html, /Binary Status[\s\S]*data-service="local"[\s\S]*data-status="operational"/, 'the status page renders with its service');
    assert.match(html, /class="bar l-ok"/);
    const font = await fetch(`${url}/_pharos/fonts/roboto-latin-400-normal.woff2`);
    assert.equal(font.status, 200);
    assert.equal(Buffer.from(await font.arrayBuffer()).subarray(0, 4).toString('latin1'), 'wOF2', 'fonts are served from inside the binary');
  } finally {
    child.kill('SIGTERM');
    await target.stop();
  }
  assert.equal(await exited, 0, stderr);
  const wal = join(dir, 'data', 'pharos.db-wal');
  assert.ok(!existsSync(wal) || statSync(wal).size === 0, 'the WAL was checkpointed');
  assert.ok(statSync(join(dir, 'data', 'pharos.db')).size > 0);
  assert.ok(existsSync(join(dir, 'data', 'native')), 'serve keeps the SQLite addon in <data_dir>/native');
}
