import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { freePort, startOidcProvider, startSamlIdp, type TestOidcProvider, type TestSamlIdp } from '../support/idp.ts';

// The whole single sign-on redirect dance in headless Chromium (issue 19): a status page behind
// OpenID Connect (oidc-provider on 127.0.0.1) and one behind SAML (the test's signing IdP, whose
// page auto-posts the response like real IdPs do).
let browser: Browser;
let idp: TestOidcProvider;
let saml: TestSamlIdp;
let p: TestPharos;

before(async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider([{ client_id: 'pharos', client_secret: 'pharos-secret-0123456789', redirect_uris: [`${base}/sso/oidc/callback`] }]);
  idp.accounts = { alice: { email: 'alice@good.test', email_verified: true } };
  idp.signInAs = 'alice';
  saml = await startSamlIdp();
  p = await startTestPharos(
    { listen: `127.0.0.1:${port}`, public_url: base, status_pages: { hosted_domain: 'pages.test' }, identity_providers: [{ name: 'google', type: 'oidc', issuer: idp.issuer, client_id: 'pharos', client_secret: 'pharos-secret-0123456789', allow_http: true }] },
    new ManualClock(Date.now()),
  );
  const conn = await (await p.api('/v1/sso-connections', { method: 'POST', json: { name: 'Acme IdP', provider: 'generic', entry_point: saml.entryPoint, issuer: saml.entityId, idp_certificate: saml.keys.cert } })).json();
  for (const body of [
    { name: 'Intranet Status', subdomain: 'intranet', authentication: { google_sso: true, google_allowed_domains: ['good.test'] } },
    { name: 'Partner Status', subdomain: 'partners', authentication: { saml_sso: true, sso_connection_uuid: conn.uuid } },
  ]) {
    assert.equal((await p.api('/v2/statuspages', { method: 'POST', json: body })).status, 201);
  }
  // <subdomain>.pages.test reaches the same server: the page on its own host.
  browser = await launchBrowser(['--host-resolver-rules=MAP *.pages.test 127.0.0.1']);
});
after(async () => {
  await browser?.close();
  await p?.cleanup();
  await idp?.close();
  await saml?.close();
});

describe('single sign-on in Chromium', () => {
  for (const [kind, subdomain, name, button] of [
    ['OIDC', 'intranet', 'Intranet Status', 'Sign in with 127.0.0.1'],
    ['SAML', 'partners', 'Partner Status', 'Sign in with Acme IdP'],
  ] as const) {
    test(`${kind}: the wall, the identity provider and back to the page, which then stays open`, async () => {
      const context = await browser.newContext();
      try {
        const tab = await context.newPage();
        const visited: string[] = [];
        // Every top-level request, redirects included: the dance must pass through the provider.
        tab.on('request', (r) => {
          if (r.isNavigationRequest()) visited.push(new URL(r.url()).origin);
        });
        const wall = await tab.goto(`${p.url}/status/${subdomain}/history`);
        assert.equal(wall?.status(), 401);
        assert.ok(!(await tab.content()).includes(name), 'the wall names nothing of the page');
        await Promise.all([tab.waitForURL(`${p.url}/status/${subdomain}/history`), tab.getByRole('link', { name: button }).click()]);
        assert.equal(await tab.locator('h1, .brand').first().innerText().then((t) => t.includes(name)), true, 'the page itself, after the dance');
        const cookie = (await context.cookies()).find((c) => c.name === 'pharos_page');
        assert.equal(cookie?.path, `/status/${subdomain}`);
        assert.equal(cookie?.httpOnly, true);
        assert.ok(visited.includes(kind === 'OIDC' ? idp.issuer : new URL(saml.entryPoint).origin), `the browser went through the provider: ${visited.join(' → ')}`);
        const again = await tab.goto(`${p.url}/status/${subdomain}`);
        assert.equal(again?.status(), 200);
        assert.match(await tab.locator('.banner').innerText(), /\S/);
      } finally {
        await context.close();
      }
    });
  }

  test('OIDC on the page’s own host: the sign-in runs on the public URL and hands over to that host', async () => {
    const context = await browser.newContext();
    try {
      const tab = await context.newPage();
      const own = `http://intranet.pages.test:${new URL(p.url).port}`;
      assert.equal((await tab.goto(`${own}/`))?.status(), 401);
      await Promise.all([tab.waitForURL(`${own}/`), tab.getByRole('link', { name: 'Sign in with 127.0.0.1' }).click()]);
      assert.ok((await tab.content()).includes('Intranet Status'));
      const cookie = (await context.cookies(own)).find((c) => c.name === 'pharos_page');
      assert.equal(cookie?.domain, 'intranet.pages.test');
      assert.equal(cookie?.path, '/');
    } finally {
      await context.close();
    }
  });
});
