import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startTestPharos, tempDir, type TestPharos } from '../support/pharos.ts';
import { upDownRecover } from '../support/monitor-flow.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';
import { setupAdmin } from '../support/console.ts';
import { KUMA_2_SCHEMA } from '../support/kuma.ts';
import { importKuma, kumaWriters } from '../../src/core/import-kuma.ts';
import { readKumaDb } from '../../src/store/kuma.ts';
import { jsonQueryFailure } from '../../src/protocols/http/json-query.ts';

// Issue 36: Uptime Kuma 2.x's json-query expressions are JSONata. The http protocol's `json_query`
// assertion evaluates them (the `jsonata` package, Kuma's comparison rules) against a real HTTP
// target on 127.0.0.1; a monitor imported from a Kuma 2.x database (built with Kuma's own schema)
// with a JSONata expression keeps working.
let p: TestPharos;
let target: HttpTarget;
const healthy = JSON.stringify({ version: '1.2.7', services: [{ name: 'db', status: 'up' }, { name: 'cache', status: 'up' }, { name: 'mail', status: 'up' }] });
const degraded = JSON.stringify({ version: '1.2.7', services: [{ name: 'db', status: 'up' }, { name: 'cache', status: 'down' }, { name: 'mail', status: 'down' }] });
before(async () => {
  p = await startTestPharos();
  target = await httpTarget(200, healthy);
});
after(async () => {
  await p?.cleanup();
  await target?.stop();
});

test("Kuma's rules: one value compared as text or as numbers; nothing, arrays and objects are reasons; a runaway expression is bounded", async () => {
  const body = JSON.stringify({ version: '1.2.7', n: 3, ok: true, items: [{ s: 'up' }, { s: 'down' }], obj: { a: 1 } });
  assert.equal(await jsonQueryFailure('version', 'contains', '1.2', body), null);
  assert.equal(await jsonQueryFailure('ok', 'equals', 'true', body), null, 'true compared as the text "true"');
  assert.equal(await jsonQueryFailure('$count(items[s="up"])', 'gte', 1, body), null);
  assert.equal(await jsonQueryFailure('n', 'lt', 3, body), 'JSON query n was 3 (expected lt 3)');
  assert.equal(await jsonQueryFailure('missing', 'equals', 'x', body), 'JSON query missing found nothing');
  assert.match((await jsonQueryFailure('items.s', 'equals', 'up', body))!, /^JSON query items\.s gave an array \["up","down"\], not one value/);
  assert.match((await jsonQueryFailure('obj', 'equals', 'x', body))!, /gave an object/);
  assert.equal(await jsonQueryFailure('$', 'equals', 'pong', 'pong'), null, 'a body that is not JSON is the text itself');
  assert.equal(await jsonQueryFailure('version', 'gt', 1, body), 'JSON query version was "1.2.7" (expected gt 1)', 'text that is not a number never orders');
  const runaway = await jsonQueryFailure('($f := function($x) { $f($x + 1) }; $f(0))', 'equals', 'x', body);
  assert.match(runaway!, /^JSON query .*: /, 'bounded by depth or time, a reason rather than a hang');
});

test('json_query over HTTP: up while 3 services are up, down with the reason when one is down, recovered', async () => {
  const m = await upDownRecover(p, { name: 'All services', url: target.url, assertions: [{ source: 'json_query', path: '$count(services[status="up"])', op: 'gte', value: 3 }] }, {
    breakIt: () => target.respond(200, degraded),
    reason: 'JSON query $count(services[status="up"]) was 1 (expected gte 3)',
    fixIt: () => target.respond(200, healthy),
  });
  assert.deepEqual(m.assertions, [{ source: 'json_query', path: '$count(services[status="up"])', op: 'gte', value: 3 }]);
});

test('bad json_query assertions are 400s naming the field', async () => {
  for (const [assertion, field, message] of [
    [{ source: 'json_query', path: 'services[status=', op: 'equals', value: 'x' }, 'assertions.0.path', /is not a valid JSONata expression/],
    [{ source: 'json_query', op: 'equals', value: 'x' }, 'assertions.0.path', /must be a JSONata expression/],
    [{ source: 'json_query', path: 'n', op: 'lte', value: 'three' }, 'assertions.0.value', /must be a number for op lte/],
    [{ source: 'json_query', path: 'n', op: 'matches', value: 'x' }, 'assertions.0.op', /must be one of equals, not_equals, contains, lt, lte, gt, gte for source json_query/],
  ] as const) {
    const res = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url: target.url, paused: true, assertions: [assertion] } });
    assert.equal(res.status, 400, JSON.stringify(assertion));
    const text = JSON.stringify(await res.json());
    assert.ok(text.includes(field), `${field} in ${text}`);
    assert.match(text, message);
  }
});

