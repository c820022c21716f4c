import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDbFile } from '../../../src/store/db.ts';
import { MIGRATIONS } from '../../../src/store/migrations/index.ts';
import { openPostgresDb } from '../../../src/store/pg/driver.ts';
import { migratePostgres, PG_MIGRATIONS, postgresSchemaVersion } from '../../../src/store/pg/migrations.ts';
import { sharedPostgres } from '../../support/pharos.ts';

// Real PostgreSQL (Debian's postgresql 15, a cluster in a temp dir), one fresh database per case.
let n = 0;
async function freshDb() {
  const url = await (await sharedPostgres()).createDatabase(`mig${process.pid}_${++n}`);
  return openPostgresDb({ url, poolSize: 1, statementTimeoutMs: 10_000 });
}

test('PostgreSQL migrations ascend and end at the SQLite schema version (a SQLite migration without its PostgreSQL twin fails here)', () => {
  PG_MIGRATIONS.forEach((m, i) => i > 0 && assert.ok(m.version > PG_MIGRATIONS[i - 1]!.version, `${m.name} comes after ${PG_MIGRATIONS[i - 1]!.name}`));
  assert.equal(PG_MIGRATIONS.at(-1)!.version, MIGRATIONS.at(-1)!.version);
});

test('every prefix of the PostgreSQL migrations applies on an empty database and then up to the end', async () => {
  for (let k = 0; k <= PG_MIGRATIONS.length; k++) {
    const db = await freshDb();
    try {
      assert.deepEqual(migratePostgres(db, PG_MIGRATIONS.slice(0, k)), PG_MIGRATIONS.slice(0, k).map((m) => m.version));
      assert.equal(postgresSchemaVersion(db), PG_MIGRATIONS[k - 1]?.version ?? (k === 0 ? 0 : NaN));
      assert.deepEqual(migratePostgres(db), PG_MIGRATIONS.slice(k).map((m) => m.version));
      assert.equal(postgresSchemaVersion(db), PG_MIGRATIONS.at(-1)!.version);
      assert.deepEqual(migratePostgres(db), [], 'a second run changes nothing');
    } finally {
      db.close();
    }
  }
});

test('the PostgreSQL schema has the same tables and columns as the SQLite one', async () => {
  const lite = openDbFile(':memory:');
  const sqliteCols = lite.sqlite
    .prepare("SELECT m.name AS t, p.name AS c FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY 1, 2")
    .all() as { t: string; c: string }[];
  lite.close();
  const db = await freshDb();
  try {
    migratePostgres(db);
    const pgCols = db
      .prepare<[], { t: string; c: string }>("SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'pharos_schema' ORDER BY 1, 2")
      .all();
    const key = (r: { t: string; c: string }) => `${r.t}.${r.c}`;
    assert.deepEqual(pgCols.map(key).sort(), sqliteCols.map(key).sort());
  } finally {
    db.close();
  }
});

test('a PostgreSQL database from a newer Pharos is refused with a clear message', async () => {
  const db = await freshDb();
  try {
    migratePostgres(db);
    db.prepare('UPDATE pharos_schema SET version = ?').run(PG_MIGRATIONS.at(-1)!.version + 1);
    assert.throws(() => migratePostgres(db), /newer than this Pharos knows.*refusing to downgrade/);
  } finally {
    db.close();
  }
});
