import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { openDb } from '../../../src/store/db.ts';
import { createStore, type Store } from '../../../src/store/index.ts';
import { openDatabase } from '../../../src/store/open.ts';
import { sharedPostgres, tempDir } from '../../support/pharos.ts';

// The outbox claim (issue 22): a due row is handed to one dispatcher only until its lease ends, on
// SQLite and on a real PostgreSQL; on PostgreSQL a row locked by another transaction is skipped, not waited for.
const T0 = Date.UTC(2026, 0, 1);
const LEASE = 60_000;

function queue(store: Store, n: number) {
  for (let i = 0; i < n; i++) store.alerts.insert({ outageUuid: null, channel: 'hook', kind: 'alert', step: 1, message: '{}', createdAt: T0, dueAt: T0 + i });
}

function claims(store: Store, other: Store) {
  queue(store, 3);
  const a = store.alerts.claimDue(T0 + 10, 2, T0 + 10 + LEASE);
  assert.deepEqual(a.map((r) => r.id), [1, 2], 'the oldest two');
  const b = other.alerts.claimDue(T0 + 10, 10, T0 + 10 + LEASE);
  assert.deepEqual(b.map((r) => r.id), [3], 'a second dispatcher gets only the row nobody claimed');
  assert.deepEqual(other.alerts.claimDue(T0 + 20, 10, T0 + 20 + LEASE), [], 'claimed rows are not due to anyone');
  store.alerts.markDelivered(1, T0 + 30);
  store.alerts.markRetry(2, T0 + 1000, 'HTTP 503');
  assert.deepEqual(other.alerts.claimDue(T0 + 1000, 10, T0 + 1000 + LEASE).map((r) => r.id), [2], 'a retry is due at its time, whoever claims');
  // Row 3's dispatcher died mid-send: the row is due again when its lease ends (at least once).
  assert.deepEqual(store.alerts.claimDue(T0 + 10 + LEASE, 10, T0 + 10 + 2 * LEASE).map((r) => r.id), [3]);
  store.alerts.markDelivered(2, T0 + 2 * LEASE);
  store.alerts.markDelivered(3, T0 + 2 * LEASE);
  assert.equal(store.alerts.pendingCount(), 0);
}

test('SQLite: claimed rows are not due to anyone else until the lease ends', () => {
  const dir = tempDir();
  const db = openDb(dir);
  try {
    const store = createStore(db);
    claims(store, store);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('PostgreSQL: two stores on one database never claim the same row; a locked row is skipped, not waited for', async () => {
  const pg = await sharedPostgres();
  const url = await pg.createDatabase(`claim${process.pid}`);
  const target = { driver: 'postgres' as const, url, poolSize: 2, statementTimeoutMs: 5000 };
  const one = createStore(openDatabase(target));
  const two = createStore(openDatabase(target));
  const locker = pg.admin(`claim${process.pid}`);
  await locker.connect();
  try {
    claims(one, two);
    queue(one, 2); // ids 4 and 5, due at T0 and T0 + 1
    await locker.query('BEGIN');
    await locker.query('SELECT id FROM alerts WHERE id = 4 FOR UPDATE');
    // Row 4 is locked by a transaction in flight (another dispatcher claiming it): skipped at once.
    assert.deepEqual(two.alerts.claimDue(T0 + 3 * LEASE, 10, T0 + 4 * LEASE).map((r) => r.id), [5]);
    await locker.query('ROLLBACK');
    assert.deepEqual(one.alerts.claimDue(T0 + 3 * LEASE, 10, T0 + 4 * LEASE).map((r) => r.id), [4]);
  } finally {
    await locker.end();
    one.close();
    two.close();
  }
});
