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

test('results_hourly_tables moves every stored result into the hourly tables, field for field, repeats included', async () => {
  const { checksStore } = await import('../../../src/store/checks.ts');
  const before = MIGRATIONS.findIndex((m) => m.name === 'results_hourly_tables');
  const db = openDbFile(join(tempDir(), 'p.db'), MIGRATIONS.slice(0, before));
  const monitor = db.prepare(`INSERT INTO monitors(uuid, name, url, protocol, check_frequency_s, regions, status, paused, alerts_wait_min, timeout_s, created_at, updated_at)
    VALUES (?, 'm', 'https://e.com/', 'http', 30, '["london"]', 'up', 0, 0, 10, 1, 2)`);
  const a = Number(monitor.run('mon_a').lastInsertRowid);
  const b = Number(monitor.run('mon_b').lastInsertRowid);
  const row = db.prepare('INSERT INTO check_results(monitor_id, at, region, probe, ok, latency_ms, status_code, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const H = 3_600_000;
  const t0 = Date.UTC(2026, 10, 20, 9, 59, 59, 990);
  const rows: Array<[number, number, string, string | null, number, number, number, string | null]> = [];
  for (let i = 0; i < 300; i++) rows.push([i % 2 ? a : b, t0 + i * 7, i % 3 ? 'london' : 'tokyo', i % 5 ? null : 'prb_x', i % 7 ? 1 : 0, i * 3, i % 7 ? 200 : 0, i % 7 ? null : 'Connection refused']);
  rows.push([a, t0 + 2 * H, 'london', null, 0, 40_000, 503, 'Expected 2xx, got 503']);
  rows.push([a, t0 + 2 * H, 'london', null, 0, 40_000, 503, 'Expected 2xx, got 503']); // an exact repeat
  for (const r of rows) row.run(...r);
  // Their hourly rollups, as the checks store always wrote them in the same transaction.
  db.exec(`INSERT INTO check_rollups_hourly SELECT monitor_id, at / ${H} * ${H}, count(*), sum(1 - ok), sum(latency_ms), max(latency_ms) FROM check_results GROUP BY 1, 2`);
  migrate(db.sqlite);
  assert.equal(db.sqlite.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'check_results'").pluck().get(), 0, 'the old table is gone');
  const store = checksStore(db);
  const expect = (id: number) =>
    rows.filter((r) => r[0] === id).map(([, at, region, probe, ok, latency_ms, status_code, reason]) => ({ at, region, probe: probe ?? 'local', ok, latency_ms, status_code, reason }));
  const sortKey = (r: { at: number; region: string; probe: string; latency_ms: number }) => `${r.at}:${r.region}:${r.probe}:${r.latency_ms}`;
  const got = (id: number) => store.latestResults(id, 1000).map((r) => ({ ...r })).sort((x, y) => sortKey(x).localeCompare(sortKey(y)));
  const want = (id: number) => expect(id).sort((x, y) => sortKey(x).localeCompare(sortKey(y)));
  // The repeat is stored 1 ms after its twin (a key cannot hold both); everything else is exact.
  const gotA = got(a);
  const repeat = gotA.findIndex((r) => r.at === t0 + 2 * H + 1);
  assert.ok(repeat >= 0, 'the repeat is kept, 1 ms later');
  gotA[repeat]!.at -= 1;
  assert.deepEqual(gotA.sort((x, y) => sortKey(x).localeCompare(sortKey(y))), want(a));
  assert.deepEqual(got(b), want(b));
  assert.equal(store.countResults(a) + store.countResults(b), rows.length, 'as many results as before');
  assert.equal(store.lastCheckAt(b), Math.max(...rows.filter((r) => r[0] === b).map((r) => r[1])));
  assert.equal(store.lastCheckAt(a), t0 + 2 * H + 1);
  assert.equal(db.sqlite.pragma('integrity_check', { simple: true }), 'ok');
  db.close();
});
