import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { arr, assertDecodes, selfCheck } from './clients/shapes.ts';
import { go, goWrap, py } from './clients/types.ts';

// Monitors and healthchecks as the hosted service's clients (Go hyperping-go / the Terraform
// provider, the Python SDK) send and read them: Pharos's JSON checked against their published types.
const POLICY = { uuid: 'ep_oncall', name: 'On call', steps: [{ after_minutes: 0, channels: [] }] };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
async function setup(): Promise<TestPharos> {
  const p = await startTestPharos({ escalation_policies: [POLICY] });
  cleanups.push(() => p.cleanup());
  return p;
}
const json = async (p: TestPharos, path: string, method = 'GET', body?: unknown) => {
  const res = await p.api(path, { method, ...(body === undefined ? {} : { json: body }) });
  return { status: res.status, body: await res.json() };
};

test('the shape checker catches wrong types, missing fields and stray nulls', () => selfCheck());

describe('monitors (Go Monitor, Python Monitor)', () => {
  test('a monitor created as the Go client does decodes in both clients; list too', async () => {
    const p = await setup();
    // CreateMonitorRequest as the Terraform provider fills it.
    const created = await json(p, '/v1/monitors', 'POST', {
      name: 'API',
      url: 'http://127.0.0.1:9/health',
      protocol: 'http',
      http_method: 'GET',
      check_frequency: 60,
      regions: ['london'],
      request_headers: [{ name: 'X-Env', value: 'prod' }],
      follow_redirects: true,
      expected_status_code: '200',
      paused: true,
      alerts_wait: 1,
      escalation_policy: 'ep_oncall',
    });
    assert.equal(created.status, 201);
    assertDecodes(created.body, go.Monitor, 'Go Monitor');
    assertDecodes(created.body, py.Monitor, 'Python Monitor');
    assert.equal(created.body.projectUuid, 'proj_pharos');
    assert.deepEqual(created.body.escalation_policy, { uuid: 'ep_oncall', name: 'On call' });
    const numeric = await json(p, '/v1/monitors', 'POST', { name: 'n', url: 'http://127.0.0.1:9/', expected_status_code: 200, paused: true });
    assert.equal(numeric.body.expected_status_code, '200', 'a number on input is kept as its string');
    const list = await json(p, '/v1/monitors');
    assertDecodes(list.body, arr(go.Monitor), 'Go []Monitor');
    assertDecodes(list.body, arr(py.Monitor), 'Python list[Monitor]');
    assert.notEqual(list.body[0].id, list.body[1].id);
  });

  test('PUT is partial: {"paused": true} pauses and keeps the rest; an invalid merge stores nothing', async () => {
    const p = await setup();
    const m = (await json(p, '/v1/monitors', 'POST', { name: 'Site', url: 'http://127.0.0.1:9/', check_frequency: 10, paused: true, required_keyword: 'ok' })).body;
    const paused = await json(p, `/v1/monitors/${m.uuid}`, 'PUT', { paused: false });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    assertDecodes(paused.body, go.Monitor, 'Go Monitor');
    assert.deepEqual([paused.body.paused, paused.body.name, paused.body.url, paused.body.required_keyword], [false, 'Site', 'http://127.0.0.1:9/', 'ok']);
    const renamed = await json(p, `/v1/monitors/${m.uuid}`, 'PUT', { name: 'Renamed', paused: true });
    assert.deepEqual([renamed.body.name, renamed.body.check_frequency], ['Renamed', 10]);

    // timeout 30 s is valid alone, but not with the stored check_frequency of 10 s.
    const bad = await json(p, `/v1/monitors/${m.uuid}`, 'PUT', { timeout: 30 });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /^timeout: /);
    assert.equal(bad.body.code, 'validation.invalid', 'the AppError code reaches the client');
    const bad2 = await json(p, `/v1/monitors/${m.uuid}`, 'PUT', { name: '' });
    assert.equal(bad2.status, 400);
    const after = (await json(p, `/v1/monitors/${m.uuid}`)).body;
    assert.deepEqual([after.name, after.timeout, after.check_frequency], ['Renamed', 10, 10], 'nothing of a refused PUT is stored');
    const missing = await json(p, '/v1/monitors/mon_nope');
    assert.deepEqual(missing.body, { error: 'Monitor not found', message: 'Monitor not found', code: 'monitors.not_found' });
  });

  test('every error answer carries a dotted code beside error and message', async () => {
    const p = await setup();
    const cases: Array<[Promise<Response>, number, string]> = [
      [p.api('/v1/monitors', { token: null }), 401, 'auth.'],
      [p.api('/v1/monitors', { method: 'PATCH' }), 405, 'request.method_not_allowed'],
      [p.api('/v1/nothing'), 404, 'request.not_found'],
      [p.api('/v1/monitors', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name":' }), 400, 'request.'],
      [p.api('/v1/monitors', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'x' }), 415, 'request.unsupported_media_type'],
      [p.api('/v1/monitors', { method: 'POST', json: { name: 'x' } }), 400, 'validation.invalid'],
    ];
    for (const [pending, status, code] of cases) {
      const res = await pending;
      const body = (await res.json()) as { error: string; message: string; code?: unknown };
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(body.error, body.message);
      assert.ok(typeof body.code === 'string' && body.code.startsWith(code), `${status}: ${JSON.stringify(body)}`);
    }
  });
});

