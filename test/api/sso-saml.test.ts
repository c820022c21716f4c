import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { Walker, assertionXml, freePort, readAuthnRequest, responseXml, samlKeys, signElement, startSamlIdp, type AuthnRequest, type TestSamlIdp } from '../support/idp.ts';

// Status pages behind SAML (issue 19) against a real signing IdP: the test's own key and
// certificate (openssl) sign assertions with xml-crypto; Pharos is the SP (node-saml).
const PAGE_NAME = 'Partner Status';
let idp: TestSamlIdp;
let p: TestPharos;
let conn: { uuid: string; acs_url: string; sp_entity_id: string; metadata_url: string };
let page: { uuid: string; subdomain: string };
let pageUrl: string;

before(async () => {
  const port = await freePort();
  idp = await startSamlIdp();
  p = await startTestPharos({ listen: `127.0.0.1:${port}`, public_url: `http://127.0.0.1:${port}`, status_pages: { sign_in_per_minute: 1000 } }, new ManualClock(Date.now()));
  const c = await p.api('/v1/sso-connections', { method: 'POST', json: { name: 'Test IdP', provider: 'generic', entry_point: idp.entryPoint, issuer: idp.entityId, idp_certificate: idp.keys.cert } });
  assert.equal(c.status, 201);
  conn = await c.json();
  const res = await p.api('/v2/statuspages', { method: 'POST', json: { name: PAGE_NAME, subdomain: 'partners', authentication: { saml_sso: true, sso_connection_uuid: conn.uuid } } });
  assert.equal(res.status, 201, await res.clone().text());
  page = (await res.json()).statuspage;
  pageUrl = `${p.url}/status/${page.subdomain}`;
});
after(async () => {
  await p?.cleanup();
  await idp?.close();
});

/** Starts a sign-in from the page's button; returns the walker and the AuthnRequest the IdP received. */
async function start(): Promise<{ w: Walker; req: AuthnRequest }> {
  const w = new Walker();
  const r = await w.follow(`${pageUrl}/sso/saml?next=/summary.json`, (u) => u.href.startsWith(idp.entryPoint));
  return { w, req: readAuthnRequest(new URL(r.url)) };
}

/** POSTs a SAMLResponse to the ACS like the IdP's auto-posting form, then follows Pharos's redirects. */
async function post(w: Walker, req: AuthnRequest, samlResponse: string) {
  const res = await w.request(req.acs, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: req.relayState }) });
  if (res.status !== 303) return { res, body: await res.text(), cookie: undefined };
  const done = await w.follow(new URL(res.headers.get('location')!, req.acs).href);
  return { res: done.res, body: await done.res.text(), cookie: w.jar.get(new URL(p.url).origin)?.get('pharos_page') };
}
const b64 = (xml: string) => Buffer.from(xml).toString('base64');

