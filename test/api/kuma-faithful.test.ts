import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startTestPharos, tempDir, type TestPharos } from '../support/pharos.ts';
import { KUMA_2_SCHEMA } from '../support/kuma.ts';
import { importKuma, kumaWriters, type KumaImportReport } from '../../src/core/import-kuma.ts';
import { readKumaDb } from '../../src/store/kuma.ts';

// Issue 36 "Kuma import, faithful": a Kuma 2.x kuma.db built with Kuma's own schema (its knex
// migrations, test/support/kuma.ts), imported into a real Pharos; what arrived is read over the API.
let p: TestPharos;
before(async () => {
  p = await startTestPharos();
});
after(() => p.cleanup());

/** A Kuma 2.x database with `sql` run after the schema, imported; the report. */
function importSql(sql: string): KumaImportReport {
  const file = join(tempDir(), 'kuma.db');
  const db = new Database(file);
  db.exec(KUMA_2_SCHEMA);
  db.exec(`INSERT INTO user(id, username, password) VALUES (1, 'admin', 'x');\n${sql}`);
  db.close();
  return importKuma({ store: p.store, clock: p.clock, publicUrl: 'https://pharos.example.com', writers: kumaWriters(p.core.config), statuspages: p.core.statuspages, seal: (t) => t }, readKumaDb(file));
}

/** The API's view of the monitor named `name`. */
async function monitorNamed(name: string): Promise<Record<string, unknown>> {
  const all = (await (await p.api('/v1/monitors')).json()) as Array<Record<string, unknown>>;
  const m = all.find((x) => x.name === name);
  assert.ok(m, `monitor ${name} imported`);
  return m;
}

const item = (r: KumaImportReport, name: string) => r.items.find((i) => i.name === name)!;

test('a timeout longer than the interval (Kuma allows it) is clamped to the check frequency, and the report says so', async () => {
  const r = importSql(`INSERT INTO monitor(id, name, active, user_id, interval, url, type, timeout) VALUES (1, 'Slow API', 1, 1, 20, 'https://slow.example.com', 'http', 48);`);
  const it = item(r, 'Slow API');
  assert.equal(it.result, 'created', JSON.stringify(it));
  assert.ok(it.notes.some((n) => /timeout 48 s → 20 s/.test(n) && /check frequency/.test(n)), JSON.stringify(it.notes));
  const m = await monitorNamed('Slow API');
  assert.equal(m.timeout, 20);
  assert.equal(m.check_frequency, 20);
});

test('accepted codes ["200-299","501"] are all kept; ignore TLS, upside-down, inverted keyword, basic auth and a bearer header come over as the http options', async () => {
  const r = importSql(`
INSERT INTO monitor(id, name, active, user_id, interval, url, type, accepted_statuscodes_json, ignore_tls, upside_down, auth_method, basic_auth_user, basic_auth_pass, expiry_notification)
  VALUES (11, 'Codes', 1, 1, 60, 'https://codes.example.com', 'http', '["200-299","501"]', 1, 1, 'basic', 'bob', 'pw', 1);
INSERT INTO monitor(id, name, active, user_id, interval, url, type, keyword, invert_keyword, headers, expiry_notification)
  VALUES (12, 'No errors', 1, 1, 60, 'https://x.example.com', 'keyword', 'Error', 1, '{"Authorization":"Bearer T0KEN","X-Env":"prod"}', 0);`);
  for (const name of ['Codes', 'No errors']) assert.equal(item(r, name).result, 'created', JSON.stringify(item(r, name)));
  const codes = await monitorNamed('Codes');
  assert.equal(codes.expected_status_code, '200-299,501');
  assert.equal(codes.ignore_tls_errors, true);
  assert.equal(codes.upside_down, true);
  assert.equal(codes.auth_method, 'basic');
  assert.equal(codes.auth_username, 'bob');
  assert.deepEqual(codes.tls_expiry_days, [7, 14, 21], "Kuma's expiry notification → tls_expiry_days (its default days)");
  const codesSettings = (await p.core.monitors.get(codes.uuid as string)).settings as Record<string, unknown>;
  assert.equal(codesSettings.auth_password, 'pw');
  const kw = await monitorNamed('No errors');
  assert.equal(kw.keyword_absent, true);
  assert.equal(kw.required_keyword, 'Error');
  assert.equal(kw.auth_method, 'bearer');
  assert.equal(kw.tls_expiry_days, undefined);
  const kwSettings = (await p.core.monitors.get(kw.uuid as string)).settings as Record<string, unknown>;
  assert.equal(kwSettings.auth_token, 'T0KEN');
  assert.deepEqual(kwSettings.request_headers, [{ name: 'X-Env', value: 'prod' }]);
});

