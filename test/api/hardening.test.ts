import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import sax from 'sax';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';

// Issue #14 points 4–9: hostile requests against a real Pharos over HTTP (loopback only).
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
async function setup(config: Record<string, unknown> = {}): Promise<TestPharos> {
  const p = await startTestPharos(config);
  cleanups.push(() => p.cleanup());
  return p;
}

/** A request with any Host header (fetch does not let a caller choose it). */
function withHost(p: TestPharos, host: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; type: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: p.port, path, headers: { host, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type'] ?? '') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Host header (point 4)', () => {
  test('a Host that is no host name (numeric last label, bad IPv4, bad port, stray characters) gets 400 {error, message} on every route', async () => {
    const p = await setup();
    const bad = ['a.1', 'x.1:8080', '1.2.3.4.5', '256.0.0.1', '[::1', 'host:99999', 'ho/st', '%41.example', 'a b'];
    for (const host of bad) {
      for (const path of ['/healthz', '/v1/monitors', '/status/acme', '/ping/tok_x', '/_pharos/status.css', '/nope']) {
        const r = await withHost(p, host, path, { authorization: 'Bearer test-write-token-0123456789abcdef' });
        assert.equal(r.status, 400, `${host} ${path}`);
        assert.match(r.type, /application\/json/);
        const body = JSON.parse(r.body);
        assert.equal(body.error, body.message);
        assert.match(body.error, /invalid Host header/);
      }
    }
    for (const host of ['localhost', '127.0.0.1:8080', '[::1]:80', 'Status.Example.com', 'my_service:8080']) {
      assert.equal((await withHost(p, host, '/healthz')).status, 200, host);
    }
  });

  test('with an IPv4 public_url, pages answer by path and custom hostname; <subdomain>.<IP> is no host (400, not 500)', async () => {
    const p = await setup({ public_url: 'http://192.0.2.10:8080' });
    const res = await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Acme Status', subdomain: 'acme', hostname: 'status.acme.test' } });
    assert.equal(res.status, 201, await res.clone().text());
    const byHostname = await withHost(p, 'status.acme.test', '/');
    assert.equal(byHostname.status, 200);
    assert.match(byHostname.body, /Acme Status/);
    assert.equal((await withHost(p, '192.0.2.10:8080', '/status/acme')).status, 200);
    assert.equal((await withHost(p, '192.0.2.10:8080', '/healthz')).status, 200);
    assert.equal((await withHost(p, 'acme.192.0.2.10', '/')).status, 400);
    assert.equal((await withHost(p, 'acme.192.0.2.10:8080', '/healthz')).status, 400);
  });
});

describe('Atom feed (point 5)', () => {
  test('incident text is type="text", XML-escaped: crafted titles inject no element, the feed is well-formed', async () => {
    const p = await setup();
    const page = await (await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Acme', subdomain: 'acme' } })).json();
    const title = ']]><b xmlns="http://www.w3.org/1999/xhtml">bold</b>]]><script>alert(1)</script> & "quotes" \u0001';
    const text = 'first ]]> second ]]><img src=x onerror=alert(1)> third';
    const inc = await p.api('/v3/incidents', { method: 'POST', json: { title: { en: title }, type: 'incident', statuspages: [page.statuspage.uuid], updates: [{ text: { en: text }, type: 'investigating' }] } });
    assert.equal(inc.status, 201, await inc.clone().text());
    const xml = await (await fetch(`${p.url}/status/acme/feed.atom`)).text();

    // A strict XML parser reads it; only Atom elements appear, and the texts come back as sent.
    const parser = sax.parser(true, { xmlns: true });
    const elements = new Set<string>();
    const texts = new Map<string, string[]>();
    const stack: Array<{ name: string; attrs: Record<string, string>; text: string }> = [];
    parser.onopentag = (t) => {
      const tag = t as sax.QualifiedTag;
      elements.add(`${tag.uri} ${tag.local}`);
      stack.push({ name: tag.local, attrs: Object.fromEntries(Object.entries(tag.attributes).map(([k, a]) => [k, a.value])), text: '' });
    };
    parser.ontext = (s) => {
      if (stack.length) stack.at(-1)!.text += s;
    };
    parser.onclosetag = () => {
      const e = stack.pop()!;
      if (['title', 'summary', 'content'].includes(e.name)) {
        assert.equal(e.attrs.type, 'text', `${e.name} is type="text"`);
        texts.set(e.name, [...(texts.get(e.name) ?? []), e.text]);
      }
    };
    parser.write(xml).close();
    assert.deepEqual([...elements].filter((e) => !e.startsWith('http://www.w3.org/2005/Atom ')), [], 'no element outside the Atom namespace');
    assert.equal(texts.get('title')![1], title.replace('\u0001', ''), 'the entry title, as written (minus a control character XML cannot carry)');
    assert.match(texts.get('content')![0]!, /first \]\]> second \]\]><img src=x onerror=alert\(1\)> third/);
  });
});

