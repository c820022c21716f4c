import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * How tests run Pharos from source, isolated from the checkout and the developer's shell (issue #14
 * point 23): an absolute entry point and tsx loader, the repo's tsconfig named explicitly, and a
 * working directory of its own, so a `config.yaml` in the checkout (or wherever the tests run) is
 * never read; {@link isolatedEnv} drops every PHAROS_* variable of the runner's environment.
 */
export const PHAROS_FROM_SOURCE = ['--import', import.meta.resolve('tsx'), join(ROOT, 'src/main.ts')];
let cwd: string | undefined;
/** An empty folder made once per test process: the working directory of every Pharos process a test starts. */
export function isolatedCwd(): string {
  return (cwd ??= mkdtempSync(join(tmpdir(), 'pharos-cwd-')));
}
/** The runner's environment without any PHAROS_* variable, plus `env` (what the test means to set). */
export function isolatedEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PHAROS_')));
  return { ...clean, TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json'), ...env };
}

/**
 * A free TCP port on 127.0.0.1 for a server a test starts later (a child process, a daemon, a restart
 * on the same port). Picked at random below the kernel's ephemeral range (32768–60999 on Linux), where
 * `listen(0)` never lands, so the test targets and receivers other test files open meanwhile cannot
 * take it between this check and the server's bind (they could with a port from `listen(0)`).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const s = createServer();
    const ok = await new Promise<boolean>((r) => {
      s.once('error', () => r(false));
      s.listen(port, '127.0.0.1', () => r(true));
    });
    if (!ok) continue;
    await new Promise<void>((r) => s.close(() => r()));
    return port;
  }
}

/** A `pharos serve` child process running from source on the real clock. */
export interface PharosProcess {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
}

/**
 * The secret key of spawned instances unless `env` sets PHAROS_SECRET_KEY (the same as
 * test/support/pharos.ts `TEST_SECRET_KEY`): instances sharing a PostgreSQL database must hold one key (issue 32).
 */
const SPAWNED_SECRET_KEY = '7e'.repeat(32);

/**
 * Spawns `node --import tsx src/main.ts serve` with `env` (and no other PHAROS_* variable, from an
 * empty working directory: see {@link PHAROS_FROM_SOURCE}) and waits until /healthz answers.
 * @param env PHAROS_* variables; PHAROS_LISTEN must name a port
 */
export async function spawnPharos(env: Record<string, string>, args: string[] = ['serve']): Promise<PharosProcess> {
  const child = spawn(process.execPath, [...PHAROS_FROM_SOURCE, ...args], {
    cwd: isolatedCwd(),
    env: isolatedEnv({ PHAROS_SECRET_KEY: SPAWNED_SECRET_KEY, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | string>((r) => child.once('exit', (code, signal) => r(code ?? signal ?? -1)));
  const url = `http://${env.PHAROS_LISTEN}`;
  // A bound for a wedged start, not a timing assertion: a start on PostgreSQL (three threads loading
  // the source through tsx) took over 20 s on a 2-core machine at load 17.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pharos exited early: ${err}`);
    try {
      // Its own start line too: a /healthz answer alone could come from another server on the port.
      if (/ listening on /.test(err) && (await fetch(url + '/healthz')).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      // Killed, or the child (its pipes) would keep the test file's process alive after the failure.
      child.kill('SIGKILL');
      throw new Error(`pharos did not start within 60 s: ${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, url, stdout: () => out, stderr: () => err, exited };
}

/** A `pharos agent` child process running from source. */
export interface AgentProcess {
  child: ChildProcess;
  /** Its `prb_…` id, read from its first log line. */
  id: string;
  stderr: () => string;
  exited: Promise<number | string>;
}

/**
 * Spawns `node --import tsx src/main.ts agent …` and waits for its start line (which names its id).
 * @param flags e.g. `['--server', url, '--region', 'paris', '--source-address', '127.0.0.2']`
 */
export async function spawnAgent(token: string, flags: string[]): Promise<AgentProcess> {
  const child = spawn(process.execPath, [...PHAROS_FROM_SOURCE, 'agent', ...flags], {
    cwd: isolatedCwd(),
    env: isolatedEnv({ PHAROS_AGENT_TOKEN: token }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | string>((r) => child.once('exit', (code, signal) => r(code ?? signal ?? -1)));
  const id = await waitFor('the agent to start', async () => {
    if (child.exitCode !== null) throw new Error(`pharos agent exited early: ${err}`);
    // Its log is JSON lines (stderr is not a TTY); the start line carries the id in `agent`.
    for (const line of err.split('\n').slice(0, -1)) {
      if (!line.startsWith('{')) continue;
      const entry = JSON.parse(line) as { msg?: string; agent?: string };
      if (entry.msg?.startsWith('pharos agent started') && entry.agent) return entry.agent;
    }
    return undefined;
  });
  return { child, id, stderr: () => err, exited };
}

/**
 * Polls `check` every 100 ms until it returns a truthy value, or fails after `timeoutMs`.
 * For conditions that real time produces (a real process's checks), never for fixed sleeps.
 */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
