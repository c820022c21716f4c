import { afterEach, describe, test } from 'node:test';
import { rmSync } from 'node:fs';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import type { TestPharos } from '../support/pharos.ts';
import type { ConsoleClient } from '../support/console.ts';

// The test seam counting password hashes: node:crypto's scrypt wrapped before Pharos's modules load
// (they are imported below, after the wrap), so every hash any password path makes is counted.
let hashes = 0;
const realScrypt = crypto.scrypt;
crypto.scrypt = ((...args: Parameters<typeof realScrypt>) => {
  hashes++;
  return (realScrypt as (...a: unknown[]) => void)(...args);
}) as typeof realScrypt;
syncBuiltinESMExports();
const { createLogger } = await import('../../src/lib/logger.ts');
const { ManualClock } = await import('../support/manual-clock.ts');
const { startTestPharos, tempDir } = await import('../support/pharos.ts');
const { consoleClient, setupAdmin } = await import('../support/console.ts');
/** The password hashes `run` made. */
async function hashed<T>(run: () => Promise<T>): Promise<{ result: T; hashes: number }> {
  const before = hashes;
  const result = await run();
  return { result, hashes: hashes - before };
}

// Issue 30 (points 1, 7, 8, 9): the sign-in throttle holds under concurrent requests on every
// password path, a stranger cannot lock a person out, TOTP codes work once, the setup link expires.
// Real Pharos over HTTP, real concurrent requests, the manual clock for time.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
async function pharos(config: Record<string, unknown> = {}): Promise<TestPharos> {
  const p = await startTestPharos({ console: { trust_proxy: true }, status_pages: { trust_proxy: true }, ...config });
  cleanups.push(() => p.cleanup());
  return p;
}
const PW = 'correct horse battery';
const codeAt = (secret: string, at: number) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: at });

