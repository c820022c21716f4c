import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../src/lib/errors.ts';
import type { Db, TxSteps } from '../../../src/store/driver.ts';
import { openPostgresDb } from '../../../src/store/pg/driver.ts';
import { PG_BIN, startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { waitFor } from '../../support/process.ts';

// A COMMIT whose connection is lost while the server runs it may have committed or not: the driver
// cannot know. Such a write must not be answered 503 `store.unavailable` ("the change was not
// saved"): the CI run on fee8b45 answered a monitor creation that way while PostgreSQL shut down
// (fast shutdown: the backend was terminated after it committed), and the monitor existed. It is
// answered 503 `store.outcome_unknown` instead; a write that never reached COMMIT keeps
// `store.unavailable`. The server is held inside COMMIT by a deferred constraint trigger that sleeps
// (it runs at commit time), then the backend is terminated (pg_terminate_backend: FATAL 57P01, as a
// shutdown does) or the whole cluster frozen (SIGSTOP: the driver gives up at its deadline).
// A real PostgreSQL whatever PHAROS_TEST_DRIVER says.

let server: TestPostgres;
before(async () => {
  server = await startPostgres('outcome');
  const admin = server.admin('outcome');
  await admin.connect();
  await admin.query(`
    CREATE TABLE t (x INTEGER NOT NULL);
    CREATE TABLE slow (x INTEGER NOT NULL);
    CREATE FUNCTION sleepy() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(60); RETURN NULL; END $$;
    CREATE CONSTRAINT TRIGGER at_commit AFTER INSERT ON slow DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION sleepy();`);
  await admin.end();
});
after(async () => {
  await server?.cleanup();
});

const outcomeUnknown = (e: unknown) => e instanceof AppError && e.status === 503 && e.code === 'store.outcome_unknown';
const notSaved = (e: unknown) => e instanceof AppError && e.status === 503 && e.code === 'store.unavailable';
const q = (sql: string, ...params: unknown[]) => ({ sql, params });

/**
 * Starts a psql loop (its own process: the synchronous driver blocks this thread) that terminates the
 * Pharos backend as soon as it is running `statement` (the trigger holds it there for 60 s).
 */
const killers = new Set<ChildProcess>();
after(() => killers.forEach((k) => k.kill('SIGKILL')));
function terminateWhenRunning(statement: string): ChildProcess {
  const sql = `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'pharos' AND state = 'active' AND query LIKE '${statement}%'`;
  const psql = `${PG_BIN}/psql`;
  const script = `until [ "$(${psql} -h '${server.dir}' -p ${server.port} -U pharos -d outcome -tAc "${sql}")" = 1 ]; do :; done`;
  const killer = spawn('sh', ['-c', script], { stdio: 'ignore' });
  killers.add(killer);
  return killer;
}
const exited = (p: ChildProcess) => (p.exitCode !== null ? Promise.resolve() : new Promise((r) => p.once('exit', r)));

const withDb = async (fn: (db: Db) => Promise<void> | void) => {
  const db = openPostgresDb({ url: server.url, poolSize: 2, statementTimeoutMs: 120_000 });
  try {
    await fn(db);
  } finally {
    db.close();
  }
};

test('a synchronous transaction whose COMMIT loses its connection while the server runs it answers store.outcome_unknown, not store.unavailable', { timeout: 120_000 }, async () => {
  await withDb(async (db) => {
    const killer = terminateWhenRunning('COMMIT');
    assert.throws(() => db.tx(() => db.prepare('INSERT INTO slow (x) VALUES (1)').run()), outcomeUnknown);
    await exited(killer);
  });
});

test('an asynchronous transaction whose committing step loses its connection answers store.outcome_unknown; one lost before its commit stays store.unavailable', { timeout: 120_000 }, async () => {
  await withDb(async (db) => {
    // Two steps: COMMIT is a statement of its own.
    let killer = terminateWhenRunning('COMMIT');
    await assert.rejects(
      db.txAsync(function* (): TxSteps<void> {
        yield { queries: [q('INSERT INTO slow (x) VALUES (?)', 2)] };
        yield { queries: [q('INSERT INTO t (x) VALUES (?)', 2)], commit: true };
      }),
      outcomeUnknown,
    );
    await exited(killer);
    await waitFor('the driver to reach the database again', async () => db.available());
    // One statement that is the whole transaction commits implicitly, after the statement.
    killer = terminateWhenRunning('INSERT INTO slow');
    await assert.rejects(db.txAsync(function* (): TxSteps<void> { yield { queries: [q('INSERT INTO slow (x) VALUES (?)', 3)], commit: true }; }), outcomeUnknown);
    await exited(killer);
    await waitFor('the driver to reach the database again', async () => db.available());
    // Lost inside a step that does not commit: the server rolled back, nothing was saved.
    killer = terminateWhenRunning('SELECT pg_sleep');
    await assert.rejects(
      db.txAsync(function* (): TxSteps<void> {
        yield { queries: [q('INSERT INTO t (x) VALUES (?)', 4), q('SELECT pg_sleep(60)')] };
        yield { queries: [q('INSERT INTO t (x) VALUES (?)', 5)], commit: true };
      }),
      notSaved,
    );
    await exited(killer);
  });
});

test('a write given up on at its deadline while its COMMIT is at a frozen server answers store.outcome_unknown (synchronous and asynchronous)', { timeout: 120_000 }, async () => {
  const db = openPostgresDb({ url: server.url, poolSize: 2, statementTimeoutMs: 300 });
  // The cluster's processes when frozen (the pool's backends start at its first statements).
  let pids: number[] = [];
  const signal = (pid: number, sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      // a backend that ended since it was listed
    }
  };
  const freeze = () => (pids = server.pids()).forEach((pid) => signal(pid, 'SIGSTOP'));
  const thaw = () => pids.forEach((pid) => signal(pid, 'SIGCONT'));
  try {
    assert.throws(
      () =>
        db.tx(() => {
          db.prepare('INSERT INTO t (x) VALUES (6)').run();
          freeze(); // the COMMIT goes to a server that does not answer
        }),
      outcomeUnknown,
    );
    thaw();
    await waitFor('the driver to reach the thawed database', async () => db.available());
    await assert.rejects(
      db.txAsync(
        function* (): TxSteps<void> {
          yield { queries: [q('INSERT INTO t (x) VALUES (?)', 7)] };
          freeze();
        },
        { timeoutMs: 1500 },
      ),
      outcomeUnknown,
    );
  } finally {
    thaw();
    db.close();
  }
});
