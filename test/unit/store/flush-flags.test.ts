import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDbFile } from '../../../src/store/db.ts';
import type { Db } from '../../../src/store/driver.ts';
import { monitorsStore } from '../../../src/store/monitors.ts';
import { openDatabase } from '../../../src/store/open.ts';
import { sharedPostgres } from '../../support/pharos.ts';

// The per-flush writes of check results (certificate days, degraded flags) in one call per flush, on
// both drivers: what changed comes back, an unchanged value writes nothing.
async function each(fn: (db: Db) => void): Promise<void> {
  const lite = openDbFile(':memory:');
  try {
    fn(lite);
  } finally {
    lite.close();
  }
  const url = await (await sharedPostgres()).createDatabase(`flags${process.pid}`);
  const pg = openDatabase({ driver: 'postgres', url, poolSize: 1, statementTimeoutMs: 10_000 });
  try {
    fn(pg);
  } finally {
    pg.close();
  }
}

test('setSslExpirationMany and setDegradedMany report exactly the monitors whose value changed (SQLite and PostgreSQL)', async () => {
  await each((db) => {
    const add = db.prepare<[string], { id: number }>(`INSERT INTO monitors(uuid, name, url, protocol, check_frequency_s, regions, status, paused, alerts_wait_min, timeout_s, created_at, updated_at)
      VALUES (?, 'm', 'https://e.com/', 'http', 30, '["london"]', 'up', 0, 0, 10, 1, 2) RETURNING id`);
    const a = add.get('mon_a')!.id;
    const b = add.get('mon_b')!.id;
    const m = monitorsStore(db);
    const ssl = (entries: Array<[number, number | null]>) => [...m.setSslExpirationMany(new Map(entries))].sort();
    assert.deepEqual(ssl([[a, 30], [b, null]]), [[a, 30]], `${db.dialect}: b was null already`);
    assert.deepEqual(ssl([[a, 30], [b, 12]]), [[b, 12]], db.dialect);
    assert.deepEqual(ssl([[a, null]]), [[a, null]], db.dialect);
    assert.deepEqual(ssl([]), [], db.dialect);
    assert.equal(m.getById(b)!.sslExpirationDays, 12);
    const degraded = (entries: Array<[number, boolean]>) => [...m.setDegradedMany(new Map(entries))].sort();
    assert.deepEqual(degraded([[a, false], [b, true]]), [[b, true]], db.dialect);
    assert.deepEqual(degraded([[a, false], [b, true]]), [], db.dialect);
    assert.deepEqual(degraded([[b, false]]), [[b, false]], db.dialect);
  });
});