describe('well-formed strings and request headers (point 6)', () => {
  test('an unpaired surrogate in any string field (or key) of a JSON body → 400 naming the field; nothing stored; GET stays valid JSON', async () => {
    const p = await setup();
    const cases: Array<[string, string, string, RegExp]> = [
      ['POST', '/v1/monitors', '{"name":"\\ud800","url":"http://127.0.0.1:9/"}', /^name: must be well-formed Unicode/],
      ['POST', '/v1/monitors', '{"name":"x","url":"http://127.0.0.1:9/","request_headers":[{"name":"X-A","value":"a\\udc00b"}]}', /^request_headers\.0\.value: must be well-formed/],
      ['POST', '/v1/monitors', '{"name":"x","url":"http://127.0.0.1:9/","\\ud800":1}', /must be well-formed/],
      ['POST', '/v1/healthchecks', '{"name":"\\udfff","period_value":1,"period_type":"days","grace_period_value":1,"grace_period_type":"hours"}', /^name: must be well-formed/],
      ['POST', '/v3/incidents', '{"title":{"en":"\\ud83d"},"type":"incident","statuspages":[]}', /^title\.en: must be well-formed/],
    ];
    for (const [method, path, body, message] of cases) {
      const res = await p.api(path, { method, body, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400, `${path} ${body}`);
      assert.match((await res.json()).error, message);
    }
    const ok = await p.api('/v1/monitors', { method: 'POST', json: { name: 'Café 😀', url: 'http://127.0.0.1:9/' } });
    assert.equal(ok.status, 201, 'well-formed non-ASCII (a surrogate pair) is fine');
    const list = await (await p.api('/v1/monitors')).text();
    assert.doesNotThrow(() => JSON.parse(list));
    assert.equal(JSON.parse(list).length, 1);
    assert.ok(list.isWellFormed());
  });

  test('request_headers: names at most 256 characters, values visible ASCII/obs-text only', async () => {
    const p = await setup();
    const post = (headers: unknown) => p.api('/v1/monitors', { method: 'POST', json: { name: 'h', url: 'http://127.0.0.1:9/', request_headers: headers } });
    const refused: Array<[unknown, RegExp]> = [
      [[{ name: 'X'.repeat(257), value: 'a' }], /^request_headers\.0\.name: must be at most 256 characters/],
      [[{ name: 'X'.repeat(512 * 1024), value: 'a' }], /^request_headers\.0\.name: must be at most 256/], // (a 1 MB name is a body over the 1 MiB limit: 413)
      [[{ name: 'X-Emoji', value: 'a😀' }], /^request_headers\.0\.value: must be visible ASCII, spaces, tabs or obs-text/],
      [[{ name: 'X-Del', value: 'a\u007f' }], /value: must be visible ASCII/],
      [[{ name: 'X-Bell', value: 'a\u0007' }], /value: must be visible ASCII/],
      [[{ name: 'X-Wide', value: 'Ā' }], /value: must be visible ASCII/],
    ];
    for (const [headers, message] of refused) {
      const res = await post(headers);
      assert.equal(res.status, 400, JSON.stringify(headers).slice(0, 80));
      assert.match((await res.json()).error, message);
    }
    for (const headers of [[{ name: 'X'.repeat(256), value: 'a' }], [{ name: 'X-Latin1', value: 'caf\u00e9 \t ~!' }]]) assert.equal((await post(headers)).status, 201);
  });
});

describe('report windows (point 7)', () => {
  test('strict ISO 8601 with a range: garbage and out-of-range dates → 400 naming the field, never 500', async () => {
    const p = await setup();
    const m = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'r', url: 'http://127.0.0.1:9/' } })).json();
    const bad: Array<[string, RegExp]> = [
      ['to=-271821-04-20T00:00:00Z', /^to: must be an ISO 8601 date-time/],
      ['from=hello%201', /^from: must be an ISO 8601 date-time/],
      ['from=2026-02-30T00:00:00Z', /^from: must be an ISO 8601/],
      ['from=2026-03-01T00:00:00', /^from: must be an ISO 8601 date-time with Z or an offset/],
      ['from=1969-12-31T23:59:59Z', /^from: must lie between 1970-01-01 and 9999-12-31/],
      ['to=1', /^to: must be an ISO 8601/],
    ];
    for (const path of ['/v2/reporting/monitor-reports', `/v2/reporting/monitor-reports/${m.uuid}`]) {
      for (const [q, message] of bad) {
        const res = await p.api(`${path}?${q}`);
        assert.equal(res.status, 400, `${path}?${q}`);
        assert.match((await res.json()).error, message);
      }
    }
    for (const q of ['from=2025-12-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'from=2025-12-01&to=2026-01-01', 'from=2025-12-01T00:00%2B02:00', 'to=9999-12-31T00:00:00Z']) {
      assert.equal((await p.api(`/v2/reporting/monitor-reports/${m.uuid}?${q}`)).status, 200, q);
    }
  });
});

