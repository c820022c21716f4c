import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';

// Issue #30 points 5 and 6: the cases the fuzz found, one by one. A NUL character (U+0000) in any text
// input is refused at the edge (PostgreSQL cannot store it in `text`: it was an anonymous 500 there),
// and JSON nested deeper than 64 levels is refused before anything walks it (a stack overflow: 500).
let p: TestPharos;
before(async () => {
  p = await startTestPharos({ public_url: 'http://127.0.0.1' });
});
after(() => p.cleanup());

/** Asserts a 400 in the API's error shape whose message matches `message`; returns the body. */
async function refused(res: Response, message: RegExp, what: string) {
  const text = await res.text();
  assert.equal(res.status, 400, `${what}: ${res.status} ${text.slice(0, 300)}`);
  const body = JSON.parse(text);
  assert.equal(typeof body.error, 'string', text);
  assert.equal(body.message, body.error);
  assert.match(body.error, message, what);
  return body;
}

const NUL = /must not contain the NUL character \(U\+0000\)/;

describe('NUL (U+0000) in any text input → 400 naming where (point 5)', () => {
  test('in the path (decoded): status pages, SSO metadata, API resources, console', async () => {
    for (const path of ['/status/%00', '/status/a%00b/history', '/sso/saml/sso_%00/metadata', '/sso/begin/%00', '/v1/monitors/mon_%00', '/v2/outages/%00/timeline', '/monitors/%00', '/login%00']) {
      await refused(await p.api(path, { token: path.startsWith('/v') ? undefined : null }), new RegExp(`^\\(path\\): ${NUL.source}`), path);
    }
  });

  test('in a query parameter (name or value)', async () => {
    const b = await refused(await p.api('/v2/outages?search=a%00b'), new RegExp(`^query\\.search: ${NUL.source}`), 'search');
    assert.deepEqual(b.details, [{ path: 'query.search', message: 'must not contain the NUL character (U+0000)' }]);
    await refused(await p.api('/v2/reporting/monitor-reports?from=2026-01-01%00'), /^query\.from: must not/, 'from');
    await refused(await p.api('/status/x?a%00=1', { token: null }), /^query\.a\\u0000: must not/, 'a query name');
    await refused(await p.api('/sso/oidc/callback?state=%00&code=x', { token: null }), /^query\.state: must not/, 'oidc callback');
  });

  test('in a form field: urlencoded and multipart, anonymous sign-in and subscribe included', async () => {
    const form = (body: string) => ({ method: 'POST', body, token: null, headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://127.0.0.1' } });
    await refused(await p.api('/login', form('email=a%00b%40x.org&password=x')), new RegExp(`^form\\.email: ${NUL.source}`), '/login');
    await refused(await p.api('/status/x/subscribe', form('email=a%00b%40x.org')), /^form\.email: must not/, 'subscribe');
    await refused(await p.api('/sso/saml/sso_x/acs', form('SAMLResponse=%00&RelayState=x')), /^form\.SAMLResponse: must not/, 'acs');
    const multipart = new FormData();
    multipart.set('email', 'a\u0000b@x.org');
    multipart.set('password', 'x');
    await refused(await p.api('/login', { method: 'POST', body: multipart, token: null, headers: { origin: 'http://127.0.0.1' } }), /^form\.email: must not/, 'multipart');
  });

  test('in a cookie (as the server decodes it)', async () => {
    await refused(await p.api('/', { token: null, headers: { cookie: 'pharos_session=a%00b' } }), /^cookie\.pharos_session: must not/, 'console session');
    await refused(await p.api('/status/x', { token: null, headers: { cookie: 'other=1; pharos_page=%00' } }), /^cookie\.pharos_page: must not/, 'page session');
  });

  test('in a JSON body: a string value or a key, at any depth, on every write route; a text/plain body too', async () => {
    const cases: Array<[string, string, unknown, RegExp]> = [
      ['POST', '/v1/monitors', { name: 'a\u0000', url: 'http://127.0.0.1:9/' }, /^name: must not/],
      ['POST', '/v1/monitors', { name: 'x', url: 'http://127.0.0.1:9/', request_headers: [{ name: 'X-A', value: 'a\u0000' }] }, /^request_headers\.0\.value: must not/],
      ['POST', '/v1/monitors', { name: 'x', url: 'http://127.0.0.1:9/', 'k\u0000': 1 }, /^k\\u0000: must not/],
      ['POST', '/v1/healthchecks', { name: '\u0000', period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' }, /^name: must not/],
      ['POST', '/v3/incidents', { title: { en: '\u0000' }, type: 'incident' }, /^title\.en: must not/],
      ['POST', '/v2/statuspages', { name: 'x', subdomain: 'a\u0000' }, /^subdomain: must not/],
      ['POST', '/v1/probes/results', { results: [{ reason: '\u0000' }] }, /^results\.0\.reason: must not/],
    ];
    for (const [method, path, json, message] of cases) await refused(await p.api(path, { method, json }), message, `${path} ${JSON.stringify(json)}`);
    const text = await p.api('/v2/outages', { method: 'POST', json: { description: 'fuzz' } });
    const outage = (await text.json()).outage;
    await refused(await p.api(`/v2/outages/${outage.uuid}/acknowledge`, { method: 'POST', body: '{"message":"a\\u0000"}', headers: { 'content-type': 'text/plain' } }), /^message: must not/, 'a JSON message sent as text/plain');
    assert.equal((await p.api('/v1/monitors')).status, 200);
    assert.deepEqual(await (await p.api('/v1/monitors')).json(), [], 'nothing stored');
  });

  test('well-formed input with no NUL passes: %2500 in a path, "\\\\u0000" as six characters, a NUL-free form', async () => {
    assert.equal((await p.api('/status/%2500', { token: null })).status, 404);
    const ok = await p.api('/v1/monitors', { method: 'POST', json: { name: 'a\\u0000 ✓', url: 'http://127.0.0.1:9/' } });
    assert.equal(ok.status, 201, await ok.clone().text());
    assert.equal((await ok.json()).name, 'a\\u0000 ✓');
    await p.api(`/v1/monitors/${(await (await p.api('/v1/monitors')).json())[0].uuid}`, { method: 'DELETE' });
  });
});

describe('deeply nested JSON → 400, never a stack overflow (point 6)', () => {
  const nest = (depth: number, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);

  test('5,000 deep in a field and a 100,000-deep body, on every JSON write route', async () => {
    const hc = (await (await p.api('/v1/healthchecks', { method: 'POST', json: { name: 'h', period_value: 1, period_type: 'hours', grace_period_value: 5, grace_period_type: 'minutes' } })).json()).healthcheck;
    const routes: Array<[string, string]> = [
      ['POST', '/v1/monitors'], ['POST', '/v1/healthchecks'], ['PUT', `/v1/healthchecks/${hc.uuid}`], ['POST', '/v2/healthchecks'],
      ['POST', '/v2/outages'], ['POST', '/v1/maintenance-windows'], ['POST', '/v3/incidents'], ['POST', '/v1/components'],
      ['POST', '/v2/statuspages'], ['POST', '/v1/sso-connections'], ['POST', '/v1/probes/results'], ['POST', '/v1/probes/poll'],
    ];
    for (const [method, path] of routes) {
      const field = `{"name":${nest(5000)},"regions":["london"]}`;
      await refused(await p.api(path, { method, body: field, headers: { 'content-type': 'application/json' } }), /^name(\.0)+: must not nest deeper than 64 levels/, `${path} 5,000 deep in a field`);
      await refused(await p.api(path, { method, body: nest(100_000), headers: { 'content-type': 'application/json' } }), /^0(\.0)+: must not nest deeper than 64 levels/, `${path} 100,000 deep`);
      const objects = '{"a":'.repeat(70) + '1' + '}'.repeat(70);
      await refused(await p.api(path, { method, body: objects, headers: { 'content-type': 'application/json' } }), /^a(\.a)+: must not nest deeper/, `${path} 70 deep objects`);
    }
  });

  test('64 levels pass the edge (the route then judges the shape)', async () => {
    const res = await p.api('/v1/monitors', { method: 'POST', body: `{"name":${nest(63, '"x"')},"url":"http://127.0.0.1:9/"}`, headers: { 'content-type': 'application/json' } });
    const body = await refused(res, /^name: /, '63 deep under the body');
    assert.doesNotMatch(body.error, /nest/);
  });
});

describe('a ping body with NUL bytes is stored, never lost (found by the fuzz: 503 on PostgreSQL)', () => {
  test('NUL bytes in a ping body become U+FFFD (as invalid UTF-8 already does); the ping counts', async () => {
    const hc = (await (await p.api('/v1/healthchecks', { method: 'POST', json: { name: 'nul', period_value: 1, period_type: 'hours', grace_period_value: 5, grace_period_type: 'minutes' } })).json()).healthcheck;
    const res = await fetch(`${p.url}/ping/${hc.uuid}/0`, { method: 'POST', body: Buffer.from([0x61, 0x00, 0x62, 0xff, 0x00]) });
    assert.equal(res.status, 200, await res.text());
    const pings = (await (await p.api(`/v1/healthchecks/${hc.uuid}/pings`)).json()).pings;
    assert.equal(pings.length, 1);
    assert.equal(pings[0].body, 'a\ufffdb\ufffd\ufffd');
  });
});

describe('a refused request is answered after its body, so its kept-alive connection serves the next one (found by the fuzz)', () => {
  test('a cookie with NUL on a POST with a half-sent body: no answer until the body is in, then 400, and the same connection answers again', async () => {
    const { connect } = await import('node:net');
    const { port } = new URL(p.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (d) => (received += d.toString('latin1')));
    const body = `email=${'a'.repeat(200_000)}`;
    const half = body.slice(0, 100_000);
    socket.write(`POST /status/x/subscribe HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: pharos_sso=a%00b\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${half}`);
    // A round trip on another connection: the server has had its turn to answer the half-sent request.
    assert.equal((await fetch(`${p.url}/healthz`)).status, 200);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(received, '', 'no answer before the body arrived (an early answer leaves the body to a drain that drops the connection)');
    socket.write(body.slice(half.length));
    socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await new Promise<void>((resolve, reject) => {
      socket.on('data', () => (received.match(/HTTP\/1\.1 /g)?.length === 2 ? resolve() : undefined));
      socket.on('close', () => reject(new Error(`closed: ${received.slice(0, 500)}`)));
    });
    socket.destroy();
    assert.match(received, /^HTTP\/1\.1 400 [^]*cookie\.pharos_sso: must not contain the NUL[^]*HTTP\/1\.1 200 /);
    assert.doesNotMatch(received.split('HTTP/1.1 200')[0]!, /connection: close/i);
  });
});
