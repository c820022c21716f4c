import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { setupAdmin, signIn, type ConsoleClient } from '../support/console.ts';
import { Walker, freePort, samlKeys, startOidcProvider, type SamlKeys, type TestOidcProvider } from '../support/idp.ts';

// Issue 32 point 5, the rest of "settings": SAML SSO connections (API), console invitations, a
// person made by their first console single sign-on (actor system/sso named by the door), and ending
// sessions (a `user` update). Each entry is written in the change's own procedure. Both stores
// (PHAROS_TEST_DRIVER); a real OIDC provider on 127.0.0.1 for the console's door.

const CLIENT_SECRET = 'pharos-oidc-secret-5be2c9d1';
let idp: TestOidcProvider;
let p: TestPharos;
let admin: ConsoleClient;
let tokenId: string;
let certA: SamlKeys;
let certB: SamlKeys;

interface Entry {
  actor: { type: string; id: string; name: string };
  action: string;
  resource_type: string;
  resource_uuid: string;
  resource_name: string;
  diff: Record<string, { before?: unknown; after?: unknown }>;
}

const of = async (uuid: string): Promise<Entry[]> => {
  const res = await p.api(`/v1/audit-log?resource_uuid=${encodeURIComponent(uuid)}`);
  assert.equal(res.status, 200);
  return ((await res.json()) as { entries: Entry[] }).entries;
};
/** Every stored entry, as the database holds it. */
const storedText = () => JSON.stringify(p.store.auditLog.page({}, 500).entries);
const fingerprint = (pem: string) => `sha256:${createHash('sha256').update(Buffer.from(pem.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64')).digest('hex')}`;
const pemBody = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '').slice(20, 80);

before(async () => {
  certA = samlKeys('idp-a');
  certB = samlKeys('idp-b');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider([{ client_id: 'pharos', client_secret: CLIENT_SECRET, redirect_uris: [`${base}/sso/oidc/callback`] }]);
  idp.accounts = {
    newcomer: { email: 'newcomer@corp.test', email_verified: true },
    invited: { email: 'invited@corp.test', email_verified: true },
  };
  p = await startTestPharos({
    listen: `127.0.0.1:${port}`,
    public_url: base,
    identity_providers: [{ name: 'corp', type: 'oidc', issuer: idp.issuer, client_id: 'pharos', client_secret: CLIENT_SECRET, allow_http: true }],
    console: { sso: 'corp', sso_allowed_domains: ['corp.test'] },
  }, new ManualClock(Date.now()));
  tokenId = (await p.core.users.listTokens()).find((t) => t.name === 'PHAROS_ADMIN_TOKEN')!.id;
  admin = await setupAdmin(p);
});
after(async () => {
  await p?.cleanup();
  await idp?.close();
});

async function consoleSso(account: string): Promise<number> {
  idp.signInAs = account;
  const w = new Walker();
  const toIdp = await w.follow(`${p.url}/login/sso?next=/`, (u) => u.origin === idp.issuer);
  const back = await w.follow(toIdp.url, (u) => u.pathname === '/sso/oidc/callback');
  return (await w.request(back.url)).status;
}

describe('SSO connections (API) are settings entries', () => {
  test('create, update, delete: the token as actor, the certificate by its fingerprint, never its key', async () => {
    const res = await p.api('/v1/sso-connections', { method: 'POST', json: { name: 'Okta', provider: 'okta', entry_point: 'https://acme.okta.com/sso', issuer: 'http://www.okta.com/exk1', idp_certificate: certA.cert } });
    assert.equal(res.status, 201);
    const c = (await res.json()) as { uuid: string };
    assert.equal((await p.api(`/v1/sso-connections/${c.uuid}`, { method: 'PUT', json: { name: 'Okta (prod)', idp_certificate: certB.cert } })).status, 200);
    assert.equal((await p.api(`/v1/sso-connections/${c.uuid}`, { method: 'PUT', json: {} })).status, 200, 'an unchanged save');
    assert.equal((await p.api(`/v1/sso-connections/${c.uuid}`, { method: 'DELETE' })).status, 200);

    const [del, upd, cre] = (await of(c.uuid)) as [Entry, Entry, Entry];
    assert.deepEqual([del.action, upd.action, cre.action], ['delete', 'update', 'create'], 'the unchanged save records nothing');
    for (const e of [del, upd, cre]) {
      assert.equal(e.resource_type, 'settings');
      assert.deepEqual(e.actor, { type: 'token', id: tokenId, name: 'PHAROS_ADMIN_TOKEN (admin@localhost)' });
    }
    assert.equal(cre.resource_name, 'Okta');
    assert.deepEqual(cre.diff.entryPoint, { after: 'https://acme.okta.com/sso' });
    assert.deepEqual(cre.diff.idpCertificate, { after: fingerprint(certA.cert) });
    assert.deepEqual(upd.diff, { name: { before: 'Okta', after: 'Okta (prod)' }, idpCertificate: { before: fingerprint(certA.cert), after: fingerprint(certB.cert) } });
    assert.equal(del.resource_name, 'Okta (prod)');
    assert.deepEqual(del.diff.issuer, { before: 'http://www.okta.com/exk1' });
    for (const keys of [certA, certB]) {
      assert.ok(!storedText().includes(pemBody(keys.cert)), 'the PEM is not stored, its fingerprint is');
      assert.ok(!storedText().includes(pemBody(keys.key)), 'no private key');
    }
  });

  test('a connection a status page uses is not deleted, and no entry says it was', async () => {
    const c = (await (await p.api('/v1/sso-connections', { method: 'POST', json: { name: 'Kept', entry_point: 'https://idp.example/sso', issuer: 'kept', idp_certificate: certA.cert } })).json()) as { uuid: string };
    const page = await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Private', subdomain: 'audit-private', authentication: { saml_sso: true, sso_connection_uuid: c.uuid } } });
    assert.equal(page.status, 201, await page.clone().text());
    assert.equal((await p.api(`/v1/sso-connections/${c.uuid}`, { method: 'DELETE' })).status, 409);
    assert.deepEqual((await of(c.uuid)).map((e) => e.action), ['create'], 'the refused delete rolled back with its entry');
  });
});

