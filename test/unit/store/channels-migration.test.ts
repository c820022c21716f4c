import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { migrate, openDbFile } from '../../../src/store/db.ts';
import { MIGRATIONS } from '../../../src/store/migrations/index.ts';
import { tempDir } from '../../support/pharos.ts';

// The channels migration rebuilds `alerts` and `subscribers` (CHECK constraints): rows written
// before it must survive with their ids, and the new columns get their documented values.
test('the channels migration keeps outbox rows (legacy delivery ids) and subscribers', () => {
  const at = MIGRATIONS.findIndex((m) => m.name === 'channels');
  assert.ok(at > 0);
  const db = openDbFile(join(tempDir(), 'p.db'), MIGRATIONS.slice(0, at));
  db.exec(`INSERT INTO alerts(id, outage_uuid, channel, kind, step, message, created_at, next_attempt_at) VALUES (7, NULL, 'hook', 'notice', NULL, '{}', 1, 1);
    INSERT INTO statuspages(id, uuid, name, subdomain, hostname, settings, sections, password_hash, created_at, updated_at) VALUES (1, 'sp_a', 'A', 'a', NULL, '{}', '[]', NULL, 1, 1);
    INSERT INTO subscribers(id, uuid, statuspage_id, channel, target, confirmed_at, created_at) VALUES (3, 'sub_a', 1, 'email', 'a@example.com', 5, 4);`);
  migrate(db.sqlite);
  assert.deepEqual(db.prepare('SELECT id, channel, kind, delivery_id FROM alerts').all(), [{ id: 7, channel: 'hook', kind: 'notice', delivery_id: 'dlv_legacy_7' }]);
  assert.deepEqual(db.prepare('SELECT id, uuid, channel, target, confirmed_at, code_hash, code_attempts FROM subscribers').all(), [
    { id: 3, uuid: 'sub_a', channel: 'email', target: 'a@example.com', confirmed_at: 5, code_hash: null, code_attempts: 0 },
  ]);
  db.exec("INSERT INTO alerts(outage_uuid, channel, kind, message, created_at, next_attempt_at, delivery_id) VALUES (NULL, 'pd', 'acknowledge', '{}', 2, 2, 'dlv_x')");
  db.exec("INSERT INTO subscribers(uuid, statuspage_id, channel, target, created_at) VALUES ('sub_b', 1, 'sms', '+15550001111', 6)");
  assert.throws(() => db.exec("INSERT INTO alerts(outage_uuid, channel, kind, message, created_at, next_attempt_at, delivery_id) VALUES (NULL, 'pd', 'acknowledge', '{}', 2, 2, 'dlv_x')"), /UNIQUE/);
  assert.equal((db.sqlite.pragma('foreign_key_check') as unknown[]).length, 0);
  db.close();
});
