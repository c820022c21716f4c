/**
 * Starting and stopping a whole Pharos process for the benches: the built single executable
 * (`dist/pharos`, rebuilt when missing or older than src/) or the sources through tsx, on a fresh data dir.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/process.ts';
import { sleep, startChild, type Child } from './proc.ts';

/** The repository root. */
export const ROOT = new URL('../', import.meta.url).pathname;
/** The admin token of bench servers (PHAROS_ADMIN_TOKEN). */
export const TOKEN = 'phr_bench' + 'x'.repeat(38);

/** A free TCP port on 127.0.0.1 (the test suite's helper). */
export { freePort } from '../test/support/process.ts';

/** SIGTERM and wait for the exit. */
export async function stop(child: Child): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  const exited = new Promise((r) => child.proc.once('exit', r));
  child.proc.kill('SIGTERM');
  await exited;
}

/** The newest modification time (epoch ms) of the files under src/: a stale binary is rebuilt. */
function newestSource(): number {
  return readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((max, e) => Math.max(max, statSync(join(e.parentPath, e.name)).mtimeMs), 0);
}

/** A running bench Pharos. */
export interface BenchPharos {
  /** The temp folder holding config.yaml and data/. */
  dir: string;
  child: Child;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The SQLite file (read it after `stop`). */
  dbFile: string;
  /** fetch with the admin token and a JSON body. */
  api(path: string, method?: string, body?: unknown): Promise<Response>;
  stop(): Promise<void>;
  /** Stops and removes the data dir. */
  cleanup(): Promise<void>;
}

/**
 * Drops `file`'s pages from the page cache (GNU dd's `iflag=nocache`: posix_fadvise DONTNEED over the
 * whole file), so the next start reads the binary from disk as it would after an install or a reboot.
 * Why: `build.sh` writes the binary in one large write, and on this kernel (Linux 6.18, ext4 with large
 * folios) that leaves its page cache in folios of up to 2 MB, which a process maps whole: the same
 * binary idled at 110 MB just after a build and at 94 MB once read back from disk (its own file pages
 * 70 vs 52 MB). Pages another running process maps stay; a failure (no dd) is ignored.
 */
export function evictPageCache(file: string): void {
  try {
    execFileSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0', 'status=none'], { stdio: 'ignore' });
  } catch {
    // best effort: the figure is then the page cache's as it stands
  }
}

/**
 * Starts Pharos with `log_level: warn` on a fresh temp data dir and waits for /healthz. A binary's
 * pages are dropped from the page cache first (`evictPageCache`).
 * @param how `dist` (the single executable, rebuilt when stale), `src` (tsx), or the path of a
 *   prebuilt binary (e.g. one built from a clean checkout while src/ is being edited)
 * @param nodeOptions NODE_OPTIONS for the Pharos process only
 * @param reuse a stopped bench Pharos whose folder (and database) to start on again
 * @param configYaml more config.yaml lines (e.g. `probe:\n  confirmations: 2`)
 * @param extraEnv more environment for the Pharos process (e.g. NODE_EXTRA_CA_CERTS)
 * @param nofile run under `ulimit -n nofile` (soft and hard), through `bash -c … exec` (same pid)
 */
export async function startBenchPharos(how: string, nodeOptions?: string, reuse?: BenchPharos, configYaml = '', extraEnv: Record<string, string> = {}, nofile?: number): Promise<BenchPharos> {
  const bin = join(ROOT, 'dist/pharos');
  if (how === 'dist' && (!existsSync(bin) || statSync(bin).mtimeMs < newestSource())) execFileSync('bash', [join(ROOT, 'build.sh')], { stdio: 'inherit' });
  if (how !== 'src') evictPageCache(how === 'dist' ? bin : how);
  const dir = reuse?.dir ?? mkdtempSync(join(tmpdir(), 'pharos-bench-'));
  writeFileSync(join(dir, 'config.yaml'), `log_level: warn\n${configYaml}`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PHAROS_LISTEN: `127.0.0.1:${port}`,
    PHAROS_DATA_DIR: join(dir, 'data'),
    PHAROS_ADMIN_TOKEN: TOKEN,
    PHAROS_CONFIG: join(dir, 'config.yaml'),
    PHAROS_PUBLIC_URL: url,
    ...extraEnv,
  };
  if (nodeOptions) env.NODE_OPTIONS = nodeOptions;
  const [cmd, args] = how === 'src' ? [process.execPath, ['--import', 'tsx', join(ROOT, 'src/main.ts'), 'serve']] : [how === 'dist' ? bin : how, ['serve']];
  const child = nofile ? startChild('bash', ['-c', `ulimit -n ${nofile} && exec "$@"`, 'bash', cmd as string, ...(args as string[])], env) : startChild(cmd as string, args as string[], env);
  for (;;) {
    if (child.proc.exitCode !== null) throw new Error(`pharos exited: ${child.stderr()}`);
    if (await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) break;
    await sleep(100);
  }
  const stopIt = () => stop(child);
  return {
    dir,
    child,
    url,
    dbFile: join(dir, 'data', 'pharos.db'),
    api: (path, method = 'GET', body) =>
      fetch(url + path, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }),
    stop: stopIt,
    async cleanup() {
      await stopIt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs `make(i)` for i in [0, n) with `concurrency` workers; `make` must resolve (throw to abort).
 */
export async function forEachConcurrent(n: number, concurrency: number, make: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) await make(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
