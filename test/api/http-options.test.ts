import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { upDownRecover } from '../support/monitor-flow.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';
import { selfSigned, testCa } from '../support/certs.ts';
import { plainServer, proxyServer, tlsServer, tokenServer, type LocalServer } from '../support/http-options.ts';
import { setupAdmin } from '../support/console.ts';

// Issue 36, HTTP options Kuma users rely on, each against a real local server: a self-signed HTTPS
// target, a CONNECT/forwarding proxy with a password, an mTLS server requiring a client certificate
// from a local CA, a local OAuth2 token endpoint. Each option: up, down with the reason, recovery;
// bad bodies are 400s naming the field; secrets never read back; the console form and OpenAPI show them.
const dir = mkdtempSync(join(tmpdir(), 'pharos-http-options-'));
const self = selfSigned(dir, 'IP:127.0.0.1');
const ca = testCa(dir);
const serverLeaf = ca.leaf('mtls-server', 'IP:127.0.0.1', -1, 30);
const clientLeaf = ca.leaf('pharos-client', 'DNS:pharos-client', -1, 30);

let p: TestPharos;
let target: HttpTarget;
const servers: LocalServer[] = [];
before(async () => {
  p = await startTestPharos();
  target = await httpTarget();
});
after(async () => {
  await p?.cleanup();
  await target?.stop();
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});
const keep = <S extends LocalServer>(s: S): S => (servers.push(s), s);
const create = (json: Record<string, unknown>) => p.api('/v1/monitors', { method: 'POST', json: { check_frequency: 60, paused: true, ...json } });

