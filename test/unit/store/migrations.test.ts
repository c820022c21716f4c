import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { migrate, openDbFile } from '../../../src/store/db.ts';
import { MIGRATIONS } from '../../../src/store/migrations/index.ts';
import { tempDir } from '../../support/pharos.ts';

test('migrations are numbered 1..n in order, and every prefix applies on an empty file and then up to the end (house rule 6)', () => {
  MIGRATIONS.forEach((m, i) => assert.equal(m.version, i + 1, `migration ${m.name} has version ${i + 1}`));
  for (let k = 0; k <= MIGRATIONS.length; k++) {
    const db = openDbFile(join(tempDir(), 'p.db'), MIGRATIONS.slice(0, k));
    assert.equal(db.sqlite.pragma('user_version', { simple: true }), k);
    assert.deepEqual(migrate(db.sqlite), MIGRATIONS.slice(k).map((m) => m.version));
    assert.equal(db.sqlite.pragma('user_version', { simple: true }), MIGRATIONS.length);
    assert.equal(db.sqlite.pragma('integrity_check', { simple: true }), 'ok');
    db.close();
  }
});

test('a database from a newer Pharos is refused with a clear message', () => {
  const file = join(tempDir(), 'p.db');
  const db = openDbFile(file);
  db.sqlite.pragma(`user_version = ${MIGRATIONS.length + 1}`);
  db.close();
  assert.throws(() => openDbFile(file), /newer than this Pharos knows.*refusing to downgrade/);
});

test('protocol_settings moves the HTTP columns of every existing monitor into its settings JSON, losing no row', async () => {
  const { monitorsStore } = await import('../../../src/store/monitors.ts');
  const before = MIGRATIONS.findIndex((m) => m.name === 'protocol_settings');
  const db = openDbFile(join(tempDir(), 'p.db'), MIGRATIONS.slice(0, before));
  const insert = db.prepare(`INSERT INTO monitors(uuid, name, url, protocol, http_method, check_frequency_s, regions, status, paused,
    expected_status_code, required_keyword, follow_redirects, port, ssl_expiration_days, alerts_wait_min, escalation_policy_uuid,
    request_body, request_headers, timeout_s, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 30, '["london"]', ?, 0, ?, ?, ?, ?, ?, 0, NULL, ?, ?, 10, 1, 2)`);
  insert.run('mon_a', 'Site', 'https://e.com/', 'http', 'POST', 'down', '200-299', 'ok', 0, null, 12, '{"a":1}', '[{"name":"X-K","value":"v"}]');
  insert.run('mon_b', 'Db', 'db.lan', 'port', 'GET', 'up', '2xx', null, 1, 5432, null, null, '[]');
  insert.run('mon_c', 'Gw', '10.0.0.1', 'icmp', 'HEAD', 'up', '3xx', '', 1, null, null, null, '[]');
  migrate(db.sqlite);
  const [a, b, c] = monitorsStore(db).list();
  assert.deepEqual(
    { protocol: a!.protocol, status: a!.status, ssl: a!.sslExpirationDays, settings: a!.settings },
    { protocol: 'http', status: 'down', ssl: 12, settings: { http_method: 'POST', expected_status_code: '200-299', required_keyword: 'ok', follow_redirects: false, request_body: '{"a":1}', request_headers: [{ name: 'X-K', value: 'v' }] } },
  );
  assert.deepEqual({ port: b!.port, settings: b!.settings }, { port: 5432, settings: { http_method: 'GET', expected_status_code: '2xx', required_keyword: null, follow_redirects: true, request_body: null, request_headers: [] } });
  assert.equal(c!.settings.http_method, 'HEAD');
  const cols = db.prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)').all('monitors').map((r) => r.name);
  assert.ok(!cols.includes('http_method') && cols.includes('settings'));
  db.close();
});
