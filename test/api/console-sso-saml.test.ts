import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { startTestPharos, tempDir, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { Walker, freePort, readAuthnRequest, startSamlIdp, type TestSamlIdp } from '../support/idp.ts';
import { consoleClient, setupAdmin } from '../support/console.ts';

// The console behind a SAML SSO connection (`console.sso: sso_…`, issue 19) against the test IdP
// that signs real assertions (openssl key, xml-crypto). The connection is made through the API,
// then Pharos restarts on the same data with `console.sso` naming it.
let idp: TestSamlIdp;
let p: TestPharos;
const dataDir = tempDir();

before(async () => {
  const port = await freePort();
  idp = await startSamlIdp();
  const base = { listen: `127.0.0.1:${port}`, public_url: `http://127.0.0.1:${port}`, data_dir: dataDir, status_pages: { sign_in_per_minute: 1000 } };
  const first = await startTestPharos(base);
  const c = await first.api('/v1/sso-connections', { method: 'POST', json: { name: 'Corp IdP', entry_point: idp.entryPoint, issuer: idp.entityId, idp_certificate: idp.keys.cert } });
  assert.equal(c.status, 201);
  const { uuid } = (await c.json()) as { uuid: string };
  await first.cleanup();
  p = await startTestPharos({ ...base, console: { sso: uuid, sso_allowed_domains: ['good.test'] } }, new ManualClock(Date.now()));
});
after(async () => {
  await p?.cleanup();
  await idp?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** From the console's button through the IdP to the ACS; returns Pharos's answer to the ACS post and the session cookie. */
async function samlSignIn(email: string) {
  idp.signInAs = email;
  const w = new Walker();
  const r = await w.follow(`${p.url}/login/sso?next=/outages`, (u) => u.href.startsWith(idp.entryPoint));
  const req = readAuthnRequest(new URL(r.url));
  const res = await w.request(req.acs, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ SAMLResponse: idp.respond(req), RelayState: req.relayState }) });
  return { res, body: await res.text(), session: w.jar.get(new URL(p.url).origin)?.get('pharos_session') };
}

test('the console signs a person in through the SAML connection: button, viewer session, other domain refused', async () => {
  const admin = await setupAdmin(p);
  assert.match((await consoleClient(p).get('/login')).html, /Sign in with Corp IdP/);
  const ok = await samlSignIn('sam@good.test');
  assert.equal(ok.res.status, 303, ok.body.slice(0, 300));
  assert.equal(ok.res.headers.get('location'), '/outages');
  assert.ok(ok.session);
  const cl = consoleClient(p);
  cl.cookie = `pharos_session=${ok.session}`;
  assert.equal((await cl.get('/outages')).status, 200);
  assert.match((await admin.get('/settings')).html, /<tr data-user="sam@good\.test">[\s\S]*?<td>viewer<\/td>/);
  // Issue 32 point 5: the person made by the first sign-in is in the audit log, by the connection.
  const sam = (await p.core.accounts.byEmail('sam@good.test'))!;
  const [made] = ((await (await p.api(`/v1/audit-log?resource_uuid=${sam.uuid}`)).json()) as { entries: Array<{ action: string; actor: unknown }> }).entries;
  assert.equal(made?.action, 'create');
  assert.deepEqual(made?.actor, { type: 'system', id: 'sso', name: 'Corp IdP' });
  const no = await samlSignIn('sam@other.test');
  assert.equal(no.res.status, 403);
  assert.match(no.body, /sam@other\.test may not sign in to this console/);
  assert.equal(no.session, undefined);
});
