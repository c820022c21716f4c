import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { Walker, freePort, startOidcProvider, type TestOidcProvider } from '../support/idp.ts';
import { Secret, TOTP } from 'otpauth';
import { consoleClient, setupAdmin, signIn as passwordSignIn, type ConsoleClient } from '../support/console.ts';

// The console signing people in through an OIDC provider (issue 19, `console.sso`) against a real
// provider: oidc-provider on 127.0.0.1, started here. Pharos's clock starts at real time (the
// provider stamps its tokens with it).
const ADMIN = { email: 'admin@example.com', password: 'correct horse battery' };
let idp: TestOidcProvider;
let p: TestPharos;
let admin: ConsoleClient;

before(async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider([{ client_id: 'pharos', client_secret: 'pharos-secret-0123456789', redirect_uris: [`${base}/sso/oidc/callback`] }]);
  idp.accounts = {
    alice: { email: 'alice@good.test', email_verified: true },
    dave: { email: 'Dave@Good.test', email_verified: true },
    frank: { email: 'frank@good.test', email_verified: true },
    grace: { email: 'grace@good.test', email_verified: true },
    henry: { email: 'henry@good.test', email_verified: true },
    bob: { email: 'bob@other.test', email_verified: true },
    carol: { email: 'carol@good.test', email_verified: false },
  };
  p = await startTestPharos(
    {
      listen: `127.0.0.1:${port}`,
      public_url: base,
      status_pages: { sign_in_per_minute: 1000 },
      identity_providers: [{ name: 'corp', type: 'oidc', issuer: idp.issuer, client_id: 'pharos', client_secret: 'pharos-secret-0123456789', allow_http: true }],
      console: { sso: 'corp', sso_allowed_domains: ['good.test'] },
    },
    new ManualClock(Date.now()),
  );
  admin = await setupAdmin(p, ADMIN.email, ADMIN.password);
});
after(async () => {
  await p?.cleanup();
  await idp?.close();
});

/**
 * Walks from the console's "Sign in with …" to the provider and back as `account`; returns Pharos's
 * answer to the callback (not followed), the session cookie it set (if any) and the whole Set-Cookie line.
 */
async function ssoSignIn(account: string, next = '/outages') {
  idp.signInAs = account;
  const w = new Walker();
  const toIdp = await w.follow(`${p.url}/login/sso?next=${encodeURIComponent(next)}`, (u) => u.origin === idp.issuer);
  const auth = new URL(toIdp.url);
  const back = await w.follow(auth.href, (u) => u.pathname === '/sso/oidc/callback');
  const res = await w.request(back.url);
  const setCookie = res.headers.getSetCookie().find((h) => h.startsWith('pharos_session=')) ?? null;
  const session = w.jar.get(new URL(p.url).origin)?.get('pharos_session');
  const cl = consoleClient(p);
  if (session) cl.cookie = `pharos_session=${session}`;
  return { auth, res, body: await res.text(), setCookie, cl };
}

/** The row of the admin's Settings → Users table for `email` ('' when absent). */
async function userRow(email: string): Promise<string> {
  const html = (await admin.get('/settings')).html;
  const m = new RegExp(`<tr data-user="${email.replace(/[.@]/g, '\\$&')}">([\\s\\S]*?)</tr>`).exec(html);
  return m?.[1] ?? '';
}

