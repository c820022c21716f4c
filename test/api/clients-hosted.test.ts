import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { arr, assertDecodes, bool, int, obj, str } from './clients/shapes.ts';
import { go, goWrap } from './clients/types.ts';

// Issue 35 point 5: with `api.compatibility: hosted` Pharos answers as the hosted service's recorded
// answers show (hyperping-go testdata/cassettes: maintenance_crud.yaml, maintenance_list.yaml,
// incident_crud.yaml, outage_crud.yaml, monitor_crud.yaml, monitor_validation_error.yaml). The default
// mode keeps API.md's shapes (test/api/maintenance*.test.ts, monitors.test.ts, incidents*.test.ts).
let p: TestPharos;
let plain: TestPharos;
before(async () => {
  [p, plain] = await Promise.all([startTestPharos({ api: { compatibility: 'hosted' } }), startTestPharos()]);
});
after(() => Promise.all([p.cleanup(), plain.cleanup()]));
const call = async (t: TestPharos, path: string, method = 'GET', body?: unknown) => {
  const res = await t.api(path, { method, ...(body === undefined ? {} : { json: body }) });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
};

test('maintenance windows: create answers 201 with uuid (and the whole window); the list is {maintenanceWindows, hasNextPage, total}, paged as ListMaintenance reads it', async () => {
  const m = (await call(p, '/v1/monitors', 'POST', { name: 'API', url: 'http://127.0.0.1:9/', paused: true })).body;
  // CreateMaintenanceRequest as maintenance_crud.yaml records it.
  const created = await call(p, '/v1/maintenance-windows', 'POST', { name: 'vcr', title: { en: 'Window' }, text: { en: 'Work' }, start_date: '2030-02-11T10:48:49Z', end_date: '2030-02-11T12:48:49Z', monitors: [m.uuid] });
  assert.equal(created.status, 201, created.text);
  // The recorded answer is {"uuid":"mw_…"}; hyperping-go's CreateMaintenance now decodes the POST
  // answer as the whole Maintenance ("server-side fix, Bug #18"): Pharos answers both at once.
  assertDecodes(created.body, obj({ uuid: str }), 'the recorded answer');
  assertDecodes(created.body, go.Maintenance, 'Go CreateMaintenance: the whole window');
  assert.match(created.body.uuid, /^mw_/);
  const got = await call(p, `/v1/maintenance-windows/${created.body.uuid}`);
  assertDecodes(got.body, go.Maintenance, 'Go Maintenance (GET after create, as CreateMaintenance does)');
  const list = await call(p, '/v1/maintenance-windows?page=0');
  assertDecodes(list.body, obj({ maintenanceWindows: arr(go.Maintenance), hasNextPage: bool, total: int }), 'the recorded list');
  assert.deepEqual([list.body.maintenanceWindows.map((w: { uuid: string }) => w.uuid), list.body.hasNextPage, list.body.total], [[created.body.uuid], false, 1]);
  assert.deepEqual((await call(p, '/v1/maintenance-windows?page=1')).body.maintenanceWindows, [], 'a later page is empty');
  assert.ok(Array.isArray((await call(plain, '/v1/maintenance-windows')).body), 'default mode: API.md\'s array');
  assert.equal((await call(plain, '/v1/maintenance-windows', 'POST', { name: 'w', start_date: '2030-01-01T00:00:00Z', end_date: '2030-01-01T01:00:00Z', monitors: [] })).body.name, 'w', 'default mode: the window');
});

test('incidents: create answers 201 {message, uuid} as incident_crud.yaml records it, with the whole incident', async () => {
  const sp = (await call(p, '/v2/statuspages', 'POST', { name: 'Hosted' })).body.statuspage.uuid;
  const created = await call(p, '/v3/incidents', 'POST', { title: { en: 'VCR Test Incident' }, text: { en: 'This is a test incident' }, type: 'incident', statuspages: [sp] });
  assert.equal(created.status, 201, created.text);
  assertDecodes(created.body, obj({ message: str, uuid: str }), 'recorded create answer');
  assert.equal(created.body.message, 'Incident created successfully', 'the recorded message');
  assertDecodes(created.body, go.Incident, 'Go CreateIncident decodes the POST answer as the whole Incident ("server-side fix, Bug #18")');
  assertDecodes((await call(p, `/v3/incidents/${created.body.uuid}`)).body, go.Incident, 'Go Incident');
  assert.ok((await call(plain, '/v3/incidents', 'POST', { title: { en: 'x' }, type: 'incident', statuspages: [] })).body.title, 'default mode: the incident');
});

test('outages: a manual outage answers 201 as outage_crud.yaml records it', async () => {
  const created = await call(p, '/v2/outages', 'POST', { description: 'Manual outage for contract testing', outageType: 'manual' });
  assert.equal(created.status, 201, created.text);
  assertDecodes(created.body, goWrap.outageCreate, 'Go {message, outage}');
  assert.equal((await call(plain, '/v2/outages', 'POST', { description: 'x' })).status, 200, 'default mode: 200 as API.md says');
});

test('monitors: delete answers 204 with an empty body, as monitor_crud.yaml records it', async () => {
  const m = (await call(p, '/v1/monitors', 'POST', { name: 'gone', url: 'http://127.0.0.1:9/', paused: true })).body;
  const del = await call(p, `/v1/monitors/${m.uuid}`, 'DELETE');
  assert.deepEqual([del.status, del.text], [204, '']);
  assert.equal((await call(p, `/v1/monitors/${m.uuid}`, 'DELETE')).status, 404);
  const other = (await call(plain, '/v1/monitors', 'POST', { name: 'gone', url: 'http://127.0.0.1:9/', paused: true })).body;
  assert.equal((await call(plain, `/v1/monitors/${other.uuid}`, 'DELETE')).status, 200, 'default mode: 200 {message}');
});

test('validation errors answer 422 {message} (monitor_validation_error.yaml); malformed JSON stays 400', async () => {
  const bad = await call(p, '/v1/monitors', 'POST', { name: 'vcr-test-invalid', url: 'not-a-valid-url', protocol: 'http', http_method: 'GET', check_frequency: 60, regions: ['london'], expected_status_code: '200' });
  assert.equal(bad.status, 422, bad.text);
  assert.match(bad.body.message, /^url: /);
  assert.equal(bad.body.error, bad.body.message);
  assert.equal((await call(p, '/v2/statuspages', 'POST', { name: 'x', description: { klingon: 'x' } })).status, 422, 'a refused field anywhere');
  const malformed = await p.api('/v1/monitors', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name":' });
  assert.equal(malformed.status, 400, 'not JSON at all: still 400');
  assert.equal((await call(p, '/v1/monitors/mon_nope')).status, 404);
  assert.equal((await call(plain, '/v1/monitors', 'POST', { name: 'x', url: 'not-a-valid-url' })).status, 400, 'default mode: 400');
});
