import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { Walker, freePort, startOidcProvider, type TestOidcProvider } from '../support/idp.ts';

// Status pages behind OpenID Connect (issue 19) against a real provider: oidc-provider on
// 127.0.0.1, started here, with accounts of several domains. Pharos's clock starts at real time
// (the provider stamps its tokens with it) and is moved on only to expire an ID token.
const PAGE_NAME = 'Intranet Status';
let idp: TestOidcProvider;
let p: TestPharos;
let page: { uuid: string; subdomain: string };
let pageUrl: string;

before(async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider([
    { client_id: 'pharos', client_secret: 'pharos-secret-0123456789', redirect_uris: [`${base}/sso/oidc/callback`] },
    { client_id: 'other-app', client_secret: 'other-secret-0123456789', redirect_uris: ['http://127.0.0.1:9/cb'] },
  ]);
  idp.accounts = {
    alice: { email: 'alice@good.test', email_verified: true },
    bob: { email: 'bob@other.test', email_verified: true },
    carol: { email: 'carol@good.test', email_verified: false },
    eve: { email: 'eve@evil.test', email_verified: true },
  };
  p = await startTestPharos(
    {
      listen: `127.0.0.1:${port}`,
      public_url: base,
      status_pages: { sign_in_per_minute: 1000 },
      identity_providers: [{ name: 'google', type: 'oidc', issuer: idp.issuer, client_id: 'pharos', client_secret: 'pharos-secret-0123456789', allow_http: true }],
    },
    new ManualClock(Date.now()),
  );
  const comp = await (await p.api('/v1/components', { method: 'POST', json: { name: 'Mail server' } })).json();
  const res = await p.api('/v2/statuspages', {
    method: 'POST',
    json: { name: PAGE_NAME, subdomain: 'intranet', authentication: { google_sso: true, google_allowed_domains: ['good.test'] }, sections: [{ name: 'Core', services: [{ monitor_uuid: comp.uuid }] }] },
  });
  assert.equal(res.status, 201);
  page = (await res.json()).statuspage;
  pageUrl = `${p.url}/status/${page.subdomain}`;
});
after(async () => {
  await p?.cleanup();
  await idp?.close();
});

/** Walks from the page's sign-in button to the provider and back; returns the walker and Pharos's last answer. */
async function signIn(account: string, opts: { beforeCallback?: (callback: URL) => Promise<void>; atAuthorize?: (auth: URL) => Promise<void> } = {}) {
  idp.signInAs = account;
  const w = new Walker();
  const toIdp = await w.follow(`${pageUrl}/sso/oidc?next=/history`, (u) => u.origin === idp.issuer);
  const auth = new URL(toIdp.url);
  await opts.atAuthorize?.(auth);
  const back = await w.follow(auth.href, (u) => u.pathname === '/sso/oidc/callback');
  const callback = new URL(back.url);
  await opts.beforeCallback?.(callback);
  const done = await w.follow(callback.href);
  return { w, auth, res: done.res, url: done.url, body: await done.res.text() };
}

