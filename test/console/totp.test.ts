import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { consoleClient, setupAdmin } from '../support/console.ts';

// Optional TOTP second factor of the console (issue 16), over HTTP on a manual clock.
let p: TestPharos;
before(async () => {
  p = await startTestPharos();
});
after(() => p.cleanup());

const codeAt = (secret: string, at: number) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: at });

test('TOTP: set up with a QR code and a confirming code, then sign-in asks for the code; recovery codes work once', async () => {
  const admin = await setupAdmin(p);
  const start = await admin.post('/settings/totp/start', {});
  assert.equal(start.status, 200);
  assert.match(start.html, /<div class="qr"><svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  const secret = /name="secret" value="([A-Z2-7]+)"/.exec(start.html)![1]!;
  const wrong = await admin.post('/settings/totp/enable', { secret, code: '000000' === codeAt(secret, p.clock.now()) ? '111111' : '000000' });
  assert.equal(wrong.status, 400);
  assert.match(wrong.html, /data-error-for="code">does not match/);
  const on = await admin.post('/settings/totp/enable', { secret, code: codeAt(secret, p.clock.now()) });
  assert.equal(on.status, 200);
  const codes = /id="recovery-codes">([^<]+)</.exec(on.html)![1]!.trim().split(' ');
  assert.equal(codes.length, 10);

  // Sign in again: the password alone opens nothing.
  const cl = consoleClient(p);
  const pw = await cl.post('/login', { email: 'admin@example.com', password: 'correct horse battery' }, { csrf: null });
  assert.equal(pw.status, 303);
  assert.equal(pw.headers.get('location'), '/login/totp?next=%2F');
  assert.equal((await cl.get('/outages')).status, 303, 'a half-signed-in session opens nothing');
  assert.equal((await cl.post('/login/totp', { code: '12345x', next: '/' }, { csrf: null })).status, 401);
  await p.advance(60_000);
  const ok = await cl.post('/login/totp', { code: codeAt(secret, p.clock.now()), next: '/outages' }, { csrf: null });
  assert.equal(ok.status, 303);
  assert.equal(ok.headers.get('location'), '/outages');
  assert.equal((await cl.get('/outages')).status, 200);

  // A recovery code instead of the app's code, once.
  for (const expected of [303, 401]) {
    const other = consoleClient(p);
    await other.post('/login', { email: 'admin@example.com', password: 'correct horse battery' }, { csrf: null });
    assert.equal((await other.post('/login/totp', { code: codes[0]!, next: '/' }, { csrf: null })).status, expected);
  }
  // Turning it off needs the password.
  await cl.get('/settings');
  assert.equal((await cl.post('/settings/totp/disable', { current_password: 'nope' })).status, 400);
  assert.equal((await cl.post('/settings/totp/disable', { current_password: 'correct horse battery' })).status, 200);
  const plain = await consoleClient(p).post('/login', { email: 'admin@example.com', password: 'correct horse battery' }, { csrf: null });
  assert.equal(plain.headers.get('location'), '/');
});