/** POSTs a form from client address `ip` (X-Forwarded-For; the test servers trust it), without following redirects. */
async function post(p: TestPharos, path: string, form: Record<string, string>, opts: { ip?: string; cookie?: string | null } = {}): Promise<Response & { html: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', origin: p.url };
  if (opts.ip) headers['x-forwarded-for'] = opts.ip;
  if (opts.cookie) headers.cookie = opts.cookie;
  const res = await fetch(p.url + path, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual', headers });
  return Object.assign(res, { html: await res.text() });
}
const login = (p: TestPharos, email: string, password: string, ip: string, extra: Record<string, string> = {}) => post(p, '/login', { email, password, next: '/', ...extra }, { ip });
const cookieOf = (res: Response) => res.headers.getSetCookie().find((h) => h.startsWith('pharos_session='))!.split(';')[0]!;
/** How many answers were not 429: each one checked a password (or a code). */
const checked = (rs: Response[]) => rs.filter((r) => r.status !== 429).length;

/** Turns TOTP on for the signed-in `admin`; returns the secret (the enabling code is the one of `p.clock.now()`). */
async function enableTotp(p: TestPharos, admin: ConsoleClient): Promise<string> {
  const start = await admin.post('/settings/totp/start', {});
  const secret = /name="secret" value="([A-Z2-7]+)"/.exec(start.html)![1]!;
  const on = await admin.post('/settings/totp/enable', { secret, code: codeAt(secret, p.clock.now()) });
  assert.equal(on.status, 200);
  return secret;
}

describe('point 1: the throttle counts before it hashes (concurrent requests)', () => {
  test('100 concurrent wrong passwords plus the right one: at most 10 wrong ones are hashed; the right one after them is refused', async () => {
    const p = await pharos();
    await p.core.accounts.create({ email: 'target@example.com', role: 'editor', password: 'the right password' }, { type: 'system', id: 'test', name: 'test' });
    const tries = [...Array.from({ length: 100 }, (_, i) => `wrong ${i}`), 'the right password'];
    const { result: rs, hashes: n } = await hashed(() => Promise.all(tries.map((pw) => login(p, 'target@example.com', pw, '10.0.0.1'))));
    // A right password gives its point back, so at most one more try than the limit is hashed.
    assert.ok(n <= 11, `${n} passwords were hashed`);
    assert.equal(checked(rs), n, 'every answer but 429 hashed a password');
    assert.ok(rs.filter((r) => r.status === 401).length <= 10);
    assert.equal((await login(p, 'target@example.com', 'the right password', '10.0.0.1')).status, 429);
  });

  test('a burst of 300 wrong passwords over many accounts from one address: at most 30 are checked', async () => {
    const p = await pharos();
    const { result: rs, hashes: n } = await hashed(() => Promise.all(Array.from({ length: 300 }, (_, i) => login(p, `user${i % 40}@example.com`, `wrong ${i}`, '10.0.0.2'))));
    assert.ok(n <= 30, `${n} passwords were hashed`);
    assert.equal(checked(rs), n);
  });

  test('the status page password: 60 concurrent wrong ones and the right one from one address, at most 5 wrong ones hashed', async () => {
    const p = await pharos();
    const res = await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Vault', subdomain: 'vault', password: 'correct horse', authentication: { password_protection: true } } });
    assert.equal(res.status, 201);
    const tries = [...Array.from({ length: 60 }, (_, i) => `wrong ${i}`), 'correct horse'];
    const { result: rs, hashes: n } = await hashed(() => Promise.all(tries.map((password) => post(p, '/status/vault/login', { password, next: '/' }, { ip: '10.0.0.3' }))));
    assert.ok(n <= 6, `${n} passwords were hashed`);
    assert.equal(checked(rs), n);
    assert.equal((await post(p, '/status/vault/login', { password: 'correct horse', next: '/' }, { ip: '10.0.0.3' })).status, 429);
    assert.equal((await post(p, '/status/vault/login', { password: 'correct horse', next: '/' }, { ip: '10.0.0.4' })).status, 303, 'another address is not locked');
  });

  test('TOTP codes: 60 concurrent wrong codes on a half-signed-in session, at most 10 checked', async () => {
    const p = await pharos();
    const admin = await setupAdmin(p, 'admin@example.com', PW);
    const secret = await enableTotp(p, admin);
    const pw = await login(p, 'admin@example.com', PW, '10.0.0.5');
    assert.equal(pw.status, 303);
    const cookie = cookieOf(pw);
    const right = codeAt(secret, p.clock.now());
    const wrong = (i: number) => String((Number(right) + 1 + i) % 1_000_000).padStart(6, '0');
    const rs = await Promise.all(Array.from({ length: 60 }, (_, i) => post(p, '/login/totp', { code: wrong(i), next: '/' }, { ip: '10.0.0.5', cookie })));
    assert.ok(checked(rs) <= 10, `${checked(rs)} codes were checked`);
  });

  test('the current password of change-password and disable-TOTP: 40 concurrent wrong ones, at most 10 checked', async () => {
    const p = await pharos();
    const admin = await setupAdmin(p, 'admin@example.com', PW);
    const { result: rs, hashes: n } = await hashed(() => Promise.all(Array.from({ length: 40 }, (_, i) => admin.post('/settings/password', { current_password: `wrong ${i}`, password: 'a new password 123' }))));
    assert.ok(n <= 10, `${n} passwords were hashed`);
    assert.equal(checked(rs), n);
    const more = await hashed(() => Promise.all(Array.from({ length: 10 }, (_, i) => admin.post('/settings/totp/disable', { current_password: `wrong ${i}` }))));
    assert.equal(more.hashes, 0, 'the same counter: nothing more is hashed');
    assert.equal(checked(more.result), 0);
  });
});

describe('point 7: strangers cannot lock a person out', () => {
  test('10 wrong passwords from elsewhere do not lock the admin out, from a known address nor from a new one', async () => {
    const p = await pharos();
    await setupAdmin(p, 'admin@example.com', PW);
    assert.equal((await login(p, 'admin@example.com', PW, '10.1.0.1')).status, 303, 'the admin signs in from home once');
    for (let i = 0; i < 10; i++) assert.equal((await login(p, 'admin@example.com', `wrong ${i}`, '203.0.113.9')).status, 401);
    assert.equal((await login(p, 'admin@example.com', PW, '203.0.113.9')).status, 429, 'the stranger is locked out');
    assert.equal((await login(p, 'admin@example.com', PW, '10.1.0.1')).status, 303, 'the admin from home is not');
    assert.equal((await login(p, 'admin@example.com', PW, '10.1.0.2')).status, 303, 'nor from a new address');
  });

  test('a distributed attack is bounded per account; known addresses and a valid TOTP code still sign in', async () => {
    const p = await pharos();
    const admin = await setupAdmin(p, 'admin@example.com', PW);
    assert.equal((await login(p, 'admin@example.com', PW, '10.1.0.1')).status, 303);
    // 50 (5 × login_attempts) wrong passwords from 50 addresses: the account is closed to unknown addresses.
    const { result: rs, hashes: n } = await hashed(() => Promise.all(Array.from({ length: 60 }, (_, i) => login(p, 'admin@example.com', `wrong ${i}`, `198.51.100.${i + 1}`))));
    assert.ok(n <= 50, `${n} passwords were hashed`);
    assert.equal(checked(rs), n);
    const refused = await login(p, 'admin@example.com', PW, '192.0.2.7');
    assert.equal(refused.status, 429, 'a new address is refused while the attack lasts');
    assert.match(refused.html, /name="code"/, 'the page offers the TOTP code field');
    assert.equal((await login(p, 'admin@example.com', PW, '10.1.0.1')).status, 303, 'the known address is not');
    // With TOTP on, the code given with the password proves the person: not locked either.
    const secret = await enableTotp(p, admin);
    await p.advance(30_000);
    const withCode = await login(p, 'admin@example.com', PW, '192.0.2.8', { code: codeAt(secret, p.clock.now()) });
    assert.equal(withCode.status, 303);
    assert.equal(withCode.headers.get('location'), '/', 'signed in at once');
    assert.equal((await login(p, 'admin@example.com', PW, '192.0.2.9', { code: '000000' === codeAt(secret, p.clock.now()) ? '111111' : '000000' })).status, 429, 'a wrong code does not open the lock');
    // The window ends: new addresses are let in again.
    await p.advance(15 * 60_000);
    assert.equal((await login(p, 'admin@example.com', PW, '192.0.2.7')).status, 303);
  });
});

describe('point 8: a TOTP code works once', () => {
  test('the code that enabled TOTP, and a code used to sign in, are refused a second time within their step', async () => {
    const p = await pharos();
    const admin = await setupAdmin(p, 'admin@example.com', PW);
    const secret = await enableTotp(p, admin);
    const enabling = codeAt(secret, p.clock.now());
    const halfSignedIn = async () => cookieOf(await login(p, 'admin@example.com', PW, '10.2.0.1'));
    assert.equal((await post(p, '/login/totp', { code: enabling, next: '/' }, { ip: '10.2.0.1', cookie: await halfSignedIn() })).status, 401, 'the enabling code is spent');
    await p.advance(30_000);
    const code = codeAt(secret, p.clock.now());
    assert.equal((await post(p, '/login/totp', { code, next: '/' }, { ip: '10.2.0.1', cookie: await halfSignedIn() })).status, 303);
    assert.equal((await post(p, '/login/totp', { code, next: '/' }, { ip: '10.2.0.1', cookie: await halfSignedIn() })).status, 401, 'replayed within its step');
    await p.advance(30_000);
    assert.equal((await post(p, '/login/totp', { code: codeAt(secret, p.clock.now()), next: '/' }, { ip: '10.2.0.1', cookie: await halfSignedIn() })).status, 303, 'the next step’s code works');
  });

  test('the same code sent twice at once (two half-signed-in sessions, concurrent requests): one signs in', async () => {
    const p = await pharos();
    const admin = await setupAdmin(p, 'admin@example.com', PW);
    const secret = await enableTotp(p, admin);
    await p.advance(30_000);
    const cookies = await Promise.all([1, 2, 3, 4].map(async () => cookieOf(await login(p, 'admin@example.com', PW, '10.2.0.3'))));
    const code = codeAt(secret, p.clock.now());
    const rs = await Promise.all(cookies.map((cookie) => post(p, '/login/totp', { code, next: '/' }, { ip: '10.2.0.3', cookie })));
    assert.deepEqual(rs.map((r) => r.status).sort(), [303, 401, 401, 401]);
  });

  test('the last accepted step survives a restart', async () => {
    const dataDir = tempDir();
    const clock = new ManualClock();
    const p1 = await startTestPharos({ data_dir: dataDir, console: { trust_proxy: true } }, clock);
    let p2: TestPharos | undefined;
    cleanups.push(async () => {
      await p2?.close();
      await p1.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const admin = await setupAdmin(p1, 'admin@example.com', PW);
    const secret = await enableTotp(p1, admin);
    await p1.close();
    p2 = await startTestPharos({ data_dir: dataDir, console: { trust_proxy: true } }, clock);
    const pw = await login(p2, 'admin@example.com', PW, '10.2.0.2');
    assert.equal((await post(p2, '/login/totp', { code: codeAt(secret, clock.now()), next: '/' }, { ip: '10.2.0.2', cookie: cookieOf(pw) })).status, 401);
  });
});

describe('point 9: the setup link expires after an hour', () => {
  test('the log says when; after an hour the link is refused; a restart prints a new one that works', async () => {
    const dataDir = tempDir();
    const clock = new ManualClock();
    const lines: string[] = [];
    const logger = createLogger('info', (l) => void lines.push(l), 'text');
    const p1 = await startTestPharos({ data_dir: dataDir }, clock, logger);
    let p2: TestPharos | undefined;
    cleanups.push(async () => {
      await p2?.close();
      await p1.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const line = lines.find((l) => l.includes('/setup/'))!;
    assert.match(line, /expires at 2026-01-01T13:00:00Z/);
    await p1.advance(59 * 60_000);
    assert.equal((await consoleClient(p1).get(`/setup/${p1.setupToken}`)).status, 200, 'still open at 59 minutes');
    await p1.advance(60_000);
    const get = await consoleClient(p1).get(`/setup/${p1.setupToken}`);
    assert.equal(get.status, 403);
    assert.match(get.html, /expired/);
    assert.match(get.html, /pharos user create/);
    const postRes = await consoleClient(p1).post(`/setup/${p1.setupToken}`, { email: 'late@example.com', password: 'a long password' }, { csrf: null });
    assert.equal(postRes.status, 403);
    assert.equal((await p1.core.accounts.list()).length, 0, 'nobody was made');
    await p1.close();
    p2 = await startTestPharos({ data_dir: dataDir }, clock, logger);
    assert.ok(p2.setupToken && p2.setupToken !== p1.setupToken);
    assert.equal((await consoleClient(p2).get(`/setup/${p2.setupToken}`)).status, 200);
    await setupAdmin(p2);
  });
});
