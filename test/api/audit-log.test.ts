import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin, type ConsoleClient } from '../support/console.ts';

// Issue 32 point 5: every create/update/delete appends an audit entry in its own transaction, with
// who acted (token, console user, CLI) and a diff whose secrets are `***`; GET /v1/audit-log and the
// console's Audit log page read it with filters and cursor paging. Both stores (PHAROS_TEST_DRIVER).

const HEADER_SECRET = 'Bearer sekrit-header-7f3a9c';
const URL_SECRET = 'url-pass-91bd';
const PAGE_PASSWORD = 'page password 4411';

let p: TestPharos;
let tokenId: string;
let cl: ConsoleClient;

interface Entry {
  id: number;
  at: string;
  actor: { type: string; id: string; name: string };
  action: string;
  resource_type: string;
  resource_uuid: string;
  resource_name: string;
  diff: Record<string, { before?: unknown; after?: unknown }>;
}

const log = async (query = ''): Promise<{ entries: Entry[]; next_cursor: string | null; text: string }> => {
  const res = await p.api(`/v1/audit-log${query}`);
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return { ...(JSON.parse(text) as { entries: Entry[]; next_cursor: string | null }), text };
};
const of = async (uuid: string) => (await log(`?resource_uuid=${encodeURIComponent(uuid)}`)).entries;
/** Every stored entry, as the database holds it. */
const storedText = () => JSON.stringify(p.store.auditLog.page({}, 500).entries);

before(async () => {
  p = await startTestPharos({});
  tokenId = (await p.core.users.listTokens()).find((t) => t.name === 'PHAROS_ADMIN_TOKEN')!.id;
  cl = await setupAdmin(p);
});
after(() => p.cleanup());

