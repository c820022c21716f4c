import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { Walker, freePort, startOidcProvider, type TestOidcProvider } from '../support/idp.ts';
import { createLogger } from '../../src/lib/logger.ts';

// Issue #30 point 4: with no allowed domain, single sign-on used to admit any verified account of
// the provider (for Google: anyone). Empty now means: console, invited emails (and people who already
// have an account) only; status pages, nobody through the provider. A real OIDC provider on 127.0.0.1.
let idp: TestOidcProvider;
let p: TestPharos;
const log: string[] = [];

before(async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider([{ client_id: 'pharos', client_secret: 'pharos-secret-0123456789', redirect_uris: [`${base}/sso/oidc/callback`] }]);
  idp.accounts = {
    stranger: { email: 'stranger@anywhere.test', email_verified: true },
    invited: { email: 'Invited@anywhere.test', email_verified: true },
    known: { email: 'known@anywhere.test', email_verified: true },
  };
  const provider = { type: 'oidc', issuer: idp.issuer, client_id: 'pharos', client_secret: 'pharos-secret-0123456789', allow_http: true };
  p = await startTestPharos(
    {
      listen: `127.0.0.1:${port}`,
      public_url: base,
      status_pages: { sign_in_per_minute: 1000 },
      identity_providers: [{ name: 'corp', ...provider }, { name: 'google', ...provider }],
      console: { sso: 'corp' }, // sso_allowed_domains left out: []
    },
    new ManualClock(Date.now()),
    createLogger('info', (l) => void log.push(l), 'json'),
  );
});
after(async () => {
  await p?.cleanup();
  await idp?.close();
});

async function consoleSso(account: string) {
  idp.signInAs = account;
  const w = new Walker();
  const toIdp = await w.follow(`${p.url}/login/sso?next=/`, (u) => u.origin === idp.issuer);
  const back = await w.follow(toIdp.url, (u) => u.pathname === '/sso/oidc/callback');
  const res = await w.request(back.url);
  return { status: res.status, body: await res.text(), session: w.jar.get(new URL(p.url).origin)?.get('pharos_session') };
}

test('start-up warns once that console SSO has no domain limit (invited emails only)', () => {
  const lines = log.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => /sso_allowed_domains/.test(l.msg));
  assert.equal(lines.length, 1, JSON.stringify(lines));
  assert.equal(lines[0]!.level, 'warn');
  assert.match(lines[0]!.msg, /invited/);
});

test('console, sso_allowed_domains []: an uninvited IdP user is refused and gets no account', async () => {
  const r = await consoleSso('stranger');
  assert.equal(r.status, 403, r.body.slice(0, 300));
  assert.match(r.body, /stranger@anywhere\.test may not sign in to this console/);
  assert.equal(r.session, undefined);
  assert.equal((await p.core.accounts.list()).some((a) => a.email === 'stranger@anywhere.test'), false);
});

test('console, sso_allowed_domains []: an invited email and a person with an account get in', async () => {
  await p.core.consoleSso.invitations.create('invited@anywhere.test', 'editor', 'admin@example.com', { type: 'system', id: 'test', name: 'test' });
  const invited = await consoleSso('invited');
  assert.equal(invited.status, 303, invited.body.slice(0, 300));
  assert.ok(invited.session);
  assert.equal((await p.core.accounts.list()).find((a) => a.email === 'invited@anywhere.test')?.role, 'editor');
  const again = await consoleSso('invited');
  assert.equal(again.status, 303, 'the invitation is used up, the account stays');

  await p.core.accounts.create({ email: 'known@anywhere.test', role: 'viewer', password: 'known password 123' }, { type: 'system', id: 'test', name: 'test' });
  assert.equal((await consoleSso('known')).status, 303);
});

test('status page, google_allowed_domains []: the provider admits nobody (it used to admit any account)', async () => {
  const res = await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Open Door', subdomain: 'open-door', authentication: { google_sso: true } } });
  assert.equal(res.status, 201, await res.clone().text());
  idp.signInAs = 'stranger';
  const w = new Walker();
  const pageUrl = `${p.url}/status/open-door`;
  const toIdp = await w.follow(`${pageUrl}/sso/oidc`, (u) => u.origin === idp.issuer);
  const done = await w.follow(toIdp.url);
  const body = await done.res.text();
  assert.equal(done.res.status, 403, body.slice(0, 300));
  assert.match(body, /stranger@anywhere\.test may not see this status page/);
  assert.equal((await fetch(pageUrl, { redirect: 'manual' })).status, 401);
});