test("a monitor's description is named in the report (Pharos monitors have none); a status page keeps Kuma's footer and light theme", async () => {
  const r = importSql(`
INSERT INTO monitor(id, name, active, user_id, interval, url, type, description) VALUES (21, 'Described', 1, 1, 60, 'https://d.example.com', 'http', 'The shop front, owned by team A');
INSERT INTO status_page(id, slug, title, description, icon, theme, footer_text) VALUES (5, 'light-page', 'Light page', NULL, '/icon.svg', 'light', 'Run by **Example Ltd**');
INSERT INTO "group"(id, name, public, weight, status_page_id) VALUES (5, 'Web', 1, 1, 5);
INSERT INTO monitor_group(monitor_id, group_id, weight) VALUES (21, 5, 1);`);
  const d = item(r, 'Described');
  assert.equal(d.result, 'created');
  assert.ok(d.notes.some((n) => n.includes('description not carried') && n.includes('The shop front, owned by team A')), JSON.stringify(d.notes));
  const pages = (await (await p.api('/v2/statuspages')).json()).statuspages as Array<Record<string, unknown>>;
  const listed = pages.find((x) => x.name === 'Light page')!;
  assert.ok(listed, 'page imported');
  const got = (await (await p.api(`/v2/statuspages/${String(listed.uuid)}`)).json()) as Record<string, Record<string, unknown>>;
  const settings = got.statuspage!.settings as Record<string, unknown>;
  assert.equal(settings.theme, 'light', 'not system');
  assert.deepEqual(settings.footer_text, { en: 'Run by **Example Ltd**' });
});

test("json-query (JSONata in Kuma): every expression becomes a json_query assertion evaluated as Kuma does (with its <= and >=); one that is not JSONata is reported", async () => {
  const r = importSql(`
INSERT INTO monitor(id, name, active, user_id, interval, url, type, json_path, json_path_operator, expected_value) VALUES
  (31, 'Plain path', 1, 1, 60, 'https://j.example.com', 'json-query', 'data.version', 'contains', '1.2'),
  (32, 'Quoted path', 1, 1, 60, 'https://j.example.com', 'json-query', '$.items[0].\`health state\`', '==', 'ok'),
  (33, 'Expression', 1, 1, 60, 'https://j.example.com', 'json-query', '$count(items[status="down"])', '<=', '0'),
  (34, 'Whole body', 1, 1, 60, 'https://j.example.com', 'json-query', NULL, '==', 'pong'),
  (35, 'Broken', 1, 1, 60, 'https://j.example.com', 'json-query', 'items[status=', '==', '0');`);
  assert.deepEqual((await monitorNamed('Plain path')).assertions, [{ source: 'json_query', path: 'data.version', op: 'contains', value: '1.2' }]);
  assert.deepEqual((await monitorNamed('Quoted path')).assertions, [{ source: 'json_query', path: '$.items[0].`health state`', op: 'equals', value: 'ok' }]);
  assert.deepEqual((await monitorNamed('Expression')).assertions, [{ source: 'json_query', path: '$count(items[status="down"])', op: 'lte', value: 0 }]);
  assert.deepEqual((await monitorNamed('Whole body')).assertions, [{ source: 'json_query', path: '$', op: 'equals', value: 'pong' }]);
  const broken = item(r, 'Broken');
  assert.equal(broken.result, 'skipped');
  assert.match(broken.reason!, /^JSON query "items\[status=" is not a valid JSONata expression: /);
});

test("a push monitor's Kuma URL /api/push/<token>?status=…&msg=… keeps working: up → a success ping, down → a fail ping with msg as its body", async () => {
  const r = importSql(`INSERT INTO monitor(id, name, active, user_id, interval, type, push_token) VALUES (41, 'Cron job', 1, 1, 3600, 'push', 'KumaPush0123');`);
  const it = item(r, 'Cron job');
  assert.equal(it.result, 'created', JSON.stringify(it));
  assert.ok(it.notes.includes("Kuma's push URL https://pharos.example.com/api/push/KumaPush0123 keeps working"), JSON.stringify(it.notes));
  const tok = it.uuid!;
  const up = await fetch(`${p.url}/api/push/KumaPush0123?status=up&msg=OK&ping=12`);
  assert.equal(up.status, 200);
  assert.deepEqual(await up.json(), { ok: true });
  const down = await fetch(`${p.url}/api/push/KumaPush0123?status=down&msg=${encodeURIComponent('disk full')}&ping=`);
  assert.equal(down.status, 200);
  const pings = await p.core.healthchecks.pings(tok, 10);
  assert.deepEqual(pings.map((x) => [x.kind, x.body]).reverse().slice(-2), [['success', 'OK'], ['fail', 'disk full']], JSON.stringify(pings));
  const hc = (await p.store.async.healthchecks.list()).find((h) => h.name === 'Cron job')!;
  assert.equal(hc.status, 'down', 'status=down is a fail signal');
  const unknown = await fetch(`${p.url}/api/push/NoSuchToken?status=up`);
  assert.equal(unknown.status, 404);
  assert.deepEqual(await unknown.json(), { ok: false, msg: 'Monitor not found or not active.' });
});
