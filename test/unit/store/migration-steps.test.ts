import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDbFile, preUpgradeCopyName } from '../../../src/store/db.ts';
import { MIGRATIONS, type Migration } from '../../../src/store/migrations/index.ts';
import { openPostgresDb } from '../../../src/store/pg/driver.ts';
import { migratePostgres, PG_MIGRATIONS, postgresSchemaVersion } from '../../../src/store/pg/migrations.ts';
import { sharedPostgres, tempDir } from '../../support/pharos.ts';

// Issue 37 point 4: migrations run one transaction per step, the step's DDL and the version bump
// together, so a step that fails leaves the database whole at the previous step; on both drivers.
const latest = MIGRATIONS.at(-1)!.version;
/** Two steps after the real ones: the first creates a table, the second creates one and then fails. */
const good: Migration = { version: latest + 1, name: 'fake_good', sql: 'CREATE TABLE fake_good (id INTEGER PRIMARY KEY)' };
const bad: Migration = {
  version: latest + 2,
  name: 'fake_bad',
  sql: 'CREATE TABLE fake_bad (id INTEGER PRIMARY KEY)',
  run: () => {
    throw new Error('fake step fails after its DDL');
  },
};
const fixed: Migration = { ...bad, run: undefined };

test('SQLite: a failing step rolls back alone (its DDL and version), the steps before it stay; the pre-upgrade copy holds the schema before them; a fixed step applies next start', () => {
  const file = join(tempDir(), 'pharos.db');
  openDbFile(file).close();
  assert.throws(() => openDbFile(file, [...MIGRATIONS, good, bad]), new RegExp(`^AppError: migration ${latest + 2} fake_bad failed: fake step fails after its DDL; the database stays at schema version ${latest + 1} \\(each migration is its own transaction\\)$`));
  const db = new Database(file, { readonly: true });
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'fake_%'").pluck().all() as string[]).sort();
  assert.equal(db.pragma('user_version', { simple: true }), latest + 1);
  assert.deepEqual(tables, ['fake_good']);
  db.close();
  const copy = preUpgradeCopyName(file, latest, latest + 2);
  assert.ok(existsSync(copy));
  const before = new Database(copy, { readonly: true });
  assert.equal(before.pragma('user_version', { simple: true }), latest);
  before.close();
  const again = openDbFile(file, [...MIGRATIONS, good, fixed]);
  assert.equal(again.sqlite.pragma('user_version', { simple: true }), latest + 2);
  again.close();
});

test('PostgreSQL: a failing step rolls back alone (its DDL and version), the steps before it stay; a fixed step applies next start', async () => {
  const url = await (await sharedPostgres()).createDatabase(`migsteps${process.pid}`);
  const db = openPostgresDb({ url, poolSize: 1, statementTimeoutMs: 10_000 });
  try {
    assert.equal(PG_MIGRATIONS.at(-1)!.version, latest);
    migratePostgres(db);
    assert.throws(() => migratePostgres(db, [...PG_MIGRATIONS, good, bad]), new RegExp(`migration ${latest + 2} fake_bad failed: fake step fails after its DDL; the database stays at schema version ${latest + 1} \\(each migration is its own transaction\\)$`));
    assert.equal(postgresSchemaVersion(db), latest + 1);
    const tables = db.prepare<[], { t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_name LIKE 'fake_%' ORDER BY 1").all();
    assert.deepEqual(tables.map((r) => r.t), ['fake_good']);
    assert.deepEqual(migratePostgres(db, [...PG_MIGRATIONS, good, fixed]), [latest + 2]);
    assert.equal(postgresSchemaVersion(db), latest + 2);
    // Refused from now on by this Pharos (a newer schema), with what to do.
    assert.throws(() => migratePostgres(db), /PostgreSQL database: schema version \d+ is newer than this Pharos knows \(up to \d+\): a newer Pharos wrote it; refusing to downgrade it\. Run the newer Pharos, or restore the pg_dump taken before the upgrade/);
  } finally {
    db.close();
  }
});