describe('status pages behind SAML', () => {
  test('the AuthnRequest and SP metadata name the connection’s ACS and entity id', async () => {
    const { req } = await start();
    assert.equal(req.acs, `${p.url}/sso/saml/${conn.uuid}/acs`);
    assert.equal(req.acs, conn.acs_url);
    assert.equal(req.issuer, conn.sp_entity_id);
    assert.match(req.id, /^_[0-9a-f]+/);
    const meta = await fetch(conn.metadata_url);
    assert.equal(meta.status, 200);
    const xml = await meta.text();
    assert.ok(xml.includes(`entityID="${conn.sp_entity_id}"`) && xml.includes(`Location="${conn.acs_url}"`), xml);
  });

  test('a signed assertion gets in and lands on next; before it nothing of the page is served', async () => {
    for (const path of ['', '/history', '/feed.atom', '/summary.json', '/badge.svg', '/subscribe']) {
      const res = await fetch(pageUrl + path);
      assert.equal(res.status, 401, path);
      assert.ok(!(await res.text()).includes(PAGE_NAME));
    }
    const { w, req } = await start();
    const r = await post(w, req, idp.respond(req));
    assert.equal(r.res.status, 200, r.body);
    assert.equal(JSON.parse(r.body).page.name, PAGE_NAME);
    assert.match(r.cookie ?? '', /^\d+\.[A-Za-z0-9_-]{43}$/);
  });

  test('a response signed as a whole (assertion unsigned) gets in too', async () => {
    const { w, req } = await start();
    const r = await post(w, req, idp.respond(req, { sign: 'response' }));
    assert.equal(r.res.status, 200, r.body);
  });

  test('an unsigned response is refused, and so is one signed by another key', async () => {
    let s = await start();
    let r = await post(s.w, s.req, idp.respond(s.req, { sign: 'none' }));
    assert.equal(r.res.status, 403);
    assert.equal(r.cookie, undefined);
    s = await start();
    r = await post(s.w, s.req, idp.respond(s.req, { keys: samlKeys('intruder') }));
    assert.equal(r.res.status, 403);
    assert.equal(r.cookie, undefined);
  });

  test('signature wrapping is refused: a second unsigned assertion, or the signed one moved aside', async () => {
    const base = { audience: conn.sp_entity_id, recipient: conn.acs_url, issuer: idp.entityId, notBeforeS: -60, notOnOrAfterS: 300 };
    // 1. The genuine signed assertion (for someone) plus an unsigned one for the attacker.
    let s = await start();
    const good = assertionXml({ ...base, email: 'alice@good.test', inResponseTo: s.req.id });
    const evil = assertionXml({ ...base, email: 'mallory@evil.test', inResponseTo: s.req.id });
    let xml = responseXml({ issuer: idp.entityId, destination: conn.acs_url, inResponseTo: s.req.id, assertions: [evil.xml, signElement(good.xml, good.id, idp.keys)] });
    let r = await post(s.w, s.req, b64(xml));
    assert.equal(r.res.status, 403);
    assert.equal(r.cookie, undefined);
    // 2. The signed assertion hidden in Extensions, the unsigned one where an assertion belongs.
    s = await start();
    const good2 = assertionXml({ ...base, email: 'alice@good.test', inResponseTo: s.req.id });
    const evil2 = assertionXml({ ...base, email: 'mallory@evil.test', inResponseTo: s.req.id });
    xml = responseXml({ issuer: idp.entityId, destination: conn.acs_url, inResponseTo: s.req.id, extensions: signElement(good2.xml, good2.id, idp.keys), assertions: [evil2.xml] });
    r = await post(s.w, s.req, b64(xml));
    assert.equal(r.res.status, 403);
    assert.equal(r.cookie, undefined);
  });

  test('a replayed response is refused: on the same sign-in, and on a new one', async () => {
    const s = await start();
    const signed = idp.respond(s.req);
    assert.equal((await post(s.w, s.req, signed)).res.status, 200);
    const again = await post(new Walker(), s.req, signed);
    assert.equal(again.res.status, 400, 'the sign-in it answered is used up');
    const fresh = await start();
    const replay = await post(fresh.w, { ...fresh.req }, signed);
    assert.equal(replay.res.status, 403, 'InResponseTo names another request');
    assert.equal(replay.cookie, undefined);
  });

  test('a signed assertion without its own InResponseTo, re-wrapped for a new request, is refused as a replay', async () => {
    const base = { audience: conn.sp_entity_id, recipient: conn.acs_url, issuer: idp.entityId, notBeforeS: -60, notOnOrAfterS: 300, email: 'alice@good.test', inResponseTo: '' };
    const first = await start();
    const a = assertionXml(base);
    const signed = signElement(a.xml, a.id, idp.keys);
    const ok = await post(first.w, first.req, b64(responseXml({ issuer: idp.entityId, destination: conn.acs_url, inResponseTo: first.req.id, assertions: [signed] })));
    assert.equal(ok.res.status, 200, 'the genuine use gets in');
    // An eavesdropper wraps the same signed assertion in a new (unsigned) response for their own request.
    const second = await start();
    const replay = await post(second.w, second.req, b64(responseXml({ issuer: idp.entityId, destination: conn.acs_url, inResponseTo: second.req.id, assertions: [signed] })));
    assert.equal(replay.res.status, 403);
    assert.equal(replay.cookie, undefined);
  });

  test('InResponseTo must be the request this sign-in sent', async () => {
    const first = await start();
    const second = await start();
    // A valid, signed answer to the first request, posted as the answer to the second sign-in.
    const r = await post(second.w, second.req, idp.respond(first.req));
    assert.equal(r.res.status, 403);
  });

  test('audience, recipient and time are checked; clock skew up to 2 minutes is accepted', async () => {
    const cases: Array<[string, Parameters<TestSamlIdp['respond']>[1], number]> = [
      ['wrong audience', { audience: 'https://other-sp.example/saml' }, 403],
      ['wrong recipient', { recipient: 'https://other-sp.example/acs' }, 403],
      ['expired 3 minutes ago', { notBeforeS: -600, notOnOrAfterS: -180 }, 403],
      ['not valid for another 3 minutes', { notBeforeS: 180, notOnOrAfterS: 600 }, 403],
      ['valid in 1 minute (within the skew)', { notBeforeS: 60, notOnOrAfterS: 600 }, 200],
      ['another issuer', { issuer: 'https://impostor.example/idp' }, 403],
    ];
    for (const [name, o, status] of cases) {
      const s = await start();
      const r = await post(s.w, s.req, idp.respond(s.req, o));
      assert.equal(r.res.status, status, name);
    }
  });
});