describe('healthchecks (Go Healthcheck on /v2, Python Healthcheck)', () => {
  test('create, get, list, update, pause and resume decode in both clients; lastPing is a date-time', async () => {
    const p = await setup();
    // CreateHealthcheckRequest of both clients' /v2/healthchecks.
    const created = await json(p, '/v2/healthchecks', 'POST', { name: 'backup', period_value: 1, period_type: 'hours', grace_period_value: 5, grace_period_type: 'minutes', escalation_policy: 'ep_oncall' });
    assert.equal(created.status, 201);
    assertDecodes(created.body, goWrap.healthcheckWrite, 'Go {message, healthcheck}');
    assertDecodes(created.body, py.Healthcheck, 'Python Healthcheck (bare)');
    const uuid = created.body.uuid as string;
    assert.equal(created.body.healthcheck.uuid, uuid);
    assert.equal(created.body.grace, 300);

    const pinged = await p.api(`/ping/${uuid}`);
    assert.equal(pinged.status, 200);
    const got = await json(p, `/v2/healthchecks/${uuid}`);
    assertDecodes(got.body, goWrap.healthcheckOne, 'Go {healthcheck}');
    assertDecodes(got.body, py.Healthcheck, 'Python Healthcheck');
    assert.equal(got.body.lastPing, new Date(p.clock.now()).toISOString());
    assert.equal(got.body.tz, got.body.timezone);
    assert.deepEqual({ ...got.body, healthcheck: undefined }, { ...got.body.healthcheck, healthcheck: undefined }, 'the same object at the top and under healthcheck');
    const v1 = await json(p, `/v1/healthchecks/${uuid}`);
    assertDecodes(v1.body, go.Healthcheck, 'Go Healthcheck (v1 bare)');

    const list = await json(p, '/v2/healthchecks');
    assertDecodes(list.body, goWrap.healthcheckList, 'Go list');
    assertDecodes(list.body.healthchecks, arr(py.Healthcheck), 'Python list');

    const renamed = await json(p, `/v2/healthchecks/${uuid}`, 'PUT', { name: 'nightly backup' });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assertDecodes(renamed.body, goWrap.healthcheckWrite, 'Go {message, healthcheck}');
    assertDecodes(renamed.body, py.Healthcheck, 'Python Healthcheck');
    assert.deepEqual([renamed.body.name, renamed.body.period, renamed.body.gracePeriod], ['nightly backup', 3600, 300], 'fields left out are kept');
    const halfMode = await json(p, `/v2/healthchecks/${uuid}`, 'PUT', { period_value: 2 });
    assert.equal(halfMode.body.period, 7200, 'period_value alone keeps the stored period_type');

    const tooShort = await json(p, `/v2/healthchecks/${uuid}`, 'PUT', { grace_period_type: 'seconds' });
    assert.equal(tooShort.status, 400, '5 seconds of grace: the merged healthcheck breaks the 60 s rule');
    assert.match(tooShort.body.error, /^grace_period_value: /);
    assert.equal((await json(p, `/v2/healthchecks/${uuid}`)).body.gracePeriod, 300, 'nothing stored');

    for (const action of ['pause', 'resume']) {
      const r = await p.api(`/v2/healthchecks/${uuid}/${action}`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
      assert.equal(r.status, 200);
      const body = await r.json();
      assertDecodes(body, go.HealthcheckAction, 'Go HealthcheckAction');
      assertDecodes(body, py.Healthcheck, 'Python Healthcheck (pause/resume answer)');
      assert.equal(body.isPaused, action === 'pause');
    }
  });

  test('the Python SDK\'s create body {name, period, grace} (seconds) is read as simple mode', async () => {
    const p = await setup();
    const created = await json(p, '/v2/healthchecks', 'POST', { name: 'py', period: 3600, grace: 300 });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assertDecodes(created.body, py.Healthcheck, 'Python Healthcheck');
    assert.deepEqual([created.body.period, created.body.periodType, created.body.grace, created.body.gracePeriodType], [3600, 'seconds', 300, 'seconds']);
    const updated = await json(p, `/v2/healthchecks/${created.body.uuid}`, 'PUT', { grace: 600 });
    assert.deepEqual([updated.status, updated.body.gracePeriod, updated.body.period], [200, 600, 3600]);
    const short = await json(p, '/v2/healthchecks', 'POST', { name: 'py', period: 3600, grace: 30 });
    assert.equal(short.status, 400);
    assert.match(short.body.error, /^grace_period_value: must be at least 60 seconds/);
  });

  test('a cron healthcheck decodes in Go (period null); the pings endpoint lists the last 100, newest first', async () => {
    const p = await setup();
    const cron = await json(p, '/v2/healthchecks', 'POST', { name: 'cron', cron: '0 3 * * *', timezone: 'Europe/Berlin', grace_period_value: 1, grace_period_type: 'hours' });
    assertDecodes(cron.body, goWrap.healthcheckWrite, 'Go {message, healthcheck}');
    assert.equal(cron.body.period, null, 'no period in cron mode (the Python SDK requires one: docs/api.md "Clients")');
    const uuid = cron.body.uuid as string;
    for (let i = 0; i < 102; i++) {
      assert.equal((await p.api(`/ping/${uuid}${i % 2 ? '/start' : ''}`)).status, 200);
      await p.advance(1000);
    }
    const { body } = await json(p, `/v1/healthchecks/${uuid}/pings`);
    assert.equal(body.pings.length, 100);
    assert.deepEqual([body.pings[0].n, body.pings[99].n], [102, 3], 'newest first, the oldest two dropped');
    assert.equal((await json(p, `/v2/healthchecks/${uuid}`)).body.lastPing, body.pings[0].date);
  });
});
