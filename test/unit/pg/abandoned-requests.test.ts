import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../src/lib/errors.ts';
import { openPostgresDb } from '../../../src/store/pg/driver.ts';
import { startPostgres } from '../../support/postgres.ts';
import { waitFor } from '../../support/process.ts';

// Issue 31 point 1: a request the store's caller gave up waiting for must never run later. A frozen
// database server (SIGSTOP of the whole cluster: the connection stays open, nothing answers, as in a
// network cut) makes a BEGIN wait past the driver's limit; before the fix that BEGIN completed once
// the server woke up and left its transaction open for good ("a transaction is already open" on every
// later write, locks held, nothing committed). A real PostgreSQL whatever PHAROS_TEST_DRIVER says.


const isUnavailable = (e: unknown) => e instanceof AppError && e.status === 503;

test('a BEGIN given up on while the database is frozen never opens a transaction later: the next transaction commits, no session is left idle in transaction', { timeout: 120_000 }, async () => {
  const server = await startPostgres('abandon');
  const db = openPostgresDb({ url: server.url, poolSize: 2, statementTimeoutMs: 300 });
  const admin = server.admin('abandon');
  try {
    db.exec('CREATE TABLE t (x INTEGER NOT NULL)');
    const pids = server.pids();
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    try {
      assert.throws(() => db.tx(() => db.prepare('INSERT INTO t (x) VALUES (1)').run()), isUnavailable, 'the write answers 503 while the database is frozen');
    } finally {
      for (const pid of pids) process.kill(pid, 'SIGCONT');
    }

    await waitFor('a transaction to commit again after the database woke up', async () => {
      try {
        db.tx(() => db.prepare('INSERT INTO t (x) VALUES (2)').run());
        return true;
      } catch (e) {
        if (isUnavailable(e)) return false;
        throw e;
      }
    });
    await admin.connect();
    const rows = (await admin.query<{ x: number }>('SELECT x FROM t ORDER BY x')).rows.map((r) => r.x);
    assert.deepEqual(rows, [2], 'the later transaction committed; the abandoned one wrote nothing');
    await waitFor('no Pharos session idle in a transaction', async () => {
      const r = await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'pharos' AND state LIKE 'idle in transaction%'");
      return r.rows[0]!.n === 0;
    });
  } finally {
    await admin.end().catch(() => undefined);
    db.close();
    await server.cleanup();
  }
});
