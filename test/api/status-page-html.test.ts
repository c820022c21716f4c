import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { statusFixture, type StatusFixture } from '../support/status-fixture.ts';

// Public status pages over real HTTP (no browser): statuses, escaping, CSP, what a page exposes,
// the password wall, host routing, feeds. Browser behaviour is in test/browser/.
const DAY = 86_400_000;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
async function setup(page: Record<string, unknown> = {}, config: Record<string, unknown> = {}): Promise<StatusFixture> {
  const f = await statusFixture(page, config);
  cleanups.push(() => f.close());
  return f;
}
const get = (f: StatusFixture, path: string, headers: Record<string, string> = {}) => fetch(f.p.url + path, { headers, redirect: 'manual' });

/** GET with a chosen Host header (fetch may not set it). */
function getWithHost(f: StatusFixture, host: string, path: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${f.p.url}${path}`, { headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('status page HTML', () => {
  test('statuses of services and groups, the banner, 90 bars per service, graphs, escaping and CSP', async () => {
    const f = await setup();
    const res = await get(f, '/status/acme');
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-[A-Za-z0-9+/=]+'/);
    assert.equal(res.headers.get('x-robots-tag'), null);
    const html = await res.text();
    assert.match(html, /data-overall="partial_outage"/);
    const status = (name: string) => new RegExp(`data-service="${name}"[\\s\\S]*?data-status="([a-z_]+)"`).exec(html)?.[1];
    assert.equal(status('Web'), 'operational');
    assert.equal(status('Backend'), 'major_outage', 'a group shows its worst child');
    assert.equal(status('API'), 'major_outage');
    assert.equal(status('Nightly backup'), 'unknown');
    assert.equal(status('Payments provider'), 'degraded');
    assert.equal(status('Search'), 'operational');
    assert.equal(html.match(/class="bar /g)?.length, 90 * 4, '90 bars for each monitor and healthcheck (components have none)');
    assert.match(html, /class="bar l-major" title="[^"]*Jan 1, 2026 · [0-9.]+ % · Down for/);
    assert.equal(html.match(/<svg [^>]*role="img"/g)?.length, 3, 'a response-time graph per monitor');
    assert.ok(!html.includes('Secret admin') && !html.includes('127.0.0.1'), 'nothing but the page services, and never a monitor URL');
    assert.ok(!/<script(?![^>]*nonce=)/.test(html), 'no script without the nonce');
    assert.ok(!html.includes('googletagmanager') && !csp.includes('googletagmanager'), 'no analytics unless set');
    await f.p.api(`/v2/statuspages/${f.page.uuid}`, { method: 'PUT', json: { name: 'Acme Status', google_analytics: 'G-ABC1234' } });
    const ga = await get(f, '/status/acme');
    const nonce = /'nonce-([^']+)'/.exec(ga.headers.get('content-security-policy') ?? '')?.[1];
    assert.match(ga.headers.get('content-security-policy') ?? '', /script-src 'nonce-[^']+' https:\/\/www\.googletagmanager\.com/);
    const gaHtml = await ga.text();
    assert.ok(gaHtml.includes(`src="https://www.googletagmanager.com/gtag/js?id=G-ABC1234" nonce="${nonce}"`), 'the loader carries the nonce');
    assert.ok(gaHtml.includes(`<script nonce="${nonce}">window.dataLayer=`) && gaHtml.includes(`gtag('config','G-ABC1234');</script>`), 'the inline snippet carries the nonce');
  });

  test('user strings are escaped everywhere; hide_from_search_engines sets meta robots and X-Robots-Tag', async () => {
    const f = await setup({ description: '<script>alert("d")</script>', hide_from_search_engines: true });
    const evil = '<script>alert(1)</script>';
    await f.p.api(`/v1/monitors/${f.ids.web}`, { method: 'PUT', json: { name: evil } });
    const inc = await f.p.api('/v3/incidents', { method: 'POST', json: { title: { en: evil }, type: 'incident', statuspages: [f.page.uuid], updates: [{ text: { en: `<img src=x onerror=alert(2)>` }, type: 'investigating' }] } });
    assert.equal(inc.status, 201, await inc.clone().text());
    const res = await get(f, '/status/acme');
    assert.equal(res.headers.get('x-robots-tag'), 'noindex, nofollow');
    const html = await res.text();
    assert.match(html, /<meta name="robots" content="noindex, nofollow"/);
    assert.ok(!html.includes('<script>alert') && !html.includes('<img src=x'));
    assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;') && html.includes('&lt;img src=x onerror=alert(2)&gt;'));
    const history = await (await get(f, '/status/acme/history')).text();
    assert.ok(history.includes('&lt;script&gt;alert(1)') && !history.includes('<script>alert'));
  });

  test('active incidents and maintenance show at the top; history lists resolved incidents', async () => {
    const f = await setup();
    const now = f.p.clock.now();
    await f.p.api('/v3/incidents', { method: 'POST', json: { title: { en: 'Slow logins', de: 'Langsame Anmeldung' }, type: 'incident', statuspages: [f.page.uuid], updates: [{ text: { en: 'Looking into it', de: 'Wir prüfen es' }, type: 'investigating' }] } });
    await f.p.api('/v3/incidents', { method: 'POST', json: { title: { en: 'Old outage' }, type: 'outage', statuspages: [f.page.uuid], updates: [{ text: { en: 'Fixed' }, type: 'resolved' }] } });
    const w = await f.p.api('/v1/maintenance-windows', {
      method: 'POST',
      json: { name: 'db', title: { en: 'Database upgrade' }, start_date: new Date(now - 60_000).toISOString(), end_date: new Date(now + 3_600_000).toISOString(), monitors: [f.ids.web] },
    });
    assert.equal(w.status, 201, await w.clone().text());
    const html = await (await get(f, '/status/acme')).text();
    assert.match(html, /Active incidents[\s\S]*Slow logins[\s\S]*Investigating[\s\S]*Looking into it/);
    assert.ok(!html.includes('Old outage'), 'a resolved incident is not active');
    assert.match(html, /Maintenance in progress[\s\S]*Database upgrade/);
    assert.match(html, /data-service="Web"[\s\S]*?data-status="maintenance"/);
    const de = await (await get(f, '/status/acme?lang=de')).text();
    assert.match(de, /<html lang="de"/);
    assert.match(de, /Langsame Anmeldung[\s\S]*Wir prüfen es/);
    const history = await (await get(f, '/status/acme/history')).text();
    assert.ok(history.includes('Old outage') && history.includes('Slow logins'));
  });

  test('summary.json, feed.atom and badge.svg expose only the page', async () => {
    const f = await setup();
    await f.p.api('/v3/incidents', { method: 'POST', json: { title: { en: 'Slow logins' }, type: 'incident', statuspages: [f.page.uuid] } });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const summary: any = await (await get(f, '/status/acme/summary.json')).json();
    assert.equal(summary.status, 'partial_outage');
    assert.deepEqual(
      summary.services.map((s: { name: string; status: string; group: string | null }) => [s.name, s.status, s.group]),
      [['Web', 'operational', null], ['Backend', 'major_outage', null], ['API', 'major_outage', 'Backend'], ['Nightly backup', 'unknown', 'Backend'], ['Payments provider', 'degraded', null], ['Search', 'operational', null]],
    );
    assert.equal(summary.active_incidents[0].title.en, 'Slow logins');
    const feed = await get(f, '/status/acme/feed.atom');
    assert.match(feed.headers.get('content-type') ?? '', /application\/atom\+xml/);
    const atom = await feed.text();
    assert.match(atom, /<feed xmlns="http:\/\/www.w3.org\/2005\/Atom"/);
    assert.match(atom, /<title type="html"><!\[CDATA\[Slow logins\]\]><\/title>|<title[^>]*>Slow logins<\/title>/);
    const badge = await (await get(f, '/status/acme/badge.svg')).text();
    assert.match(badge, /^<svg[\s\S]*Partial outage/);
    for (const body of [JSON.stringify(summary), atom, badge]) assert.ok(!body.includes('Secret admin') && !body.includes('127.0.0.1'));
    assert.equal((await get(f, '/status/nope')).status, 404);
  });

  test('pages answer on <subdomain>.<hosted_domain> and their custom hostname, where the API does not', async () => {
    const f = await setup({ hostname: 'status.acme.test' }, { status_pages: { hosted_domain: 'pages.test' } });
    for (const host of ['acme.pages.test', 'ACME.pages.test:8080', 'status.acme.test']) {
      const r = await getWithHost(f, host, '/');
      assert.equal(r.status, 200, host);
      assert.match(r.body, /data-overall="partial_outage"/);
      assert.match(r.body, /href="\/history"/, 'links are relative to the host root');
    }
    assert.equal((await getWithHost(f, 'acme.pages.test', '/summary.json')).status, 200);
    assert.equal((await getWithHost(f, 'acme.pages.test', '/_pharos/status.css')).status, 200);
    const api = await getWithHost(f, 'status.acme.test', '/v1/monitors');
    assert.equal(api.status, 404);
    assert.ok(!api.body.includes('Secret admin'));
    assert.equal((await getWithHost(f, 'other.pages.test', '/')).status, 404, 'an unknown subdomain is not the API either');
  });
});

describe('password wall', () => {
  const PASSWORD = 'correct horse battery';
  const login = (f: StatusFixture, password: string, next = '/') =>
    fetch(`${f.p.url}/status/acme/login`, { method: 'POST', body: new URLSearchParams({ password, next }), redirect: 'manual' });

  test('nothing leaks before the password; a signed cookie opens every route until it expires', async () => {
    const f = await setup({ password: PASSWORD, authentication: { password_protection: true } });
    for (const path of ['', '/history', '/subscribe']) {
      const r = await get(f, `/status/acme${path}`);
      assert.equal(r.status, 401, path);
      const html = await r.text();
      assert.match(html, /type="password"/);
      for (const leak of ['Acme Status', 'Live status', 'Web', 'Payments']) assert.ok(!html.includes(leak), `${path} leaks ${leak}`);
    }
    for (const path of ['/summary.json', '/feed.atom', '/badge.svg']) {
      const r = await get(f, `/status/acme${path}`);
      assert.equal(r.status, 401, path);
      assert.ok(!(await r.text()).includes('Acme'));
    }
    const wrong = await login(f, 'nope-nope');
    assert.equal(wrong.status, 401);
    const ok = await login(f, PASSWORD, '/history');
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get('location'), '/status/acme/history');
    const setCookie = ok.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Lax/);
    assert.match(setCookie, /Max-Age=604800/);
    assert.match(setCookie, /Path=\/status\/acme/);
    const cookie = setCookie.split(';')[0]!;
    for (const path of ['', '/history', '/summary.json', '/feed.atom', '/badge.svg']) assert.equal((await get(f, `/status/acme${path}`, { cookie })).status, 200, path);
    assert.equal((await get(f, '/status/acme', { cookie: `${cookie.slice(0, -2)}xx` })).status, 401, 'a tampered cookie');
    assert.equal((await login(f, PASSWORD, '//evil.example/x')).headers.get('location'), '/status/acme', 'no open redirect');
    await f.p.advance(7 * DAY);
    assert.equal((await get(f, '/status/acme', { cookie })).status, 401, 'expired after 7 days');
  });

  test('a new password ends old sessions; wrong passwords are rate-limited; SSO without a provider fails closed', async () => {
    const f = await setup({ password: PASSWORD, authentication: { password_protection: true } });
    const cookie = ((await login(f, PASSWORD)).headers.get('set-cookie') ?? '').split(';')[0]!;
    assert.equal((await get(f, '/status/acme', { cookie })).status, 200);
    const put = await f.p.api(`/v2/statuspages/${f.page.uuid}`, { method: 'PUT', json: { name: 'Acme Status', password: 'another password 2' } });
    assert.equal(put.status, 200, await put.clone().text());
    assert.equal((await get(f, '/status/acme', { cookie })).status, 401, 'old cookie after a password change');
    for (let i = 0; i < 5; i++) assert.equal((await login(f, 'wrong-password')).status, 401);
    const limited = await login(f, 'another password 2');
    assert.equal(limited.status, 429, 'even the right password waits after 5 wrong ones');
    const sso = await f.p.api(`/v2/statuspages/${f.page.uuid}`, { method: 'PUT', json: { name: 'Acme Status', authentication: { password_protection: false, google_sso: true } } });
    assert.equal(sso.status, 200, await sso.clone().text());
    const closed = await get(f, '/status/acme');
    assert.equal(closed.status, 403);
    assert.ok(!(await closed.text()).includes('Acme'));
    assert.equal((await get(f, '/status/acme/summary.json')).status, 403);
  });
});
