import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rawDb } from '../../src/store/index.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpReceiver } from '../support/receivers.ts';

// Issue 32 points 1, 2: /v1/integrations — stored alert channels with sealed secrets, partial merge,
// `***` keeping a stored secret, provisioned ones read-only, deleting one in use refused. Runs on
// both stores (PHAROS_TEST_DRIVER=postgres).
const URL_KEY = 'urlkey-SECRET-8c1f0a';
const HEADER = 'hdr-SECRET-3e9b27';
const HMAC = 'hmac-SECRET-d41c77';
const ALL = [URL_KEY, HEADER, HMAC];

let p: TestPharos;
let receiver: Awaited<ReturnType<typeof httpReceiver>>;
let readToken: string;
const system = { type: 'system' as const, id: 'test', name: 'test' };

function assertNoSecret(text: string, where: string): void {
  for (const s of ALL) assert.ok(!text.includes(s), `${where} shows the secret ${s}`);
}

/** The stored row as bytes (settings and sealed secrets). */
function storedRow(uuid: string): string {
  const row = rawDb(p.store).prepare<[string], { settings: string; secrets: string }>('SELECT settings, secrets FROM integrations WHERE uuid = ?').get(uuid);
  assert.ok(row, `row of ${uuid}`);
  return row.settings + row.secrets;
}

const webhook = (name: string) => ({
  name,
  type: 'webhook',
  settings: { url: `${receiver.url}/hook/${name}?key=${URL_KEY}`, secret: HMAC, headers: { Authorization: `Bearer ${HEADER}` } },
});

before(async () => {
  p = await startTestPharos();
  receiver = await httpReceiver();
  readToken = (await p.core.users.createToken({ email: 'reader@example.com', name: 'Reader', scope: 'read' }, system)).token;
});
after(async () => {
  await p.cleanup();
  await receiver.close();
});