describe('SSO connections API', () => {
  test('create, read, list, partial update, in-use delete refused, page shows {uuid, name, provider}', async () => {
    const bad = await p.api('/v1/sso-connections', { method: 'POST', json: { name: 'X', entry_point: 'https://idp.example/sso', issuer: 'x', idp_certificate: 'not a certificate' } });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).message, /^idp_certificate: must be an X\.509 certificate/);
    const missing = await p.api('/v1/sso-connections', { method: 'POST', json: { name: 'X', issuer: 'x', idp_certificate: idp.keys.cert } });
    assert.equal(missing.status, 400);
    assert.match((await missing.json()).message, /^entry_point: is required/);
    const badUrl = await p.api('/v1/sso-connections', { method: 'POST', json: { name: 'X', entry_point: 'ftp://idp', issuer: 'x', idp_certificate: idp.keys.cert } });
    assert.equal(badUrl.status, 400);

    // Bare base64 DER (as IdP metadata shows it) is accepted and kept as PEM.
    const der = idp.keys.cert.replace(/-----[A-Z ]+-----|\s/g, '');
    const created = await p.api('/v1/sso-connections', { method: 'POST', json: { name: 'Okta', provider: 'okta', entry_point: 'https://acme.okta.com/app/sso/saml', issuer: 'http://www.okta.com/exk1', idp_certificate: der } });
    assert.equal(created.status, 201);
    const c = await created.json();
    assert.match(c.uuid, /^sso_[0-9A-Za-z]{22}$/);
    assert.match(c.idp_certificate, /^-----BEGIN CERTIFICATE-----/);
    assert.equal(c.acs_url, `${p.url}/sso/saml/${c.uuid}/acs`);
    assert.equal((await (await p.api(`/v1/sso-connections/${c.uuid}`)).json()).name, 'Okta');
    assert.ok((await (await p.api('/v1/sso-connections')).json()).some((x: { uuid: string }) => x.uuid === c.uuid));
    const put = await (await p.api(`/v1/sso-connections/${c.uuid}`, { method: 'PUT', json: { name: 'Okta (prod)' } })).json();
    assert.equal(put.name, 'Okta (prod)');
    assert.equal(put.issuer, 'http://www.okta.com/exk1', 'fields left out are kept');

    const sp = await (await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Okta page', authentication: { saml_sso: true, sso_connection_uuid: c.uuid } } })).json();
    assert.deepEqual(sp.statuspage.settings.authentication.sso_connection, { uuid: c.uuid, name: 'Okta (prod)', provider: 'okta' });
    const del = await p.api(`/v1/sso-connections/${c.uuid}`, { method: 'DELETE' });
    assert.equal(del.status, 409);
    await p.api(`/v2/statuspages/${sp.statuspage.uuid}`, { method: 'DELETE' });
    assert.equal((await p.api(`/v1/sso-connections/${c.uuid}`, { method: 'DELETE' })).status, 200);
    assert.equal((await p.api(`/v1/sso-connections/${c.uuid}`)).status, 404);
    const unknown = await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Bad', authentication: { saml_sso: true, sso_connection_uuid: c.uuid } } });
    assert.equal(unknown.status, 400);
    assert.match((await unknown.json()).message, /sso_connection_uuid: unknown SSO connection/);
    assert.equal((await p.api('/v1/sso-connections', { token: null })).status, 401);
  });
});