/** Runs a whole code flow for the provider's other client with a chosen nonce: an ID token signed by the provider whose audience is not Pharos. */
async function tokenForOtherClient(nonce: string): Promise<string> {
  const w = new Walker();
  const verifier = 'v'.repeat(64);
  const challenge = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))).toString('base64url');
  const q = new URLSearchParams({ client_id: 'other-app', redirect_uri: 'http://127.0.0.1:9/cb', response_type: 'code', scope: 'openid email', nonce, state: 's', code_challenge: challenge, code_challenge_method: 'S256' });
  const r = await w.follow(`${idp.issuer}/auth?${q}`, (u) => u.port === '9');
  const code = new URL(r.url).searchParams.get('code')!;
  const res = await fetch(`${idp.issuer}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${Buffer.from('other-app:other-secret-0123456789').toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:9/cb', code_verifier: verifier }),
  });
  return ((await res.json()) as { id_token: string }).id_token;
}

const cookieFor = (w: Walker) => w.jar.get(new URL(p.url).origin)?.get('pharos_page');

describe('status pages behind OpenID Connect', () => {
  test('nothing of the page before sign-in: every route answers 401 and the wall names only the sign-in door', async () => {
    for (const path of ['', '/history', '/feed.atom', '/summary.json', '/badge.svg', '/subscribe']) {
      const res = await fetch(pageUrl + path, { redirect: 'manual' });
      assert.equal(res.status, 401, `${path || '/'} is closed`);
      const body = await res.text();
      assert.ok(!body.includes(PAGE_NAME) && !body.includes('Mail server'), `${path || '/'} shows nothing of the page`);
    }
    const wall = await (await fetch(pageUrl)).text();
    assert.match(wall, /href="\/status\/intranet\/sso\/oidc\?next=%2F"[^>]*>Sign in with 127\.0\.0\.1</);
    assert.ok(!wall.includes('type="password"'), 'no password form when the page has no password');
  });

  test('an allowed verified email gets in: authorization code + PKCE + state + nonce, then the page-access cookie opens every route', async () => {
    const r = await signIn('alice');
    assert.equal(r.auth.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(r.auth.searchParams.get('code_challenge') && r.auth.searchParams.get('state') && r.auth.searchParams.get('nonce'));
    assert.equal(r.auth.searchParams.get('redirect_uri'), `${p.url}/sso/oidc/callback`);
    assert.equal(r.res.status, 200, r.body.slice(0, 300));
    assert.equal(new URL(r.url).pathname, '/status/intranet/history', 'lands on next');
    assert.ok(r.body.includes(PAGE_NAME));
    const cookie = cookieFor(r.w);
    assert.match(cookie ?? '', /^\d+\.[A-Za-z0-9_-]{43}$/);
    for (const path of ['/summary.json', '/badge.svg', '/feed.atom']) {
      const res = await fetch(pageUrl + path, { headers: { cookie: `pharos_page=${cookie}` } });
      assert.equal(res.status, 200, path);
    }
  });

  test('another domain is refused, and so is an unverified email of the allowed domain', async () => {
    const bob = await signIn('bob');
    assert.equal(bob.res.status, 403);
    assert.match(bob.body, /bob@other\.test may not see this status page/);
    assert.equal(cookieFor(bob.w), undefined);
    const carol = await signIn('carol');
    assert.equal(carol.res.status, 403);
    assert.match(carol.body, /carol@good\.test is not verified/);
    assert.equal(cookieFor(carol.w), undefined);
  });

  test('a tampered ID token (payload changed to an allowed email) is refused on its signature', async () => {
    idp.rewriteIdToken = (t) => {
      const [h, payload, s] = t.split('.');
      const claims = Buffer.from(payload!, 'base64url').toString('utf8');
      assert.ok(claims.includes('eve@evil.test'));
      return `${h}.${Buffer.from(claims.replace('eve@evil.test', 'eve@good.test')).toString('base64url')}.${s}`;
    };
    try {
      const r = await signIn('eve');
      assert.equal(r.res.status, 403);
      assert.match(r.body, /answer could not be verified/, 'refused for the token, not for the domain');
      assert.equal(cookieFor(r.w), undefined);
    } finally {
      idp.rewriteIdToken = null;
    }
  });

  test('an ID token the provider signed for another client (wrong audience) is refused', async () => {
    let other = '';
    idp.rewriteIdToken = (t) => other || t;
    try {
      const r = await signIn('alice', {
        atAuthorize: async (auth) => {
          other = await tokenForOtherClient(auth.searchParams.get('nonce')!);
          assert.equal(JSON.parse(Buffer.from(other.split('.')[1]!, 'base64url').toString()).aud, 'other-app');
        },
      });
      assert.equal(r.res.status, 403);
      assert.match(r.body, /answer could not be verified/);
      assert.equal(cookieFor(r.w), undefined);
    } finally {
      idp.rewriteIdToken = null;
    }
  });

  test('the callback is single-use and bound to the browser that started it', async () => {
    let callback: URL | null = null;
    const r = await signIn('alice', { beforeCallback: async (u) => void (callback = u) });
    assert.equal(r.res.status, 200);
    const again = await new Walker().request(callback!.href);
    assert.equal(again.status, 400, 'a used state is refused');
    // A callback carried to another browser (login CSRF) is refused.
    idp.signInAs = 'alice';
    const w = new Walker();
    const toIdp = await w.follow(`${pageUrl}/sso/oidc`, (u) => u.origin === idp.issuer);
    const back = await w.follow(toIdp.url, (u) => u.pathname === '/sso/oidc/callback');
    const stranger = await new Walker().request(back.url);
    assert.equal(stranger.status, 400);
    assert.match(await stranger.text(), /started in another browser/);
  });

  test('an error answer from the provider (the user cancelled) is refused with its reason', async () => {
    const w = new Walker();
    const toIdp = await w.follow(`${pageUrl}/sso/oidc`, (u) => u.origin === idp.issuer);
    const state = new URL(toIdp.url).searchParams.get('state')!;
    const res = await w.request(`${p.url}/sso/oidc/callback?error=access_denied&state=${state}`);
    assert.equal(res.status, 403);
    assert.match(await res.text(), /did not sign you in \(access_denied\)/);
    assert.equal(cookieFor(w), undefined);
  });

  test('changing the page’s authentication settings ends every SSO session', async () => {
    const r = await signIn('alice');
    const cookie = cookieFor(r.w)!;
    assert.equal((await fetch(pageUrl, { headers: { cookie: `pharos_page=${cookie}` } })).status, 200);
    await p.api(`/v2/statuspages/${page.uuid}`, { method: 'PUT', json: { name: PAGE_NAME, authentication: { google_allowed_domains: ['good.test', 'partner.test'] } } });
    assert.equal((await fetch(pageUrl, { headers: { cookie: `pharos_page=${cookie}` } })).status, 401);
  });
  test('the hand-over ticket is single-use and opens only its own page', async () => {
    const other = await (await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Other Intranet', subdomain: 'intranet-2', authentication: { google_sso: true } } })).json();
    idp.signInAs = 'alice';
    const w = new Walker();
    const toIdp = await w.follow(`${pageUrl}/sso/oidc`, (u) => u.origin === idp.issuer);
    const complete = new URL((await w.follow(toIdp.url, (u) => u.pathname.endsWith('/sso/complete'))).url);
    assert.equal(complete.pathname, '/status/intranet/sso/complete');
    const elsewhere = await fetch(`${p.url}/status/${other.statuspage.subdomain}/sso/complete${complete.search}`, { redirect: 'manual' });
    assert.equal(elsewhere.status, 403, "another page's ticket is refused");
    const first = await fetch(complete, { redirect: 'manual' });
    assert.equal(first.status, 303);
    assert.match(first.headers.getSetCookie()[0] ?? '', /^pharos_page=\d+\.[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/status\/intranet; HttpOnly; SameSite=Lax$/);
    const second = await fetch(complete, { redirect: 'manual' });
    assert.equal(second.status, 403, 'a used ticket is refused');
    assert.deepEqual(second.headers.getSetCookie(), []);
  });

  // Last: the manual clock cannot go back, and later tokens would all look expired.
  test('an expired ID token is refused (60 s lifetime, Pharos clock 3 minutes on)', async () => {
    const r = await signIn('alice', { beforeCallback: () => p.clock.advance(3 * 60_000) });
    assert.equal(r.res.status, 403);
    assert.match(r.body, /answer could not be verified/);
    assert.equal(cookieFor(r.w), undefined);
  });
});