describe('HTTP options (issue 36)', () => {
  test('ignore_tls_errors: a self-signed HTTPS target is down for its certificate by default, up when ignored', async () => {
    let healthy = true;
    const s = keep(await tlsServer(self.key, self.cert, undefined, (_req, res) => void res.writeHead(healthy ? 200 : 503).end('ok')));
    const strict = await (await create({ name: 'Proxmox strict', url: s.url, paused: false })).json();
    await p.advance(p.scheduler.nextDueAt(p.store.monitors.get(strict.uuid)!.id)! - p.clock.now());
    await p.advance(3_000);
    await p.advance(3_000);
    assert.equal((await (await p.api(`/v1/monitors/${strict.uuid}`)).json()).status, 'down', 'self-signed refused by default');
    const outage = (await (await p.api('/v2/outages')).json()).outages.find((o: { monitor: { uuid: string } | null }) => o.monitor?.uuid === strict.uuid);
    assert.equal(outage.description, 'TLS error: DEPTH_ZERO_SELF_SIGNED_CERT');
    const m = await upDownRecover(p, { name: 'Proxmox', url: s.url, ignore_tls_errors: true }, {
      breakIt: () => void (healthy = false),
      reason: 'Expected 2xx, got 503',
      fixIt: () => void (healthy = true),
    });
    assert.equal(m.ignore_tls_errors, true);
  });

  test('upside_down: up while the target fails, down saying so when it answers', async () => {
    target.respond(503);
    const m = await upDownRecover(p, { name: 'Must be off', url: target.url, upside_down: true }, {
      breakIt: () => target.respond(200),
      reason: 'Upside-down mode: the check passed (HTTP 200), so the monitor is down',
      fixIt: () => target.respond(503),
    });
    assert.equal(m.upside_down, true);
    target.respond(200);
  });

  test('keyword_absent: down while the forbidden keyword appears', async () => {
    target.respond(200, 'all good');
    await upDownRecover(p, { name: 'No errors', url: target.url, required_keyword: 'error', keyword_absent: true }, {
      breakIt: () => target.respond(200, 'fatal error'),
      reason: 'Keyword "error" found (it must not appear)',
      fixIt: () => target.respond(200, 'all good'),
    });
    const bad = await create({ name: 'x', url: target.url, keyword_absent: true });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).message, /^required_keyword: /);
  });

  test('expected_status_code takes a list: 200-299,301,501', async () => {
    target.respond(501);
    const m = await upDownRecover(p, { name: 'Codes', url: target.url, expected_status_code: '200-299, 301,501', follow_redirects: false }, {
      breakIt: () => target.respond(500),
      reason: 'Expected 200-299,301,501, got 500',
      fixIt: () => target.respond(301),
    });
    assert.equal(m.expected_status_code, '200-299,301,501');
    target.respond(200, 'ok');
    for (const ok of [200, '2xx', '1xx-3xx', '200-204']) assert.equal((await create({ name: 'ok', url: target.url, expected_status_code: ok })).status, 201, String(ok));
    for (const bad of ['200,', '200-299,abc', '299-200,301']) {
      const res = await create({ name: 'bad', url: target.url, expected_status_code: bad });
      assert.equal(res.status, 400, bad);
      assert.match((await res.json()).message, /^expected_status_code: /);
    }
  });

  test('proxy_url: http:// and https:// targets through a proxy with a password; the password is never read back', async () => {
    const proxy = keep(await proxyServer('pharos', 'proxy-SECRET-42'));
    const tlsTarget = keep(await tlsServer(self.key, self.cert));
    const proxyUrl = `http://pharos:proxy-SECRET-42@127.0.0.1:${proxy.port}`;
    const before = proxy.hits;
    const m = await upDownRecover(p, { name: 'Via proxy', url: target.url, proxy_url: proxyUrl }, {
      breakIt: () => void (proxy.down = true),
      reason: 'Expected 2xx, got 502',
      fixIt: () => void (proxy.down = false),
    });
    assert.ok(proxy.hits > before, 'the checks went through the proxy');
    assert.equal(m.proxy_url, `http://pharos:***@127.0.0.1:${proxy.port}`);
    const read = await (await p.api(`/v1/monitors/${m.uuid}`)).text();
    assert.ok(!read.includes('proxy-SECRET-42'), 'the proxy password is masked');
    // https:// through a CONNECT tunnel (self-signed target: ignore_tls_errors)
    const tunnels = proxy.hits;
    await upDownRecover(p, { name: 'Tunnel', url: tlsTarget.url, proxy_url: proxyUrl, ignore_tls_errors: true }, {
      breakIt: () => void (proxy.down = true),
      reason: 'Proxy refused the tunnel: HTTP 502',
      fixIt: () => void (proxy.down = false),
    });
    assert.ok(proxy.hits > tunnels);
    // an https:// proxy (self-signed: ignore_tls_errors covers the proxy's certificate too)
    const secure = keep(await proxyServer('pharos', 'proxy-SECRET-42', self));
    await upDownRecover(p, { name: 'Via https proxy', url: target.url, proxy_url: `https://pharos:proxy-SECRET-42@127.0.0.1:${secure.port}`, ignore_tls_errors: true }, {
      breakIt: () => void (secure.down = true),
      reason: 'Expected 2xx, got 502',
      fixIt: () => void (secure.down = false),
    });
    assert.ok(secure.hits > 0);
    // a wrong password: the proxy's 407 is the reason
    const wrong = await (await create({ name: 'Wrong', url: target.url, proxy_url: `http://pharos:nope@127.0.0.1:${proxy.port}`, paused: false })).json();
    await p.advance(p.scheduler.nextDueAt(p.store.monitors.get(wrong.uuid)!.id)! - p.clock.now());
    await p.advance(3_000);
    await p.advance(3_000);
    const outages = (await (await p.api('/v2/outages')).json()).outages.filter((o: { monitor: { uuid: string } | null }) => o.monitor?.uuid === wrong.uuid);
    assert.equal(outages[0]?.description, 'Proxy authentication failed (HTTP 407)');
    const bad = await create({ name: 'x', url: target.url, proxy_url: 'socks5://127.0.0.1:1080' });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).message, /^proxy_url: /);
  });

  test('mTLS: up with the client certificate, down without it, recovery', async () => {
    const s = keep(await tlsServer(serverLeaf.key, serverLeaf.cert, ca.cert));
    const m = await upDownRecover(p, { name: 'mTLS', url: s.url, ignore_tls_errors: true, tls_client_cert: clientLeaf.cert, tls_client_key: clientLeaf.key, required_keyword: 'hello pharos-client' }, {
      breakIt: async () => {
        const cur = await (await p.api(`/v1/monitors/${uuidOf('mTLS')}`)).json();
        assert.equal(cur.tls_client_key, '***', 'the key is never read back');
        assert.ok(!JSON.stringify(cur).includes('PRIVATE KEY'));
        const res = await p.api(`/v1/monitors/${cur.uuid}`, { method: 'PUT', json: { tls_client_cert: null, tls_client_key: null } });
        assert.equal(res.status, 200, await res.clone().text());
      },
      reason: /certificate|handshake|alert|socket|reset|closed/i,
      fixIt: async () => {
        const res = await p.api(`/v1/monitors/${uuidOf('mTLS')}`, { method: 'PUT', json: { tls_client_cert: clientLeaf.cert, tls_client_key: clientLeaf.key } });
        assert.equal(res.status, 200, await res.clone().text());
      },
    });
    assert.equal(m.tls_client_key, '***');
    const half = await create({ name: 'x', url: s.url, tls_client_cert: clientLeaf.cert });
    assert.equal(half.status, 400);
    assert.match((await half.json()).message, /^tls_client_key: /);
  });

  test('auth: basic and bearer headers; OAuth2 client credentials with a cached token', async () => {
    let wanted = '';
    const seen: string[] = [];
    const api = keep(await plainServer((req, res) => {
      seen.push(req.headers.authorization ?? '');
      res.writeHead(req.headers.authorization === wanted || tokens.valid.has((req.headers.authorization ?? '').replace(/^Bearer /, '')) ? 200 : 401).end();
    }));
    const tokens = keep(await tokenServer('pharos', 'client-SECRET-9'));
    wanted = `Basic ${Buffer.from('ada:pw-SECRET-1').toString('base64')}`;
    await upDownRecover(p, { name: 'Basic', url: api.url, auth_method: 'basic', auth_username: 'ada', auth_password: 'pw-SECRET-1' }, {
      breakIt: () => void (wanted = 'Basic other'),
      reason: 'Expected 2xx, got 401',
      fixIt: () => void (wanted = `Basic ${Buffer.from('ada:pw-SECRET-1').toString('base64')}`),
    });
    wanted = 'Bearer tk-SECRET-2';
    const bearer = await upDownRecover(p, { name: 'Bearer', url: api.url, auth_method: 'bearer', auth_token: 'tk-SECRET-2' }, {
      breakIt: () => void (wanted = 'Bearer other'),
      reason: 'Expected 2xx, got 401',
      fixIt: () => void (wanted = 'Bearer tk-SECRET-2'),
    });
    assert.equal(bearer.auth_token, '***');
    wanted = 'nothing';
    const oauth = { name: 'OAuth', url: api.url, auth_method: 'oauth2_client_credentials', oauth2_token_url: tokens.url + 'token', oauth2_client_id: 'pharos', oauth2_client_secret: 'client-SECRET-9', oauth2_scope: 'status:read' };
    // revoked token and a refusing endpoint: down; the 401 drops the cached token, so recovery fetches a new one
    const m = await upDownRecover(p, oauth, {
      breakIt: () => {
        tokens.valid.clear();
        tokens.refuse = true;
      },
      reason: 'OAuth2 token request failed: invalid_client',
      fixIt: () => void (tokens.refuse = false),
    });
    assert.equal(tokens.issued, 2, 'one token before the outage, a fresh one after the 401');
    await p.advance(p.scheduler.nextDueAt(p.store.monitors.get(m.uuid as string)!.id)! - p.clock.now());
    await p.core.checks.flush();
    assert.equal(tokens.issued, 2, 'the token is cached until it expires');
    assert.equal((await (await p.api(`/v1/monitors/${m.uuid}`)).json()).status, 'up');
    assert.deepEqual(tokens.scopes, ['status:read', 'status:read']);
    assert.equal(m.oauth2_client_secret, '***');
    const all = await (await p.api('/v1/monitors')).text();
    for (const secret of ['pw-SECRET-1', 'tk-SECRET-2', 'client-SECRET-9']) assert.ok(!all.includes(secret), `${secret} is masked`);
    // a wrong client secret: the token endpoint's error is the reason
    const wrong = await (await create({ ...oauth, name: 'Wrong OAuth', oauth2_client_secret: 'nope', paused: false })).json();
    await p.advance(p.scheduler.nextDueAt(p.store.monitors.get(wrong.uuid)!.id)! - p.clock.now());
    await p.advance(3_000);
    await p.advance(3_000);
    const outages = (await (await p.api('/v2/outages')).json()).outages.filter((o: { monitor: { uuid: string } | null }) => o.monitor?.uuid === wrong.uuid);
    assert.equal(outages[0]?.description, 'OAuth2 token request failed: invalid_client');
    for (const [body, field] of [
      [{ auth_method: 'basic' }, 'auth_username'],
      [{ auth_method: 'bearer' }, 'auth_token'],
      [{ auth_method: 'oauth2_client_credentials', oauth2_client_id: 'x', oauth2_client_secret: 'y' }, 'oauth2_token_url'],
      [{ auth_method: 'digest' }, 'auth_method'],
    ] as const) {
      const res = await create({ name: 'x', url: api.url, ...body });
      assert.equal(res.status, 400, field);
      assert.match((await res.json()).message, new RegExp(`^${field}: `));
    }
  });

  test('existing clients are unaffected: a monitor without the options shows none of them', async () => {
    const m = await (await create({ name: 'Plain', url: target.url })).json();
    for (const f of ['ignore_tls_errors', 'upside_down', 'keyword_absent', 'proxy_url', 'tls_client_cert', 'tls_client_key', 'auth_method', 'auth_token', 'oauth2_token_url']) assert.ok(!(f in m), f);
  });

  test('the console form and the OpenAPI document show the options', async () => {
    const admin = await setupAdmin(p);
    const html = (await admin.get('/monitors/new')).html;
    for (const f of ['ignore_tls_errors', 'upside_down', 'keyword_absent', 'proxy_url', 'tls_client_cert', 'tls_client_key', 'auth_method', 'auth_password', 'oauth2_token_url', 'oauth2_client_secret']) assert.match(html, new RegExp(`name="http\\.${f}"`), f);
    // the form posts (JavaScript off): upside-down and a bearer token; the token is never shown again
    const common = { name: 'Form options', protocol: 'http', url: target.url, check_frequency: '60', timeout: '2', regions: ['london'], alerts_wait: '0', escalation_policy: '', port: '' };
    const posted = await admin.post('/monitors', {
      ...httpFields(html),
      ...common,
      'http.upside_down': 'on',
      'http.auth_method': 'bearer',
      'http.auth_token': 'form-SECRET-77',
    });
    assert.equal(posted.status, 303, posted.html.slice(0, 500));
    const uuid = /\/(mon_[0-9A-Za-z]{22})$/.exec(posted.headers.get('location') ?? '')![1]!;
    const saved = await (await p.api(`/v1/monitors/${uuid}`)).json();
    assert.equal(saved.upside_down, true);
    assert.equal(saved.auth_method, 'bearer');
    assert.equal(saved.auth_token, '***');
    const edit = (await admin.get(`/monitors/${uuid}/edit`)).html;
    assert.ok(!edit.includes('form-SECRET-77'), 'the edit form does not show the token');
    const again = await admin.post(`/monitors/${uuid}`, { ...httpFields(edit), ...common });
    assert.equal(again.status, 303, again.html.slice(0, 500));
    assert.equal((await p.core.monitors.get(uuid)).settings.auth_token, 'form-SECRET-77', 'the edit form sends *** back and keeps the token');
    const doc = JSON.stringify(await (await fetch(`${p.url}/openapi.json`)).json());
    for (const f of ['ignore_tls_errors', 'upside_down', 'keyword_absent', 'proxy_url', 'tls_client_key', 'oauth2_client_credentials']) assert.ok(doc.includes(f), f);
  });
});

/** The http fieldset's values as a browser with JavaScript off posts them. */
function httpFields(html: string): Record<string, string> {
  const form: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="(?:text|number)" name="(http\.[a-z_0-9]+)" value="([^"]*)"/g)) form[m[1]!] = m[2]!;
  for (const m of html.matchAll(/<input type="checkbox" name="(http\.[a-z_0-9]+)" checked=""/g)) form[m[1]!] = 'on';
  for (const m of html.matchAll(/<select name="(http\.[a-z_0-9]+)">([\s\S]*?)<\/select>/g)) form[m[1]!] = /<option value="([^"]*)" selected=""/.exec(m[2]!)?.[1] ?? '';
  for (const m of html.matchAll(/<textarea name="(http\.[a-z_0-9]+)"[^>]*>([^<]*)<\/textarea>/g)) form[m[1]!] = m[2]!;
  return form;
}

const names = new Map<string, string>();
/** The uuid of the monitor named `name` (looked up once). */
function uuidOf(name: string): string {
  if (!names.has(name)) {
    const row = p.store.monitors.list().find((m: { name: string }) => m.name === name);
    names.set(name, row!.uuid);
  }
  return names.get(name)!;
}
