import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';

let p: TestPharos;
let readToken: string;

before(async () => {
  p = await startTestPharos({
    escalation_policies: [{ uuid: 'ep_oncall', name: 'On call', steps: [{ after_minutes: 0, channels: [] }] }],
  });
  readToken = (await p.core.users.createToken({ email: 'viewer@example.com', name: 'Viewer', scope: 'read' }, { type: 'system', id: 'test', name: 'test' })).token;
});
after(() => p.cleanup());

const create = (json: unknown) => p.api('/v1/monitors', { method: 'POST', json });

describe('monitors CRUD', () => {
  test('create applies API.md defaults and returns 201 with the full monitor', async () => {
    const res = await create({ name: 'Site', url: 'https://example.com/health' });
    assert.equal(res.status, 201);
    const m = await res.json();
    assert.match(m.uuid, /^mon_[0-9A-Za-z]{22}$/);
    assert.ok(Number.isInteger(m.id) && m.id > 0, 'numeric id for the hosted service\'s clients');
    assert.deepEqual(
      { ...m, uuid: undefined, id: undefined, sort_order: undefined },
      {
        uuid: undefined,
        id: undefined,
        sort_order: undefined,
        projectUuid: 'proj_pharos',
        name: 'Site',
        url: 'https://example.com/health',
        protocol: 'http',
        http_method: 'GET',
        check_frequency: 30,
        regions: ['london'],
        status: 'up',
        paused: false,
        expected_status_code: '2xx',
        required_keyword: null,
        follow_redirects: true,
        port: null,
        ssl_expiration: null,
        alerts_wait: 0,
        escalation_policy: null,
        request_headers: [],
        request_body: null,
        timeout: 10,
        public_badges: false,
        tags: [],
        group: null,
        group_id: null,
        depends_on: [],
        show_url: false,
      },
    );
  });

  test('get, list, update keeping left-out fields, delete', async () => {
    const m = await (await create({ name: 'A', url: 'http://127.0.0.1:9/', check_frequency: 60, regions: ['paris', 'tokyo'], escalation_policy: 'ep_oncall', request_headers: [{ name: 'X-Key', value: 'v' }], expected_status_code: 200 })).json();
    assert.deepEqual(m.escalation_policy, { uuid: 'ep_oncall', name: 'On call' });
    assert.equal(m.expected_status_code, '200');
    const got = await (await p.api(`/v1/monitors/${m.uuid}`)).json();
    assert.deepEqual(got, m);
    const list = await (await p.api('/v1/monitors')).json();
    assert.ok(list.some((x: { uuid: string }) => x.uuid === m.uuid));

    const put = await p.api(`/v1/monitors/${m.uuid}`, { method: 'PUT', json: { name: 'B', url: 'http://127.0.0.1:10/', paused: true } });
    assert.equal(put.status, 200);
    const u = await put.json();
    assert.equal(u.name, 'B');
    assert.equal(u.paused, true);
    assert.equal(u.check_frequency, 60, 'left-out fields keep their value');
    assert.deepEqual(u.regions, ['paris', 'tokyo']);
    assert.deepEqual(u.request_headers, [{ name: 'X-Key', value: '***' }], 'kept, its value masked on reads (issue 30)');
    assert.deepEqual((await p.core.monitors.get(m.uuid)).settings.request_headers, [{ name: 'X-Key', value: 'v' }]);

    const unlinked = await (await p.api(`/v1/monitors/${m.uuid}`, { method: 'PUT', json: { name: 'B', url: 'http://127.0.0.1:10/', escalation_policy: 'none' } })).json();
    assert.equal(unlinked.escalation_policy, null);

    const del = await p.api(`/v1/monitors/${m.uuid}`, { method: 'DELETE' });
    assert.equal(del.status, 200);
    assert.ok((await del.json()).message);
    assert.equal((await p.api(`/v1/monitors/${m.uuid}`)).status, 404);
  });

  test('unknown uuid → 404 with {error, message}', async () => {
    for (const [method, json] of [['GET', undefined], ['PUT', { name: 'x', url: 'http://a.b' }], ['DELETE', undefined]] as const) {
      const res = await p.api('/v1/monitors/mon_doesnotexist', { method, json });
      assert.equal(res.status, 404, method);
      const body = await res.json();
      assert.equal(body.error, body.message);
      assert.match(body.error, /not found/i);
    }
  });
});

