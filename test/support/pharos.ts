import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/load.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { silentLogger, type Logger } from '../../src/lib/logger.ts';
import { startPharos, type RunningPharos } from '../../src/pharos.ts';
import { ManualClock } from './manual-clock.ts';

/** A write token every test server accepts. */
export const WRITE_TOKEN = 'test-write-token-0123456789abcdef';

/** A fresh temp data dir (removed by `cleanup`). */
export function tempDir(prefix = 'pharos-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A fetch Response whose JSON the test reads freely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonResponse = Omit<Response, 'json' | 'clone'> & { json(): Promise<any>; clone(): JsonResponse };

/** An in-process Pharos on 127.0.0.1 with a real SQLite file, driven by a manual clock unless one is given. */
export interface TestPharos extends RunningPharos {
  clock: ManualClock;
  dataDir: string;
  /** fetch against the server with the write token (or `token`). */
  api(path: string, init?: RequestInit & { token?: string | null; json?: unknown }): Promise<JsonResponse>;
  /** Advances the manual clock, letting checks in flight finish after each timer. */
  advance(ms: number): Promise<void>;
  /** Stops the server and removes the data dir. */
  cleanup(): Promise<void>;
}

/**
 * Starts Pharos for a test. `config` is merged over a test default (listen 127.0.0.1:0, temp data dir,
 * the write token above). `logger` defaults to a silent one (tests of the operator's log pass a capturing one).
 */
export async function startTestPharos(config: Record<string, unknown> = {}, clock: Clock = new ManualClock(), logger: Logger = silentLogger): Promise<TestPharos> {
  const dataDir = (config.data_dir as string | undefined) ?? tempDir();
  const cfg = parseConfig({ listen: '127.0.0.1:0', data_dir: dataDir, admin_token: WRITE_TOKEN, ...config });
  const p = await startPharos({ config: cfg, logger, clock });
  const settle = async () => {
    await p.scheduler.settled();
    await p.dispatcher.settled();
  };
  return Object.assign(p, {
    clock: clock as ManualClock,
    dataDir,
    api(path: string, init: RequestInit & { token?: string | null; json?: unknown } = {}) {
      const headers = new Headers(init.headers);
      const token = init.token === undefined ? WRITE_TOKEN : init.token;
      if (token) headers.set('Authorization', `Bearer ${token}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('Content-Type', 'application/json');
        body = JSON.stringify(init.json);
      }
      return fetch(p.url + path, { ...init, headers, body }) as Promise<JsonResponse>;
    },
    advance: (ms: number) => (clock as ManualClock).advance(ms, settle),
    async cleanup() {
      await p.close();
      if (!config.data_dir) rmSync(dataDir, { recursive: true, force: true });
    },
  });
}
