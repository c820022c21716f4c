import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { freePort, startOidcProvider, type TestOidcProvider } from '../support/idp.ts';

// The console's single sign-on in headless Chromium (issue 19): the sign-in page's button, the
// OIDC provider (oidc-provider on 127.0.0.1) and back to the console, signed in.
let browser: Browser;
let idp: TestOidcProvider;
let p: TestPharos;

before(async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider([{ client_id: 'pharos', client_secret: 'pharos-secret-0123456789', redirect_uris: [`${base}/sso/oidc/callback`] }]);
  idp.accounts = { alice: { email: 'alice@good.test', email_verified: true } };
  idp.signInAs = 'alice';
  p = await startTestPharos(
    {
      listen: `127.0.0.1:${port}`,
      public_url: base,
      identity_providers: [{ name: 'corp', type: 'oidc', issuer: idp.issuer, client_id: 'pharos', client_secret: 'pharos-secret-0123456789', allow_http: true }],
      console: { sso: 'corp', sso_allowed_domains: ['good.test'] },
    },
    new ManualClock(Date.now()),
  );
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await p?.cleanup();
  await idp?.close();
});

test('Chromium: "Sign in with corp" goes through the provider and lands signed in on next; sign out everywhere ends it', async () => {
  const context = await browser.newContext();
  try {
    const tab = await context.newPage();
    const visited: string[] = [];
    tab.on('request', (r) => {
      if (r.isNavigationRequest()) visited.push(new URL(r.url()).origin);
    });
    await tab.goto(`${p.url}/outages`);
    assert.equal(new URL(tab.url()).pathname, '/login');
    await Promise.all([tab.waitForURL(`${p.url}/outages`), tab.getByRole('link', { name: 'Sign in with corp' }).click()]);
    assert.ok(visited.includes(idp.issuer), `the browser went through the provider: ${visited.join(' → ')}`);
    assert.match(await tab.content(), /alice@good\.test/);
    const cookie = (await context.cookies()).find((c) => c.name === 'pharos_session');
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, 'Lax');
    assert.equal(cookie?.path, '/');
    await tab.goto(`${p.url}/settings`);
    await Promise.all([tab.waitForURL(/\/login/), tab.getByRole('button', { name: /sign out everywhere/i }).click()]);
    await tab.goto(`${p.url}/settings`);
    assert.equal(new URL(tab.url()).pathname, '/login', 'the session is gone');
  } finally {
    await context.close();
  }
});