describe('validation: every rule answers 400 naming the field', () => {
  const base = { name: 'V', url: 'http://127.0.0.1:1/' };
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['missing name', { url: 'http://a.b' }, /^name: is required/],
    ['missing url', { name: 'x' }, /^url: is required/],
    ['empty name', { ...base, name: '  ' }, /^name: must not be empty/],
    ['bad protocol', { ...base, protocol: 'ftp' }, /^protocol: must be one of http, port, icmp/],
    ['bad method', { ...base, http_method: 'TRACE' }, /^http_method: must be one of GET/],
    ['bad frequency', { ...base, check_frequency: 15 }, /^check_frequency: must be one of 10, 20, 30/],
    ['frequency as string', { ...base, check_frequency: '30' }, /^check_frequency: must be a number/],
    ['bad alerts_wait', { ...base, alerts_wait: 4 }, /^alerts_wait: must be one of -1, 0, 1/],
    ['unknown region', { ...base, regions: ['mars'] }, /^regions\.0: must be one of sanfrancisco/],
    ['empty regions', { ...base, regions: [] }, /^regions: must name at least one region/],
    ['repeated region', { ...base, regions: ['paris', 'paris'] }, /^regions: must not repeat/],
    ['bad status pattern', { ...base, expected_status_code: '2x' }, /^expected_status_code: must be a status code/],
    ['status 600', { ...base, expected_status_code: 600 }, /^expected_status_code: /],
    ['port out of range', { ...base, protocol: 'port', port: 70000 }, /^port: must be an integer from 1 to 65535/],
    ['port missing', { name: 'p', url: 'db.local', protocol: 'port' }, /^port: is required for protocol "port"/],
    ['follow_redirects not boolean', { ...base, follow_redirects: 'yes' }, /^follow_redirects: must be a boolean/],
    ['paused not boolean', { ...base, paused: 1 }, /^paused: must be a boolean/],
    ['header name', { ...base, request_headers: [{ name: 'Bad Header', value: 'x' }] }, /^request_headers\.0\.name: must be a valid HTTP header name/],
    ['header value newline', { ...base, request_headers: [{ name: 'X', value: 'a\r\nb' }] }, /^request_headers\.0\.value: must not contain line breaks/],
    ['headers not array', { ...base, request_headers: 'X: y' }, /^request_headers: must be an array/],
    ['timeout > frequency', { ...base, check_frequency: 10, timeout: 20 }, /^timeout: must not be longer than check_frequency/],
    ['timeout 0', { ...base, timeout: 0 }, /^timeout: must be an integer from 1 to 60/],
    ['unknown policy', { ...base, escalation_policy: 'ep_nope' }, /^escalation_policy: unknown escalation policy/],
    ['http url not absolute', { ...base, url: 'example.com' }, /^url: must be an absolute http/],
    ['icmp host invalid', { name: 'i', url: 'bad host!', protocol: 'icmp' }, /^url: must be a host name/],
  ];
  for (const [name, json, expected] of cases) {
    test(name, async () => {
      const res = await create(json);
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.match(body.error, expected);
      assert.equal(body.message, body.error);
    });
  }

  test('malformed JSON → 400; non-object body → 400; wrong content type → 415', async () => {
    const bad = await p.api('/v1/monitors', { method: 'POST', body: '{"name":', headers: { 'Content-Type': 'application/json' } });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error, /Malformed JSON/);
    const arr = await p.api('/v1/monitors', { method: 'POST', json: [1, 2] });
    assert.equal(arr.status, 400);
    const text = await p.api('/v1/monitors', { method: 'POST', body: 'name=x', headers: { 'Content-Type': 'text/plain' } });
    assert.equal(text.status, 415);
  });

  test('unknown fields are ignored', async () => {
    const res = await create({ ...base, colour: 'blue' });
    assert.equal(res.status, 201);
    assert.equal((await res.json()).colour, undefined);
  });

  test('a refused update changes nothing', async () => {
    const m = await (await create(base)).json();
    const res = await p.api(`/v1/monitors/${m.uuid}`, { method: 'PUT', json: { name: 'changed', url: base.url, check_frequency: 10, timeout: 30 } });
    assert.equal(res.status, 400);
    assert.equal((await (await p.api(`/v1/monitors/${m.uuid}`)).json()).name, 'V');
  });

  test('body over 1 MiB → 413', async () => {
    const res = await create({ ...base, request_body: 'x'.repeat(1024 * 1024 + 10) });
    assert.equal(res.status, 413);
    assert.ok((await res.json()).error);
  });
});

