import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { migrate, openDbFile } from '../../../src/store/db.ts';
import { MIGRATIONS } from '../../../src/store/migrations/index.ts';
import { TABLES } from '../../../src/store/migrations/0027_ids_never_repeat.ts';
import { tempDir } from '../../support/pharos.ts';

// Migration 0027 rebuilds the resource tables with AUTOINCREMENT (issue 35 point 2): every row,
// column, index and foreign key must survive, and cascades must still work afterwards.
test('ids_never_repeat keeps rows, indexes and foreign keys, and ids no longer repeat', () => {
  const at = MIGRATIONS.findIndex((m) => m.name === 'ids_never_repeat');
  assert.ok(at > 0);
  const db = openDbFile(join(tempDir(), 'p.db'), MIGRATIONS.slice(0, at));
  const schemaOf = () =>
    Object.fromEntries(
      TABLES.map((t) => [
        t,
        {
          columns: db.prepare<[string], unknown>('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)').all(t),
          indexes: db.prepare<[string], unknown>("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? ORDER BY name").all(t),
          keys: db.prepare<[string], unknown>('SELECT "table", "from", "to", on_delete FROM pragma_foreign_key_list(?)').all(t),
        },
      ]),
    );
  const referring = () => db.prepare<[], unknown>(`SELECT s.name, f."table", f."from", f.on_delete FROM sqlite_schema s, pragma_foreign_key_list(s.name) f WHERE s.type = 'table' ORDER BY 1, 2, 3`).all();
  db.exec(`INSERT INTO monitors(id, uuid, name, url, protocol, check_frequency_s, regions, status, paused, alerts_wait_min, timeout_s, created_at, updated_at)
      VALUES (1, 'mon_a', 'a', 'https://e.com/', 'http', 30, '["london"]', 'up', 0, 0, 10, 1, 2), (5, 'mon_b', 'b', 'https://e.com/', 'http', 30, '["london"]', 'down', 1, 0, 10, 1, 2);
    INSERT INTO outages(uuid, incident_number, kind, monitor_id, start_at, status_code, description, detected_location, confirmed_locations, protocol, severity, created_at)
      VALUES ('out_b', 1, 'monitor', 5, 10, 500, 'x', 'london', '[]', 'http', 'major', 10);
    INSERT INTO statuspages(id, uuid, name, subdomain, hostname, settings, sections, password_hash, created_at, updated_at) VALUES (3, 'sp_a', 'A', 'a', NULL, '{}', '[]', NULL, 1, 1);
    INSERT INTO subscribers(id, uuid, statuspage_id, channel, target, confirmed_at, created_at) VALUES (9, 'sub_a', 3, 'email', 'a@example.com', 5, 4);`);
  const schema = schemaOf();
  const refs = referring();
  const monitorsBefore = db.prepare('SELECT * FROM monitors ORDER BY id').all();
  // Up to 0027 only: later migrations may add tables with foreign keys of their own (0028: contact methods).
  migrate(db.sqlite, MIGRATIONS.slice(0, at + 1));

  assert.deepEqual(db.prepare('SELECT * FROM monitors ORDER BY id').all(), monitorsBefore, 'every monitor, every column');
  assert.deepEqual(db.prepare('SELECT id, uuid, statuspage_id FROM subscribers').all(), [{ id: 9, uuid: 'sub_a', statuspage_id: 3 }]);
  assert.deepEqual(schemaOf(), schema, 'columns, indexes and foreign keys as before');
  assert.deepEqual(referring(), refs, 'the tables referring to the rebuilt ones still do');
  for (const t of TABLES) {
    const sql = db.prepare<[string], { sql: string }>("SELECT sql FROM sqlite_schema WHERE name = ?").get(t)?.sql;
    if (sql) assert.match(sql, /id INTEGER PRIMARY KEY AUTOINCREMENT/, t);
  }
  assert.equal(db.sqlite.pragma('foreign_keys', { simple: true }), 1, 'foreign keys are on again');
  assert.equal(db.sqlite.pragma('integrity_check', { simple: true }), 'ok');
  assert.equal((db.sqlite.pragma('foreign_key_check') as unknown[]).length, 0);

  db.exec("DELETE FROM monitors WHERE uuid = 'mon_b'");
  assert.equal(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM outages').get()!.n, 0, 'ON DELETE CASCADE still reaches outages');
  const next = db.prepare(`INSERT INTO monitors(uuid, name, url, protocol, check_frequency_s, regions, status, paused, alerts_wait_min, timeout_s, created_at, updated_at)
      VALUES ('mon_c', 'c', 'https://e.com/', 'http', 30, '["london"]', 'up', 0, 0, 10, 1, 2)`).run();
  assert.equal(Number(next.lastInsertRowid), 6, 'after the highest id given (5, deleted), not max(id) + 1 = 2');
  assert.throws(() => db.exec("INSERT INTO subscribers(uuid, statuspage_id, channel, target, created_at) VALUES ('sub_x', 99, 'email', 'x@example.com', 1)"), /FOREIGN KEY/);
  db.close();
});