test('the console form takes a json_query line whose expression holds spaces (JavaScript off)', async () => {
  const admin = await setupAdmin(p);
  const html = (await admin.get('/monitors/new')).html;
  assert.match(html, /json_query \$count\(services\[up\]\) gte 3/, 'the hint shows the syntax');
  const posted = await admin.post('/monitors', {
    name: 'Form query', protocol: 'http', url: target.url, check_frequency: '60', timeout: '2', regions: ['london'], alerts_wait: '0', escalation_policy: '', port: '',
    'http.http_method': 'GET', 'http.expected_status_code': '2xx',
    'http.assertions': 'json_query $count(services[status = "up"]) gte 3\njson_query version contains 1.2',
  });
  assert.equal(posted.status, 303, posted.html.slice(0, 800));
  const uuid = /\/(mon_[0-9A-Za-z]{22})$/.exec(posted.headers.get('location') ?? '')![1]!;
  const saved = await (await p.api(`/v1/monitors/${uuid}`)).json();
  assert.deepEqual(saved.assertions, [
    { source: 'json_query', path: '$count(services[status = "up"])', op: 'gte', value: 3 },
    { source: 'json_query', path: 'version', op: 'contains', value: '1.2' },
  ]);
  const edit = (await admin.get(`/monitors/${uuid}/edit`)).html;
  assert.ok(edit.includes('json_query $count(services[status = &quot;up&quot;]) gte 3') || edit.includes('json_query $count(services[status = "up"]) gte 3'), 'the edit form shows the line back');
});

test('a Kuma 2.x json-query monitor with a JSONata expression, imported, checks the real target as Kuma did', async () => {
  target.respond(200, healthy);
  const file = join(tempDir(), 'kuma.db');
  const db = new Database(file);
  db.exec(KUMA_2_SCHEMA);
  db.exec(`INSERT INTO user(id, username, password) VALUES (1, 'admin', 'x');
INSERT INTO monitor(id, name, active, user_id, interval, url, type, json_path, json_path_operator, expected_value)
  VALUES (1, 'Kuma services', 1, 1, 60, '${target.url}', 'json-query', '$count(services[status="down"]) = 0 and $contains(version, "1.2")', '==', 'true');`);
  db.close();
  const r = importKuma({ store: p.store, clock: p.clock, publicUrl: 'https://pharos.example.com', writers: kumaWriters(p.core.config), statuspages: p.core.statuspages, seal: (t) => t }, readKumaDb(file));
  assert.equal(r.items.find((i) => i.name === 'Kuma services')?.result, 'created', JSON.stringify(r.items));
  const m = ((await (await p.api('/v1/monitors')).json()) as Array<{ uuid: string; name: string }>).find((x) => x.name === 'Kuma services')!;
  const status = async () => ((await (await p.api(`/v1/monitors/${m.uuid}`)).json()) as { status: string }).status;
  // `pharos import kuma` writes the store (a server schedules what it finds at start); here the
  // running test server is told through the API, with the imported settings unchanged.
  const put = await p.api(`/v1/monitors/${m.uuid}`, { method: 'PUT', json: { name: 'Kuma services', url: target.url } });
  assert.equal(put.status, 200, await put.clone().text());
  const nextCheck = async () => p.advance(p.scheduler.nextDueAt(p.store.monitors.get(m.uuid)!.id)! - p.clock.now());
  await nextCheck();
  assert.equal(await status(), 'up');
  target.respond(200, degraded);
  await nextCheck();
  await p.advance(3_000);
  await p.advance(3_000);
  assert.equal(await status(), 'down');
  const outage = (await (await p.api('/v2/outages')).json()).outages.find((o: { monitor: { uuid: string } | null }) => o.monitor?.uuid === m.uuid);
  assert.equal(outage.description, 'JSON query $count(services[status="down"]) = 0 and $contains(version, "1.2") was false (expected equals "true")');
});