describe('console single sign-on (console.sso)', () => {
  test('the sign-in page offers the provider and still the password form', async () => {
    const html = (await consoleClient(p).get('/login?next=/outages')).html;
    assert.match(html, /<a class="button" id="sso-sign-in" href="\/login\/sso\?next=%2Foutages">Sign in with corp<\/a>/);
    assert.match(html, /type="password"/);
  });

  test('an allowed verified email becomes a viewer with a session like a password one', async () => {
    const r = await ssoSignIn('alice');
    assert.equal(r.auth.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(r.auth.searchParams.get('redirect_uri'), `${p.url}/sso/oidc/callback`);
    assert.equal(r.res.status, 303, r.body.slice(0, 300));
    assert.equal(r.res.headers.get('location'), '/outages', 'lands on next');
    assert.match(r.setCookie ?? '', /HttpOnly/);
    assert.match(r.setCookie ?? '', /SameSite=Lax/);
    assert.match(r.setCookie ?? '', /Path=\//);
    const page = await r.cl.get('/outages');
    assert.equal(page.status, 200);
    assert.ok(r.cl.csrf, 'the session has a CSRF token in its forms');
    assert.match(page.html, /alice@good\.test/);
    const row = await userRow('alice@good.test');
    assert.match(row, /<td>viewer<\/td>/);
    assert.match(row, /active · single sign-on/);
    // A viewer changes nothing (with a valid CSRF token).
    const write = await r.cl.post('/settings/invitations', { email: 'x@good.test', role: 'admin' });
    assert.equal(write.status, 403);
  });

  test('an invited email gets its invited role at first sign-in, and the invitation is used up', async () => {
    const res = await admin.post('/settings/invitations', { email: 'dave@good.test', role: 'editor' });
    assert.equal(res.status, 200, res.html.slice(0, 300));
    assert.match(res.html, /<tr data-invitation="dave@good\.test">[\s\S]*?<td>editor<\/td>[\s\S]*?by admin@example\.com/);
    const r = await ssoSignIn('dave', '/');
    assert.equal(r.res.status, 303, r.body.slice(0, 300));
    assert.match(await userRow('dave@good.test'), /<td>editor<\/td>/, 'the email is matched case-insensitively');
    assert.doesNotMatch((await admin.get('/settings')).html, /data-invitation="dave@good\.test"/);
    // An editor may change things: the session carries the role.
    const created = await r.cl.get('/');
    assert.equal(created.status, 200);
  });

  test('a revoked invitation gives no role: that first sign-in is a viewer', async () => {
    await admin.post('/settings/invitations', { email: 'frank@good.test', role: 'admin' });
    assert.match((await admin.get('/settings')).html, /data-invitation="frank@good\.test"/);
    const revoke = await admin.post('/settings/invitations/revoke', { email: 'frank@good.test' });
    assert.equal(revoke.status, 303);
    assert.doesNotMatch((await admin.get('/settings')).html, /data-invitation="frank@good\.test"/);
    const r = await ssoSignIn('frank');
    assert.equal(r.res.status, 303);
    assert.match(await userRow('frank@good.test'), /<td>viewer<\/td>/);
  });

  test('inviting an email that already has an account is refused (409), a bad role 400', async () => {
    const taken = await admin.post('/settings/invitations', { email: 'alice@good.test', role: 'admin' });
    assert.equal(taken.status, 409);
    assert.match(taken.html, /already has an account/);
    const bad = await admin.post('/settings/invitations', { email: 'zed@good.test', role: 'owner' });
    assert.equal(bad.status, 400);
    assert.match(bad.html, /must be one of admin, editor, viewer/);
  });

  test('another domain is refused, and creates no account', async () => {
    const r = await ssoSignIn('bob');
    assert.equal(r.res.status, 403);
    assert.match(r.body, /bob@other\.test may not sign in to this console/);
    assert.equal(r.setCookie, null);
    assert.equal(await userRow('bob@other.test'), '');
  });

  test('an unverified email of the allowed domain is refused', async () => {
    const r = await ssoSignIn('carol');
    assert.equal(r.res.status, 403);
    assert.match(r.body, /carol@good\.test is not verified/);
    assert.equal(r.setCookie, null);
    assert.equal(await userRow('carol@good.test'), '');
  });

  test('a disabled person is refused (and their SSO session ended when disabled)', async () => {
    const first = await ssoSignIn('grace');
    assert.equal(first.res.status, 303);
    assert.equal((await first.cl.get('/settings')).status, 200);
    const uuid = /action="\/settings\/users\/(user_[A-Za-z0-9]+)\/disable"/.exec(await userRow('grace@good.test'))?.[1];
    assert.ok(uuid);
    assert.equal((await admin.post(`/settings/users/${uuid}/disable`, {})).status, 303);
    assert.equal((await first.cl.get('/settings')).status, 303, 'the old session is gone');
    const again = await ssoSignIn('grace');
    assert.equal(again.res.status, 403);
    assert.match(again.body, /grace@good\.test is disabled/);
    assert.equal(again.setCookie, null);
  });

  test('the SSO session is listed under "your sessions" and dies with sign-out-everywhere', async () => {
    const a = await ssoSignIn('alice');
    const b = await ssoSignIn('alice');
    const settings = await a.cl.get('/settings');
    const refs = [...settings.html.matchAll(/action="\/settings\/sessions\/([A-Za-z0-9]+)\/end"/g)].map((m) => m[1]);
    assert.ok(refs.length >= 1, 'the other SSO session is listed with an end button');
    assert.equal((await b.cl.get('/settings')).status, 200);
    const out = await a.cl.post('/settings/sessions/end-all', {});
    assert.equal(out.status, 303);
    for (const cl of [a.cl, b.cl]) {
      const res = await fetch(`${p.url}/settings`, { redirect: 'manual', headers: { cookie: cl.cookie! } });
      assert.equal(res.status, 303);
      assert.match(res.headers.get('location') ?? '', /^\/login/);
    }
  });

  test('with TOTP on, an SSO sign-in waits for the code like a password one', async () => {
    const first = await ssoSignIn('henry');
    await first.cl.get('/settings');
    const start = await first.cl.post('/settings/totp/start', {});
    const secret = /name="secret" value="([A-Z2-7]+)"/.exec(start.html)![1]!;
    const codeAt = (at: number) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: at });
    assert.equal((await first.cl.post('/settings/totp/enable', { secret, code: codeAt(p.clock.now()) })).status, 200);
    const r = await ssoSignIn('henry', '/outages');
    assert.equal(r.res.status, 303);
    assert.equal(r.res.headers.get('location'), '/login/totp?next=%2Foutages');
    assert.equal((await r.cl.get('/outages')).status, 303, 'nothing opens before the code');
    // The code that turned TOTP on is spent (each code works once, issue 30): the next step's code.
    await p.advance(30_000);
    const done = await r.cl.post('/login/totp', { code: codeAt(p.clock.now()), next: '/outages' }, { csrf: null });
    assert.equal(done.status, 303);
    assert.equal((await r.cl.get('/outages')).status, 200);
  });

  test('password sign-in still works for the first admin', async () => {
    const cl = await passwordSignIn(p, ADMIN.email, ADMIN.password);
    const res = await cl.get('/settings');
    assert.equal(res.status, 200);
    assert.match(res.html, /id="invitations"/);
    assert.equal((await consoleClient(p).post('/login', { email: 'alice@good.test', password: 'anything at all' }, { csrf: null })).status, 401, 'an SSO person has no password to sign in with');
  });
});

describe('console single sign-on limits and absence', () => {
  test('sign-in starts count against status_pages.sign_in_per_minute per address (429)', async () => {
    const q = await startTestPharos({
      status_pages: { sign_in_per_minute: 2 },
      identity_providers: [{ name: 'corp', type: 'oidc', issuer: idp.issuer, client_id: 'pharos', client_secret: 'x', allow_http: true }],
      console: { sso: 'corp' },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await fetch(`${q.url}/login/sso`, { redirect: 'manual' })).status);
      assert.deepEqual(statuses, [303, 303, 429]);
    } finally {
      await q.cleanup();
    }
  });

  test('without console.sso there is no button and /login/sso is 404', async () => {
    const q = await startTestPharos();
    try {
      const html = await (await fetch(`${q.url}/login`)).text();
      assert.doesNotMatch(html, /Sign in with/);
      assert.equal((await fetch(`${q.url}/login/sso`, { redirect: 'manual' })).status, 404);
    } finally {
      await q.cleanup();
    }
  });
});
