import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';

// The gate of pages whose SSO doors are missing or switched off (issue 19): the password wall
// holds with SSO off, SSO without a working door fails closed, a password stays a way in beside
// SSO, and the anonymous sign-in starts are rate-limited.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
async function pharos(config: Record<string, unknown> = {}): Promise<TestPharos> {
  const p = await startTestPharos(config);
  cleanups.push(() => p.cleanup());
  return p;
}
async function page(p: TestPharos, body: Record<string, unknown>): Promise<string> {
  const res = await p.api('/v2/statuspages', { method: 'POST', json: body });
  assert.equal(res.status, 201, await res.clone().text());
  return `${p.url}/status/${(await res.json()).statuspage.subdomain}`;
}
const get = (url: string, cookie?: string) => fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });

describe('status page gate with single sign-on', () => {
  test('the password wall holds when SSO is off: sign-in routes are behind it, no SSO door is shown', async () => {
    const p = await pharos({ identity_providers: [{ name: 'google', type: 'oidc', issuer: 'http://127.0.0.1:9', client_id: 'x', client_secret: 'y', allow_http: true }] });
    const url = await page(p, { name: 'Vault Status', subdomain: 'vault', password: 'correct horse', authentication: { password_protection: true } });
    const wall = await get(url);
    assert.equal(wall.status, 401);
    const html = await wall.text();
    assert.ok(html.includes('type="password"') && !html.includes('Sign in with') && !html.includes('Vault Status'));
    for (const path of ['/sso/oidc', '/sso/saml', '/sso/complete?ticket=1.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      const res = await get(url + path);
      assert.equal(res.status, 401, path);
      assert.equal(res.headers.get('location'), null, `${path} starts no sign-in`);
    }
    const login = await fetch(`${url}/login`, { method: 'POST', body: new URLSearchParams({ password: 'correct horse', next: '/' }), redirect: 'manual' });
    assert.equal(login.status, 303);
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    assert.equal((await get(url, cookie)).status, 200);
  });

  test('SSO switched on without a working door fails closed; with a password as well, the password still opens it', async () => {
    const p = await pharos();
    const closed = await page(p, { name: 'Closed Status', subdomain: 'closed', authentication: { google_sso: true } });
    for (const path of ['', '/summary.json', '/badge.svg', '/sso/oidc']) {
      const res = await get(closed + path);
      assert.equal(res.status, 403, path);
      assert.ok(!(await res.text()).includes('Closed Status'));
    }
    const both = await page(p, { name: 'Both Status', subdomain: 'both', password: 'correct horse', authentication: { google_sso: true, password_protection: true } });
    const wall = await get(both);
    assert.equal(wall.status, 401);
    const html = await wall.text();
    assert.ok(html.includes('type="password"') && !html.includes('Sign in with'), 'the password form, no door that would not work');
    assert.equal((await get(`${both}/sso/oidc`)).status, 404, 'no OIDC door without the google provider');
    const login = await fetch(`${both}/login`, { method: 'POST', body: new URLSearchParams({ password: 'correct horse', next: '/' }), redirect: 'manual' });
    assert.equal(login.status, 303);
    assert.equal((await get(both, login.headers.getSetCookie()[0]!.split(';')[0]!)).status, 200);
  });

  test('anonymous sign-in starts are rate-limited per address', async () => {
    const p = await pharos({ status_pages: { sign_in_per_minute: 3 }, identity_providers: [{ name: 'google', type: 'oidc', issuer: 'http://127.0.0.1:9', client_id: 'x', client_secret: 'y', allow_http: true }] });
    const url = await page(p, { name: 'Busy Status', subdomain: 'busy', authentication: { google_sso: true } });
    for (let i = 0; i < 3; i++) assert.equal((await get(`${url}/sso/oidc`)).status, 303, `start ${i + 1}`);
    assert.equal((await get(`${url}/sso/oidc`)).status, 429);
    assert.equal((await get(`${p.url}/sso/begin/whatever`)).status, 429, 'the provider-facing routes share the limit');
  });

  test('an http:// issuer needs allow_http; identity provider names are unique; only google has a default issuer', async () => {
    const { parseConfig } = await import('../../src/config/load.ts');
    assert.throws(() => parseConfig({ identity_providers: [{ name: 'kc', type: 'oidc', issuer: 'http://127.0.0.1:8081/realms/x', client_id: 'a', client_secret: 'b' }] }), /identity_providers\.0\.issuer.*allow_http/s);
    assert.throws(() => parseConfig({ identity_providers: [{ name: 'kc', type: 'oidc', client_id: 'a', client_secret: 'b' }] }), /identity_providers\.0\.issuer/);
    const c = parseConfig({ identity_providers: [{ name: 'google', type: 'oidc', client_id: 'a', client_secret: 'b' }] });
    assert.equal(c.identity_providers[0]!.issuer, 'https://accounts.google.com');
    assert.throws(() => parseConfig({ identity_providers: [{ name: 'google', type: 'oidc', client_id: 'a', client_secret: 'b' }, { name: 'google', type: 'oidc', client_id: 'c', client_secret: 'd' }] }), /used twice/);
  });
});
