import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { consoleClient, setupAdmin, signIn, type ConsoleClient } from '../support/console.ts';

// The console's sign-in and request protection over plain HTTP against a real Pharos (issue 16).
let p: TestPharos;
let admin: ConsoleClient;
const PW = 'correct horse battery';
before(async () => {
  p = await startTestPharos({ public_url: 'https://pharos.example.com' });
  admin = await setupAdmin(p, 'admin@example.com', PW);
});
after(() => p.cleanup());

describe('console security', () => {
  test('the setup link made the admin once; a second use and a made-up token are refused', async () => {
    assert.ok(admin.cookie);
    const again = await consoleClient(p).post(`/setup/${p.setupToken}`, { email: 'evil@example.com', password: 'another password 1' }, { csrf: null });
    assert.equal(again.status, 403);
    assert.match(again.html, /used already/);
    assert.equal((await consoleClient(p).get(`/setup/${p.setupToken}`)).status, 403);
    assert.equal((await consoleClient(p).get('/setup/madeup')).status, 403);
    assert.equal((await p.core.accounts.list()).length, 1);
    assert.equal((await p.core.accounts.list())[0]!.role, 'admin');
  });

  test('a signed-out visitor gets the sign-in page at / and is sent to it from other screens', async () => {
    const anon = consoleClient(p);
    const home = await anon.get('/');
    assert.equal(home.status, 200);
    assert.match(home.html, /Sign in to Pharos/);
    const r = await anon.get('/outages');
    assert.equal(r.status, 303);
    assert.equal(r.headers.get('location'), '/login?next=%2Foutages');
  });

  test('cookie flags: HttpOnly, SameSite=Lax, Secure with an https public URL; headers: CSP with nonce, frame-ancestors none', async () => {
    const cl = consoleClient(p);
    const res = await fetch(p.url + '/login', { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: p.url }, body: new URLSearchParams({ email: 'admin@example.com', password: PW }) });
    assert.equal(res.status, 303);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('pharos_session='))!;
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, /Secure/);
    assert.match(cookie, /Path=\//);
    const page = await cl.get('/login');
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /script-src 'self' 'nonce-[A-Za-z0-9+/=]{24}'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
  });

  test('CSRF: a state-changing form without the token, with a wrong one, or from another origin → 403', async () => {
    const create = { name: 'x', url: 'http://127.0.0.1:9/', protocol: 'http' };
    assert.equal((await admin.post('/monitors', create, { csrf: null })).status, 403);
    assert.equal((await admin.post('/monitors', create, { csrf: 'A'.repeat(43) })).status, 403);
    const other = await admin.post('/monitors', create, { origin: 'https://evil.example' });
    assert.equal(other.status, 403);
    assert.match(other.html, /another site/);
    assert.equal((await admin.post('/logout', {}, { csrf: 'nope' })).status, 403);
    assert.equal((await p.core.monitors.list()).length, 0, 'nothing was created');
  });

  test('10 wrong passwords for one account → throttled (429), even with the right password then', async () => {
    await p.core.accounts.create({ email: 'target@example.com', role: 'editor', password: 'the right password' }, { type: 'system', id: 'test', name: 'test' });
    for (let i = 0; i < 10; i++) {
      const r = await consoleClient(p).post('/login', { email: 'target@example.com', password: `wrong ${i}` }, { csrf: null });
      assert.equal(r.status, 401, `attempt ${i + 1}`);
    }
    const r = await consoleClient(p).post('/login', { email: 'target@example.com', password: 'the right password' }, { csrf: null });
    assert.equal(r.status, 429);
    assert.match(r.html, /too many wrong passwords; try again in \d+ s/);
  });

  test('a password change ends every session of the user (the old cookie is signed out)', async () => {
    await p.core.accounts.create({ email: 'pat@example.com', role: 'editor', password: 'first password!' }, { type: 'system', id: 'test', name: 'test' });
    const a = await signIn(p, 'pat@example.com', 'first password!');
    const b = await signIn(p, 'pat@example.com', 'first password!');
    assert.equal((await b.get('/outages')).status, 200);
    const change = await a.post('/settings/password', { current_password: 'first password!', password: 'second password!' });
    assert.equal(change.status, 303);
    assert.equal((await b.get('/outages')).status, 303, 'the other session is gone');
    assert.equal((await a.get('/outages')).status, 303, 'and the one that changed it');
    await signIn(p, 'pat@example.com', 'second password!');
  });

  test('a session idle longer than console.session_idle_minutes ends', async () => {
    const cl = await signIn(p, 'admin@example.com', PW);
    assert.equal((await cl.get('/outages')).status, 200);
    await p.advance(721 * 60_000);
    assert.equal((await cl.get('/outages')).status, 303);
    admin = await signIn(p, 'admin@example.com', PW);
  });

  test('every user string is escaped (a monitor named <script>)', async () => {
    const name = '<script>alert(1)</script>';
    await p.api('/v1/monitors', { method: 'POST', json: { name, url: 'http://127.0.0.1:9/', paused: true } });
    const page = await admin.get('/');
    assert.ok(!page.html.includes(name));
    assert.ok(page.html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  });
});