describe('unknown assets and routes (point 8)', () => {
  test('GET of an unknown file under a GET route is 404, not 405; a wrong method is still 405', async () => {
    const p = await setup();
    for (const path of ['/docs/assets/package.json', '/docs/assets/..%2F..%2Fpackage.json', '/_pharos/fonts/nope.woff2']) {
      const res = await fetch(p.url + path);
      assert.equal(res.status, 404, path);
    }
    assert.equal((await fetch(`${p.url}/docs/assets/swagger-ui.css`)).status, 200);
    const wrong = await fetch(`${p.url}/docs/assets/swagger-ui.css`, { method: 'DELETE' });
    assert.equal(wrong.status, 405);
    assert.match(wrong.headers.get('allow') ?? '', /GET/);
  });
});

describe('pings (point 9)', () => {
  test('a large POST to an unknown ping token is answered 404 before its body is read, and the connection closed', { timeout: 15_000 }, async () => {
    const p = await setup();
    const hc = (await (await p.api('/v1/healthchecks', { method: 'POST', json: { name: 'n', period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' } })).json()).healthcheck;
    const attempt = (token: string, method = 'POST') =>
      new Promise<string>((resolve, reject) => {
        const s = connect(p.port, '127.0.0.1', () => {
          s.write(`${method} /ping/${token} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 1073741824\r\n\r\n`);
          s.write(Buffer.alloc(64 * 1024, 97));
          // Nothing more is sent: only an answer that does not wait for the body can arrive.
        });
        let data = '';
        s.on('data', (c) => (data += c));
        s.on('close', () => resolve(data));
        s.on('error', reject);
      });
    for (const [token, method] of [['tok_doesnotexist0000000000', 'POST'], ['tok_doesnotexist0000000000', 'GET'], ['not a token', 'POST']] as const) {
      const answer = await attempt(encodeURIComponent(token), method);
      assert.match(answer, /^HTTP\/1\.1 404 /, `${method} ${token}`);
      assert.match(answer, /connection: close/i);
    }
    assert.equal((await fetch(`${p.url}/ping/${hc.uuid}`, { method: 'POST', body: 'x'.repeat(20_000) })).status, 200, 'a known token still takes (and cuts) a body');
  });
});