describe('the audit log records API changes with the token as actor', () => {
  test('a monitor: create, update, delete; header values and the URL password never stored nor answered', async () => {
    const created = await p.api('/v1/monitors', {
      method: 'POST',
      json: { name: 'Shop', url: `https://bot:${URL_SECRET}@shop.example/health`, request_headers: [{ name: 'Authorization', value: HEADER_SECRET }] },
    });
    assert.equal(created.status, 201);
    const m = (await created.json()) as { uuid: string };
    const updated = await p.api(`/v1/monitors/${m.uuid}`, { method: 'PUT', json: { name: 'Shop front', request_headers: [{ name: 'Authorization', value: `${HEADER_SECRET}-2` }] } });
    assert.equal(updated.status, 200);
    assert.equal((await p.api(`/v1/monitors/${m.uuid}`, { method: 'DELETE' })).status, 200);

    const entries = await of(m.uuid);
    assert.deepEqual(
      entries.map((e) => e.action),
      ['delete', 'update', 'create'],
      'newest first',
    );
    for (const e of entries) {
      assert.deepEqual(e.actor, { type: 'token', id: tokenId, name: 'PHAROS_ADMIN_TOKEN (admin@localhost)' });
      assert.equal(e.resource_type, 'monitor');
    }
    const [del, upd, cre] = entries as [Entry, Entry, Entry];
    assert.equal(cre.resource_name, 'Shop');
    assert.deepEqual(cre.diff.name, { after: 'Shop' });
    assert.deepEqual(cre.diff.url, { after: 'https://bot:***@shop.example/health' });
    assert.deepEqual(cre.diff['settings.request_headers'], { after: [{ name: 'Authorization', value: '***' }] });
    assert.deepEqual(upd.diff.name, { before: 'Shop', after: 'Shop front' });
    assert.deepEqual(upd.diff['settings.request_headers'], { before: [{ name: 'Authorization', value: '***' }], after: [{ name: 'Authorization', value: '***' }] }, 'a changed secret is listed, masked');
    assert.equal(upd.diff.url, undefined, 'unchanged fields are not listed');
    assert.equal(del.resource_name, 'Shop front');
    assert.deepEqual(del.diff.name, { before: 'Shop front' });

    const answer = (await log()).text;
    for (const secret of [HEADER_SECRET, URL_SECRET, 'sekrit']) {
      assert.ok(!answer.includes(secret), `the answer does not hold ${secret}`);
      assert.ok(!storedText().includes(secret), `the stored entries do not hold ${secret}`);
    }
  });

  test('a healthcheck: create, update, pause, delete (named by its public hc_ uuid, never the ping token)', async () => {
    const res = await p.api('/v1/healthchecks', { method: 'POST', json: { name: 'backup', grace_period_value: 5, grace_period_type: 'minutes', period_value: 1, period_type: 'days' } });
    assert.equal(res.status, 201);
    const hc = ((await res.json()) as { healthcheck: { uuid: string } }).healthcheck;
    const publicUuid = (await p.core.healthchecks.get(hc.uuid)).publicUuid;
    assert.equal((await p.api(`/v1/healthchecks/${hc.uuid}`, { method: 'PUT', json: { name: 'nightly backup', grace_period_value: 10, grace_period_type: 'minutes', period_value: 1, period_type: 'days' } })).status, 200);
    assert.equal((await p.api(`/v1/healthchecks/${hc.uuid}/pause`, { method: 'POST' })).status, 200);
    assert.equal((await p.api(`/v1/healthchecks/${hc.uuid}`, { method: 'DELETE' })).status, 200);
    const entries = await of(publicUuid);
    assert.deepEqual(
      entries.map((e) => e.action),
      ['delete', 'update', 'update', 'create'],
    );
    assert.deepEqual(entries[3]!.diff.name, { after: 'backup' });
    assert.deepEqual(entries[2]!.diff, { name: { before: 'backup', after: 'nightly backup' }, graceValue: { before: 5, after: 10 } });
    assert.deepEqual(entries[1]!.diff, { paused: { before: false, after: true } });
    assert.deepEqual(entries[0]!.diff.name, { before: 'nightly backup' });
    assert.ok(entries.every((e) => e.actor.type === 'token' && e.resource_type === 'healthcheck'));
    assert.ok(!(await log()).text.includes(hc.uuid), 'the ping token is in no entry');
  });

  test('a status page: its password is *** in the diff and nowhere in the store or the answer', async () => {
    const res = await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Acme', subdomain: 'acme-audit', password: PAGE_PASSWORD, settings: { authentication: { password_protection: true } } } });
    assert.equal(res.status, 201, await res.clone().text());
    const sp = (await res.json()) as { statuspage?: { uuid: string }; uuid?: string };
    const uuid = (sp.statuspage?.uuid ?? sp.uuid)!;
    assert.equal((await p.api(`/v2/statuspages/${uuid}`, { method: 'PUT', json: { password: `${PAGE_PASSWORD}-new` } })).status, 200);
    assert.equal((await p.api(`/v2/statuspages/${uuid}`, { method: 'DELETE' })).status, 200);
    const [del, upd, cre] = (await of(uuid)) as [Entry, Entry, Entry];
    assert.deepEqual([del.action, upd.action, cre.action], ['delete', 'update', 'create']);
    assert.deepEqual(cre.diff.password, { after: '***' });
    assert.deepEqual(upd.diff.password, { before: '***', after: '***' }, 'a new password is listed, masked');
    assert.equal(cre.actor.type, 'token');
    const answer = (await log()).text;
    assert.ok(!answer.includes(PAGE_PASSWORD) && !answer.includes('scrypt$'), 'neither the password nor its hash is answered');
    assert.ok(!storedText().includes(PAGE_PASSWORD) && !storedText().includes('scrypt$'), 'neither is stored');
  });
});

