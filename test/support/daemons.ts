import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync } from 'node:fs';
import { connect } from 'node:net';
import { tempDir } from './pharos.ts';

export { freePort } from './process.ts';

/**
 * Whom a Debian server runs as: PostgreSQL and MariaDB refuse to run as root, so when the tests
 * run as root the daemon runs as its package's system user (`postgres`, `mysql`); otherwise as us.
 */
export function runAs(user: string): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** A temp dir the daemon's user owns. */
export function daemonDir(user: string): string {
  const dir = tempDir('pharos-daemon-');
  const ids = runAs(user);
  if (ids.uid !== undefined) chownSync(dir, ids.uid, ids.gid!);
  return dir;
}

/** Runs a setup command (initdb, mariadb-install-db) as `user`; throws with its output on failure. */
export function setupAs(user: string, cmd: string, args: string[]): void {
  execFileSync(cmd, args, { ...runAs(user), stdio: ['ignore', 'pipe', 'pipe'], cwd: '/' });
}

/** A running daemon; `stop()` sends `signal` to the process it started and waits for its exit. */
export interface Daemon {
  port: number;
  proc: ChildProcess;
  /** What the daemon wrote to stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `cmd args` as `user` and resolves once 127.0.0.1:`port` accepts connections (the daemon's
 * own readiness; polled every 100 ms, at most `readyMs`). Its output is kept for the error message.
 */
export async function startDaemon(user: string, cmd: string, args: string[], port: number, opts: { signal?: NodeJS.Signals; readyMs?: number } = {}): Promise<Daemon> {
  const proc = spawn(cmd, args, { ...runAs(user), stdio: ['ignore', 'pipe', 'pipe'], cwd: '/' });
  let output = '';
  proc.stdout!.on('data', (d) => (output += d));
  proc.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const deadline = Date.now() + (opts.readyMs ?? 30_000);
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${cmd} exited with ${proc.exitCode}: ${output.slice(-2000)}`);
    const up = await new Promise<boolean>((r) => {
      const s = connect({ host: '127.0.0.1', port }, () => (s.destroy(), r(true)));
      s.once('error', () => r(false));
    });
    if (up) break;
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`${cmd} did not listen on ${port}: ${output.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    proc,
    output: () => output,
    async stop() {
      if (proc.exitCode === null) proc.kill(opts.signal ?? 'SIGTERM');
      await exited;
    },
  };
}
