import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/load.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { createLogger, silentLogger, type Logger } from '../../src/lib/logger.ts';
import { startPharos, type RunningPharos } from '../../src/pharos.ts';
import { openDatabase } from '../../src/store/open.ts';
import { ManualClock } from './manual-clock.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';

/**
 * The store driver tests run on: `sqlite` (default) or `postgres` (env PHAROS_TEST_DRIVER=postgres:
 * every startTestPharos gets a fresh database on one PostgreSQL cluster shared by the test process).
 */
export const TEST_DRIVER: 'sqlite' | 'postgres' = process.env.PHAROS_TEST_DRIVER === 'postgres' ? 'postgres' : 'sqlite';

/**
 * The `skip` option of tests whose PostgreSQL is their own whatever PHAROS_TEST_DRIVER says (real
 * processes on a cluster they start): they run once in CI, in the PostgreSQL matrix (`npm run
 * test:postgres`), instead of twice with the same servers — as the fault suite does. False there.
 */
export const ONCE_IN_POSTGRES_MATRIX: false | string = TEST_DRIVER === 'postgres' ? false : 'runs once, in the PostgreSQL matrix (npm run test:postgres): its PostgreSQL is its own whatever the driver';

/**
 * The `skip` option of slow real-process tests whose subject is not storage (timers on the real
 * clock, agent processes, descriptor limits): they run once in CI, in the SQLite run (`npm test`),
 * not again in the PostgreSQL matrix, whose job is the store. False in the SQLite run.
 */
export const ONCE_IN_SQLITE_RUN: false | string = TEST_DRIVER === 'postgres' ? 'runs once, in the SQLite run (npm test): its subject is not the store' : false;

let cluster: Promise<TestPostgres> | undefined;
let databases = 0;
/** Databases made for a data dir: a test restarting Pharos on the same `data_dir` finds its data again. */
const databaseOf = new Map<string, { name: string; url: string }>();

/** The test process's shared PostgreSQL cluster (started on first use, gone when the process exits). */
export function sharedPostgres(): Promise<TestPostgres> {
  cluster ??= startPostgres('postgres', { untilExit: true });
  return cluster;
}

let template: Promise<string> | undefined;

/**
 * A database of the shared cluster migrated to this version's schema, made once per test process:
 * each test database is a copy of it (CREATE DATABASE … TEMPLATE, ~0.1 s), not an empty one every
 * Pharos start migrates again (~0.5 s on a 2-core machine; the migrations themselves are tested from
 * empty and step by step in test/unit/store/pg-migrations.test.ts and migration-steps.test.ts).
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const pg = await sharedPostgres();
    const name = `template_${process.pid}`;
    const url = await pg.createDatabase(name);
    openDatabase({ driver: 'postgres', url, poolSize: 1, statementTimeoutMs: 60_000 }).close();
    return name;
  })();
  return template;
}

async function databaseFor(dataDir: string): Promise<{ name: string; url: string }> {
  let db = databaseOf.get(dataDir);
  if (!db) {
    const pg = await sharedPostgres();
    const from = await migratedTemplate();
    const name = `t${process.pid}_${++databases}`;
    const c = pg.admin();
    await c.connect();
    try {
      await c.query(`CREATE DATABASE "${name}" TEMPLATE "${from}"`);
    } finally {
      await c.end();
    }
    db = { name, url: pg.url.replace(/\/[^/]*$/, `/${name}`) };
    databaseOf.set(dataDir, db);
  }
  return db;
}

/**
 * The PostgreSQL URL startTestPharos uses for `dataDir` (created on first use), or undefined when
 * tests run on SQLite: a CLI command spawned by a test gets it as PHAROS_DATABASE_URL to work on
 * the same data as the test's server.
 */
export async function testDatabaseUrl(dataDir: string): Promise<string | undefined> {
  return TEST_DRIVER === 'postgres' ? (await databaseFor(dataDir)).url : undefined;
}

async function dropDatabase(dataDir: string): Promise<void> {
  const db = databaseOf.get(dataDir);
  if (!db) return;
  databaseOf.delete(dataDir);
  const c = (await sharedPostgres()).admin();
  await c.connect();
  try {
    await c.query(`DROP DATABASE IF EXISTS "${db.name}" WITH (FORCE)`);
  } finally {
    await c.end();
  }
}

/** A write token every test server accepts. */
export const WRITE_TOKEN = 'test-write-token-0123456789abcdef';

/** A fresh temp data dir (removed by `cleanup`). */
export function tempDir(prefix = 'pharos-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A fetch Response whose JSON the test reads freely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonResponse = Omit<Response, 'json' | 'clone'> & { json(): Promise<any>; clone(): JsonResponse };

/** An in-process Pharos on 127.0.0.1 with a real SQLite file (or PostgreSQL database: TEST_DRIVER), driven by a manual clock unless one is given. */
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

/** The secret key (PHAROS_SECRET_KEY) of every test Pharos unless its config sets `secret_key`: 32 bytes in hex. */
export const TEST_SECRET_KEY = '7e'.repeat(32);

/**
 * Starts Pharos for a test. `config` is merged over a test default (listen 127.0.0.1:0, temp data dir,
 * the write token above). `logger` defaults to a silent one (tests of the operator's log pass a capturing one).
 */
export async function startTestPharos(config: Record<string, unknown> = {}, clock: Clock = new ManualClock(), logger: Logger = silentLogger): Promise<TestPharos> {
  const dataDir = (config.data_dir as string | undefined) ?? tempDir();
  // PHAROS_TEST_LOG=1: the server's warnings and errors on stderr (what a 500 was, while debugging).
  if (logger === silentLogger && process.env.PHAROS_TEST_LOG) logger = createLogger('warn', (l) => void process.stderr.write(l), 'text');
  const storage = (config.storage ?? {}) as Record<string, unknown>;
  if (TEST_DRIVER === 'postgres' && storage.driver === undefined) {
    config = { ...config, storage: { ...storage, driver: 'postgres', postgres_url: (await databaseFor(dataDir)).url } };
  }
  // One key for every test instance: instances sharing a PostgreSQL database must hold the same one (issue 32).
  // Scheduled backups (on by default, every 6h) are off unless a test asks: a test moving its clock by
  // days would otherwise copy its database at every 6 hours it crosses (test/api/backups.test.ts turns them on).
  const cfg = parseConfig({ listen: '127.0.0.1:0', data_dir: dataDir, admin_token: WRITE_TOKEN, secret_key: TEST_SECRET_KEY, backup: { every: 'off' }, ...config });
  const p = await startPharos({ config: cfg, logger, clock });
  const settle = async () => {
    await p.scheduler.settled();
    await p.deadlines.settled();
    // The alerting loops' store work (store.async): window ends, flood releases, escalation steps, then deliveries.
    await p.maintenanceGate.settled();
    await p.floodGuard.settled();
    await p.stepper.settled();
    await p.dispatcher.settled();
    await p.core.onCallHandoffs.settled(); // hand-off notices (issue 34): their timer re-arms after each run
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
      if (!config.data_dir) {
        rmSync(dataDir, { recursive: true, force: true });
        await dropDatabase(dataDir);
      }
    },
  });
}