describe('/v1/integrations', () => {
  test('create answers 201 with secrets "***"; the stored bytes hold no secret; list and get never show one', async () => {
    const res = await p.api('/v1/integrations', { method: 'POST', json: webhook('ops-hook') });
    const text = await res.text();
    assert.equal(res.status, 201, text);
    assertNoSecret(text, 'the create answer');
    const body = JSON.parse(text);
    assert.match(body.uuid, /^int_/);
    assert.equal(body.name, 'ops-hook');
    assert.equal(body.type, 'webhook');
    assert.equal(body.enabled, true);
    assert.equal(body.provisioned, false);
    assert.equal(body.last_test_at, null);
    assert.equal(body.settings.url, '***');
    assert.equal(body.settings.secret, '***');
    assert.deepEqual(body.settings.headers, { Authorization: '***' });
    assert.equal(body.settings.timeout_seconds, 10, 'the kind\'s defaults are applied');
    assert.ok(!Number.isNaN(Date.parse(body.created_at)));
    assertNoSecret(storedRow(body.uuid), 'the stored row');

    const list = await p.api('/v1/integrations');
    const listText = await list.text();
    assert.equal(list.status, 200);
    assertNoSecret(listText, 'the list');
    assert.ok(JSON.parse(listText).some((i: { uuid: string }) => i.uuid === body.uuid));
    const one = await p.api(`/v1/integrations/${body.uuid}`, { token: readToken });
    assert.equal(one.status, 200);
    assertNoSecret(await one.text(), 'a get with a read token');
  });

  test('bad bodies answer 400 naming the field and the rule; nothing is stored', async () => {
    const before = (await (await p.api('/v1/integrations')).json()).length;
    const cases: Array<[unknown, RegExp]> = [
      [{ type: 'webhook', settings: { url: 'http://x.test' } }, /^name: /],
      [{ name: '  ', type: 'webhook', settings: { url: 'http://x.test' } }, /^name: must not be empty/],
      [{ name: 'x', type: 'carrier-pigeon', settings: {} }, /^type: must be one of webhook, slack/],
      [{ name: 'x', type: 'webhook', settings: { url: 'not a url' } }, /^settings\.url: must be an http\(s\) URL/],
      [{ name: 'x', type: 'webhook', settings: {} }, /^settings\.url: /],
      [{ name: 'x', type: 'webhook', settings: { url: 'http://x.test', colour: 'red' } }, /^settings: .*colour|^settings\.colour/],
      [{ name: 'x', type: 'ntfy', settings: { topic: 'alerts', priority: 9 } }, /^settings\.priority: /],
      [{ name: 'x', type: 'webhook', settings: { url: '***' } }, /^settings\.url: is "\*\*\*" but no value is stored/],
      [{ name: 'x', type: 'webhook', settings: { url: 'http://x.test', name: 'y' } }, /^settings\.name: /],
      [{ name: 'x', type: 'webhook', settings: 'http://x.test' }, /^settings: must be an object/],
      [{ name: 'x', type: 'webhook', settings: { url: 'http://x.test' }, enabled: 'yes' }, /^enabled: must be true or false/],
    ];
    for (const [json, message] of cases) {
      const res = await p.api('/v1/integrations', { method: 'POST', json });
      const body = await res.json();
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.match(body.message, message, JSON.stringify(json));
      assert.equal(body.error, body.message);
    }
    assert.equal((await (await p.api('/v1/integrations')).json()).length, before);
  });

  test('a taken name answers 409 integrations.name_taken; a read token may not write (403)', async () => {
    const res = await p.api('/v1/integrations', { method: 'POST', json: webhook('ops-hook') });
    assert.equal(res.status, 409);
    const body = await res.json();
    assert.equal(body.code, 'integrations.name_taken');
    assert.match(body.message, /^name: "ops-hook" is taken/);
    assert.equal((await p.api('/v1/integrations', { method: 'POST', json: webhook('other'), token: readToken })).status, 403);
  });

  test('update merges settings key by key, "***" keeps a stored secret, PATCH alike; the merged whole is validated', async () => {
    const created = await (await p.api('/v1/integrations', { method: 'POST', json: webhook('merge-me') })).json();
    // Send back what was read, plus one header: every *** keeps its stored value.
    const put = await p.api(`/v1/integrations/${created.uuid}`, { method: 'PUT', json: { ...created, settings: { ...created.settings, headers: { Authorization: '***', 'X-Team': 'ops' } } } });
    const putText = await put.text();
    assert.equal(put.status, 200, putText);
    assertNoSecret(putText, 'the update answer');
    assert.deepEqual(JSON.parse(putText).settings.headers, { Authorization: '***', 'X-Team': '***' }, 'every header value is a secret');
    // Only the field given: the rest stays.
    const patch = await p.api(`/v1/integrations/${created.uuid}`, { method: 'PATCH', json: { name: 'merged', enabled: false } });
    const patched = await patch.json();
    assert.equal(patch.status, 200);
    assert.equal(patched.name, 'merged');
    assert.equal(patched.enabled, false);
    assert.deepEqual(patched.settings.headers, { Authorization: '***', 'X-Team': '***' });
    assert.equal(patched.settings.url, '***');
    assertNoSecret(storedRow(created.uuid), 'the stored row after updates');
    // The secrets kept are the ones sent at creation: a test delivery carries them.
    await p.api(`/v1/integrations/${created.uuid}`, { method: 'PATCH', json: { enabled: true } });
    const test = await (await p.api(`/v1/integrations/${created.uuid}/test`, { method: 'POST' })).json();
    assert.equal(test.ok, true, JSON.stringify(test));
    const got = receiver.received.filter((r) => r.path === `/hook/merge-me?key=${URL_KEY}`);
    assert.equal(got.length, test.answers.length, 'the stored URL with its key was used (alert, and recovery for a lifecycle kind)');
    assert.equal(got[0]!.headers.authorization, `Bearer ${HEADER}`);
    assert.equal(got[0]!.headers['x-team'], 'ops');
    // A merged whole that breaks a rule: 400 naming the field, nothing stored.
    const bad = await p.api(`/v1/integrations/${created.uuid}`, { method: 'PUT', json: { settings: { timeout_seconds: 0 } } });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).message, /^settings\.timeout_seconds: /);
    const changeKind = await p.api(`/v1/integrations/${created.uuid}`, { method: 'PUT', json: { type: 'slack' } });
    assert.equal(changeKind.status, 400);
    assert.match((await changeKind.json()).message, /^type: is webhook and cannot change/);
    assert.equal((await (await p.api(`/v1/integrations/${created.uuid}`)).json()).settings.timeout_seconds, 10);
  });

  test('POST /{uuid}/test answers with the provider\'s answer and records it', async () => {
    receiver.state.answer = (path) => (path.startsWith('/ntfy-down') ? 503 : 200);
    const ntfy = await (await p.api('/v1/integrations', { method: 'POST', json: { name: 'phone', type: 'ntfy', settings: { server: receiver.url, topic: 'pharos', token: 'tk-SECRET' } } })).json();
    const res = await p.api(`/v1/integrations/${ntfy.uuid}/test`, { method: 'POST' });
    const body = await res.json();
    assert.equal(res.status, 200);
    assert.deepEqual({ uuid: body.uuid, name: body.name, type: body.type, ok: body.ok, error: body.error }, { uuid: ntfy.uuid, name: 'phone', type: 'ntfy', ok: true, error: null });
    assert.deepEqual(body.answers, [{ kind: 'alert', status: 200, body: 'ok' }]);
    const sent = receiver.received.find((r) => r.path === '/' && r.body.includes('"topic":"pharos"'));
    assert.ok(sent, 'the ntfy server got the sample alert');
    assert.equal(sent.headers.authorization, 'Bearer tk-SECRET');
    assert.match(sent.body, /TEST/);
    const read = await (await p.api(`/v1/integrations/${ntfy.uuid}`)).json();
    assert.ok(read.last_test_at !== null);
    assert.match(read.last_test_result, /^ok: alert → 200/);

    const down = await (await p.api('/v1/integrations', { method: 'POST', json: { name: 'down', type: 'webhook', settings: { url: `${receiver.url}/ntfy-down` } } })).json();
    const failed = await (await p.api(`/v1/integrations/${down.uuid}/test`, { method: 'POST' })).json();
    assert.equal(failed.ok, false);
    assert.equal(failed.answers[0].status, 503);
    assert.ok(failed.error);
    assert.match((await (await p.api(`/v1/integrations/${down.uuid}`)).json()).last_test_result, /^failed: alert → 503/);
  });

  test('delete: 409 integrations.in_use naming the policies, then 200 once unused; unknown uuids 404 on every route', async () => {
    const hook = await (await p.api('/v1/integrations', { method: 'POST', json: webhook('in-use') })).json();
    const policy = await (await p.api('/v1/escalation-policies', { method: 'POST', json: { name: 'Night shift', steps: [{ delay_minutes: 0, targets: [{ type: 'integration', uuid: hook.uuid }] }] } })).json();
    assert.match(policy.uuid, /^ep_/);
    const refused = await p.api(`/v1/integrations/${hook.uuid}`, { method: 'DELETE' });
    assert.equal(refused.status, 409);
    const body = await refused.json();
    assert.equal(body.code, 'integrations.in_use');
    assert.match(body.message, /"Night shift" \(ep_/);
    assert.equal((await p.api(`/v1/escalation-policies/${policy.uuid}`, { method: 'DELETE' })).status, 200);
    assert.equal((await p.api(`/v1/integrations/${hook.uuid}`, { method: 'DELETE' })).status, 200);
    assert.equal((await p.api(`/v1/integrations/${hook.uuid}`)).status, 404);

    for (const [method, path, json] of [
      ['GET', '/v1/integrations/int_nope', undefined],
      ['PUT', '/v1/integrations/int_nope', { name: 'x' }],
      ['PATCH', '/v1/integrations/int_nope', { name: 'x' }],
      ['DELETE', '/v1/integrations/int_nope', undefined],
      ['POST', '/v1/integrations/int_nope/test', undefined],
    ] as const) {
      const res = await p.api(path, { method, ...(json ? { json } : {}) });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal((await res.json()).code, 'integrations.not_found');
    }
  });

  test('every write is in the audit log, secrets masked ("***"), a secret change listed', async () => {
    const hook = await (await p.api('/v1/integrations', { method: 'POST', json: webhook('audited') })).json();
    await p.api(`/v1/integrations/${hook.uuid}`, { method: 'PUT', json: { settings: { secret: 'hmac-SECRET-changed' } } });
    await p.api(`/v1/integrations/${hook.uuid}`, { method: 'DELETE' });
    const page = await p.store.async.auditLog.page({ resourceType: 'integration', resourceUuid: hook.uuid }, 10);
    const text = JSON.stringify(page);
    assertNoSecret(text, 'the audit log');
    assert.ok(!text.includes('hmac-SECRET-changed'));
    assert.deepEqual(page.entries.map((e) => e.action), ['delete', 'update', 'create']);
    const update = page.entries[1]!;
    assert.deepEqual(update.diff, { 'settings.secret': { before: '***', after: '***' } });
    assert.equal(update.actor.type, 'token');
    assert.equal(update.resourceName, 'audited');
  });

  test('the OpenAPI document lists the routes', async () => {
    const doc = await (await p.api('/openapi.json', { token: null })).json();
    for (const path of ['/v1/integrations', '/v1/integrations/{uuid}', '/v1/integrations/{uuid}/test']) assert.ok(doc.paths[path], path);
    assert.ok(doc.paths['/v1/integrations/{uuid}'].patch);
  });
});