describe('console invitations and single sign-on', () => {
  test('an invitation made, changed and revoked in the console: user entries named by the email, the admin as actor', async () => {
    const me = (await p.core.accounts.byEmail('admin@example.com'))!;
    assert.equal((await admin.post('/settings/invitations', { email: 'Later@Elsewhere.test', role: 'viewer' })).status, 200);
    assert.equal((await admin.post('/settings/invitations', { email: 'later@elsewhere.test', role: 'editor' })).status, 200);
    assert.equal((await admin.post('/settings/invitations/revoke', { email: 'later@elsewhere.test' })).status, 303);
    assert.equal((await admin.post('/settings/invitations/revoke', { email: 'later@elsewhere.test' })).status, 303, 'revoking again changes nothing');
    const [del, upd, cre] = (await of('later@elsewhere.test')) as [Entry, Entry, Entry];
    assert.deepEqual([del.action, upd.action, cre.action], ['delete', 'update', 'create']);
    for (const e of [del, upd, cre]) {
      assert.equal(e.resource_type, 'user');
      assert.equal(e.resource_name, 'later@elsewhere.test');
      assert.deepEqual(e.actor, { type: 'user', id: me.uuid, name: 'admin@example.com' });
    }
    assert.deepEqual(cre.diff, { 'invitation.role': { after: 'viewer' }, 'invitation.invitedBy': { after: 'admin@example.com' } });
    assert.deepEqual(upd.diff, { 'invitation.role': { before: 'viewer', after: 'editor' } });
    assert.deepEqual(del.diff['invitation.role'], { before: 'editor' });
  });

  test('a first single sign-on creates the person with the door as actor; the next one records nothing', async () => {
    assert.equal(await consoleSso('newcomer'), 303);
    const person = (await p.core.accounts.byEmail('newcomer@corp.test'))!;
    const [created] = (await of(person.uuid)) as [Entry];
    assert.deepEqual(created.actor, { type: 'system', id: 'sso', name: 'corp' });
    assert.equal(created.action, 'create');
    assert.equal(created.resource_type, 'user');
    assert.equal(created.resource_name, 'newcomer@corp.test');
    assert.deepEqual(created.diff.role, { after: 'viewer' });
    assert.equal(await consoleSso('newcomer'), 303);
    assert.equal((await of(person.uuid)).length, 1, 'signing in again is no change');
    assert.ok(!storedText().includes(CLIENT_SECRET), 'the provider secret is in no entry');
  });

  test('an invited email: the person is made with the invited role and the invitation used up is in the entry', async () => {
    assert.equal((await admin.post('/settings/invitations', { email: 'invited@corp.test', role: 'editor' })).status, 200);
    assert.equal(await consoleSso('invited'), 303);
    const person = (await p.core.accounts.byEmail('invited@corp.test'))!;
    const [created] = (await of(person.uuid)) as [Entry];
    assert.deepEqual(created.actor, { type: 'system', id: 'sso', name: 'corp' });
    assert.deepEqual(created.diff.role, { after: 'editor' });
    assert.deepEqual(created.diff.invitation, { before: { role: 'editor', invitedBy: 'admin@example.com' } });
  });
});

describe('ending sessions', () => {
  test('ending one session and signing out everywhere are user updates by the person (session count before and after)', async () => {
    await admin.post('/settings/users', { email: 'sam@example.com', name: 'Sam', role: 'viewer', password: 'sam long password' });
    const sam = (await p.core.accounts.byEmail('sam@example.com'))!;
    const first = await signIn(p, 'sam@example.com', 'sam long password');
    const [own] = await p.core.accounts.sessions(sam.uuid);
    await signIn(p, 'sam@example.com', 'sam long password');
    await signIn(p, 'sam@example.com', 'sam long password');
    const other = (await p.core.accounts.sessions(sam.uuid)).find((s) => s.ref !== own!.ref)!;
    await first.get('/settings');
    assert.equal((await first.post(`/settings/sessions/${other.ref}/end`, {})).status, 303);
    assert.equal((await first.post('/settings/sessions/end-all', {})).status, 303);
    const [all, one] = (await of(sam.uuid)) as [Entry, Entry];
    for (const e of [all, one]) {
      assert.deepEqual(e.actor, { type: 'user', id: sam.uuid, name: 'sam@example.com' });
      assert.equal(e.action, 'update');
      assert.equal(e.resource_type, 'user');
    }
    assert.deepEqual(one.diff, { sessions: { before: 3, after: 2 } });
    assert.deepEqual(all.diff, { sessions: { before: 2, after: 0 } });
    assert.ok(!JSON.stringify([all, one]).includes(other.ref), 'no session reference is recorded');
  });
});