describe('authentication and errors', () => {
  test('no token and a wrong token → 401 with WWW-Authenticate', async () => {
    for (const token of [null, 'wrong-token']) {
      const res = await p.api('/v1/monitors', { token });
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
      assert.ok((await res.json()).error);
    }
  });

  test('a read token reads but cannot write (403)', async () => {
    assert.equal((await p.api('/v1/monitors', { token: readToken })).status, 200);
    const res = await p.api('/v1/monitors', { method: 'POST', token: readToken, json: { name: 'x', url: 'http://a.b' } });
    assert.equal(res.status, 403);
    assert.match((await res.json()).error, /read scope/);
    assert.equal((await p.api('/v1/monitors/mon_x', { method: 'DELETE', token: readToken })).status, 403);
  });

  test('unknown route → 404, wrong method → 405 with Allow', async () => {
    assert.equal((await p.api('/v1/nothing-here')).status, 404);
    const res = await p.api('/v1/monitors', { method: 'PATCH', json: {} });
    assert.equal(res.status, 405);
    assert.match(res.headers.get('allow') ?? '', /GET/);
    assert.ok((await res.json()).error);
  });

  test('escalation policies from config are provisioned and listed (issue 32 shape)', async () => {
    const list = await (await p.api('/v1/escalation-policies')).json();
    assert.deepEqual(
      list.map((x: Record<string, unknown>) => ({ uuid: x.uuid, name: x.name, team: x.team, steps: x.steps, repeat_count: x.repeat_count, repeat_every_minutes: x.repeat_every_minutes, provisioned: x.provisioned })),
      [{ uuid: 'ep_oncall', name: 'On call', team: null, steps: [{ delay_minutes: 0, targets: [] }], repeat_count: 0, repeat_every_minutes: null, provisioned: true }],
    );
  });

  test('OpenAPI document and the docs page with its own assets', async () => {
    const doc = await (await p.api('/openapi.json', { token: null })).json();
    assert.equal(doc.openapi, '3.1.0');
    assert.ok(doc.paths['/v1/monitors'].post.requestBody);
    assert.ok(doc.paths['/v2/outages'].get);
    const page = await (await fetch(p.url + '/docs')).text();
    assert.match(page, /\/docs\/assets\/swagger-ui-bundle\.js/);
    const js = await fetch(p.url + '/docs/assets/swagger-ui-bundle.js');
    assert.equal(js.status, 200);
    assert.ok((await js.arrayBuffer()).byteLength > 100_000);
  });
});

describe('protocol settings (issue 17)', () => {
  test('a field of another protocol is refused with 400 naming it; API.md fields stay accepted by port and icmp', async () => {
    const res = await create({ name: 'P', url: '127.0.0.1', protocol: 'port', port: 22, assertions: [], degraded_after_ms: 500, http_method: 'GET' });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.match(body.message, /^assertions, degraded_after_ms: not a setting of protocol "port"$/);
    assert.deepEqual(body.details.map((d: { path: string }) => d.path), ['assertions', 'degraded_after_ms']);
    const ok = await create({ name: 'P', url: '127.0.0.1', protocol: 'port', port: 22, http_method: 'POST', required_keyword: 'x' });
    assert.equal(ok.status, 201);
    assert.equal((await ok.json()).http_method, 'POST');
  });
  test('http assertions and degraded_after_ms are stored and shown only when set', async () => {
    const m = await (await create({ name: 'A', url: 'http://127.0.0.1:9/', assertions: [{ source: 'json', path: '$.status', op: 'equals', value: 'UP' }], degraded_after_ms: 800 })).json();
    assert.deepEqual(m.assertions, [{ source: 'json', path: '$.status', op: 'equals', value: 'UP' }]);
    assert.equal(m.degraded_after_ms, 800);
    const bad = await create({ name: 'A', url: 'http://127.0.0.1:9/', assertions: [{ source: 'header', op: 'lt', value: 'x' }] });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).message, /assertions\.0\.op: must be one of exists, equals, contains, matches for source header/);
  });
});

describe('new protocols in the OpenAPI document, reports and status pages (issue 17)', () => {
  test('the protocol enum and every protocol field come from the registry', async () => {
    const { PROTOCOLS, PROTOCOL_FIELDS } = await import('../../src/protocols/index.ts');
    const doc = await (await p.api('/openapi.json', { token: null })).json();
    const body = doc.paths['/v1/monitors'].post.requestBody.content['application/json'].schema;
    const schema = body.$ref ? doc.components.schemas[body.$ref.split('/').pop()] : body;
    assert.deepEqual(schema.properties.protocol.enum, PROTOCOLS);
    for (const f of PROTOCOL_FIELDS.keys()) assert.ok(schema.properties[f], `${f} is documented`);
    assert.deepEqual(doc.components.schemas.Monitor.properties.protocol.enum, PROTOCOLS);
  });
  test('a report and a status page show a dns monitor like any other', async () => {
    const m = await (await create({ name: 'Zone apex', url: 'example.lan', protocol: 'dns', dns_record_type: 'SOA', paused: true })).json();
    const report = await p.api(`/v2/reporting/monitor-reports/${m.uuid}`);
    assert.equal(report.status, 200);
    assert.equal((await report.json()).protocol, 'dns');
    const sp = await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Infra', subdomain: 'infra', sections: [{ name: 'DNS', services: [{ monitor_uuid: m.uuid }] }] } });
    assert.equal(sp.status, 201);
    assert.match(await (await fetch(`${p.url}/status/infra`)).text(), /Zone apex/);
  });
});