describe('console changes name the signed-in person', () => {
  test('a token made and revoked in the console, a monitor changed in the console', async () => {
    const me = (await p.core.accounts.byEmail('admin@example.com'))!;
    const made = await cl.post('/settings/tokens', { scope: 'read', name: 'ci reader' });
    assert.equal(made.status, 200);
    const token = (await p.core.users.listTokens()).find((t) => t.name === 'ci reader')!;
    assert.equal((await cl.post(`/settings/tokens/${token.id}/revoke`, {})).status, 303);
    const [revoked, created] = (await of(token.id)) as [Entry, Entry];
    assert.deepEqual(created.actor, { type: 'user', id: me.uuid, name: 'admin@example.com' });
    assert.equal(created.resource_type, 'token');
    assert.equal(created.action, 'create');
    assert.deepEqual(created.diff.scope, { after: 'read' });
    assert.equal(revoked.action, 'update');
    assert.deepEqual(revoked.diff.revoked, { before: false, after: true });
    assert.ok(!(await log()).text.includes('phr_'), 'no token secret in the log');

    const m = (await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'Console target', url: 'https://console.example/' } })).json()) as { uuid: string };
    assert.equal((await cl.post(`/monitors/${m.uuid}/pause`, {})).status, 303);
    const [paused] = (await of(m.uuid)) as [Entry];
    assert.deepEqual(paused.actor, { type: 'user', id: me.uuid, name: 'admin@example.com' });
    assert.deepEqual(paused.diff.paused, { before: false, after: true });

    const byMe = (await log(`?actor_type=user&actor_id=${me.uuid}`)).entries;
    assert.ok(byMe.length >= 3 && byMe.every((e) => e.actor.id === me.uuid));
  });

  test('the Audit log page renders entries and its filters as a plain GET form (no JavaScript needed)', async () => {
    const all = await cl.get('/audit-log');
    assert.equal(all.status, 200);
    assert.match(all.html, /<form[^>]*method="get"[^>]*action="\/audit-log"/);
    assert.match(all.html, /href="\/audit-log"[^>]*>Audit log</, 'linked from the navigation');
    assert.match(all.html, /ci reader/);
    const tokens = await cl.get('/audit-log?resource_type=token&resource_uuid=&actor_type=&actor_id=&since=&until=');
    assert.equal(tokens.status, 200, 'empty fields of the form are no filter');
    assert.match(tokens.html, /ci reader/);
    assert.doesNotMatch(tokens.html, /Console target/, 'the filter applies');
    assert.match(tokens.html, /<option value="token" selected/);
    const pages = await cl.get('/audit-log?resource_type=statuspage');
    assert.match(pages.html, /<ins>\*\*\*<\/ins>/, 'a secret is *** in the diff');
    assert.ok(!pages.html.includes(PAGE_PASSWORD));
    const bad = await cl.get('/audit-log?since=yesterday');
    assert.equal(bad.status, 400);
    assert.match(bad.html, /since: must be an ISO 8601 date/);
  });
});

describe('GET /v1/audit-log filters and pages', () => {
  test('cursor paging walks every entry once, newest first', async () => {
    const everything = (await log('?limit=500')).entries;
    assert.ok(everything.length >= 12, `${everything.length} entries`);
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: { entries: Entry[]; next_cursor: string | null } = await log(`?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      assert.ok(page.entries.length <= 5);
      seen.push(...page.entries.map((e) => e.id));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(seen, everything.map((e) => e.id));
    const times = everything.map((e) => Date.parse(e.at));
    assert.deepEqual(times, [...times].sort((a, b) => b - a));
  });

  test('resource_type, actor_type, since and until filter', async () => {
    const monitors = (await log('?resource_type=monitor')).entries;
    assert.ok(monitors.length > 0 && monitors.every((e) => e.resource_type === 'monitor'));
    const tokens = (await log('?actor_type=token')).entries;
    assert.ok(tokens.length > 0 && tokens.every((e) => e.actor.type === 'token'));
    const now = p.clock.now();
    assert.equal((await log(`?since=${new Date(now + 86_400_000).toISOString()}`)).entries.length, 0);
    assert.equal((await log(`?until=${new Date(now - 86_400_000).toISOString().slice(0, 10)}`)).entries.length, 0);
    assert.ok((await log(`?since=${new Date(now - 86_400_000).toISOString().slice(0, 10)}`)).entries.length > 0);
  });

  test('bad filters are 400 naming the parameter; a read token may read', async () => {
    for (const [q, name] of [
      ['resource_type=planet', 'resource_type'],
      ['actor_type=robot', 'actor_type'],
      ['since=last+week', 'since'],
      ['until=2025-13-45', 'until'],
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=ten', 'limit'],
      ['cursor=not-a-cursor', 'cursor'],
    ] as const) {
      const res = await p.api(`/v1/audit-log?${q}`);
      assert.equal(res.status, 400, q);
      const body = (await res.json()) as { error: string; message: string };
      assert.ok(body.message.startsWith(`${name}: `), `${q} → ${body.message}`);
    }
    const read = (await p.core.users.createToken({ email: 'reader@example.com', name: 'Reader', scope: 'read' }, { type: 'system', id: 'test', name: 'test' })).token;
    assert.equal((await p.api('/v1/audit-log', { token: read })).status, 200);
    assert.equal((await p.api('/v1/audit-log', { token: null })).status, 401);
  });
});
