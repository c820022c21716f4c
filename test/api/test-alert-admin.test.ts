import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpReceiver } from '../support/receivers.ts';
import { signIn } from '../support/console.ts';

// Issue #30 point 10: a test alert goes out through a real channel (a page at 3 am, a message in the
// company channel), so only admins may send one: editors and viewers get 403 and nothing is sent.
let p: TestPharos;
let hook: Awaited<ReturnType<typeof httpReceiver>>;

before(async () => {
  hook = await httpReceiver();
  p = await startTestPharos({ channels: [{ name: 'hook', type: 'webhook', url: `${hook.url}/hook` }] });
  for (const role of ['admin', 'editor', 'viewer'] as const) await p.core.accounts.create({ email: `${role}@example.com`, role, password: `${role} password 123` }, { type: 'system', id: 'test', name: 'test' });
});
after(async () => {
  await p?.cleanup();
  await hook?.close();
});

test('an editor or a viewer sending a test alert gets 403 and nothing is delivered; the button is only for admins', async () => {
  for (const role of ['editor', 'viewer'] as const) {
    const cl = await signIn(p, `${role}@example.com`, `${role} password 123`);
    const settings = await cl.get('/settings');
    assert.equal(settings.status, 200);
    assert.doesNotMatch(settings.html, /action="\/settings\/channels\/hook\/test"/, `no button for an ${role}`);
    const res = await cl.post('/settings/channels/hook/test', {});
    assert.equal(res.status, 403, `${role}: ${res.html.slice(0, 200)}`);
    assert.equal(hook.received.length, 0, `an ${role}'s test alert went out`);
  }
});

test('an admin sends one (the channel gets it); no API token has a route for it', async () => {
  const admin = await signIn(p, 'admin@example.com', 'admin password 123');
  assert.match((await admin.get('/settings')).html, /action="\/settings\/channels\/hook\/test"/);
  const res = await admin.post('/settings/channels/hook/test', {});
  assert.equal(res.status, 200, res.html.slice(0, 300));
  // The webhook follows an outage's lifecycle (issue 32): a test sends the sample alert, then its recovery.
  assert.deepEqual(hook.delivered('/hook').map((b) => b.event), ['outage.alert', 'outage.recovery']);
  for (const path of ['/v1/channels/hook/test', '/v1/alerts/test', '/v2/channels/hook/test']) {
    const api = await p.api(path, { method: 'POST', json: {} });
    assert.ok(api.status === 404 || api.status === 403, `${path}: ${api.status}`);
  }
  assert.equal(hook.received.length, 2, 'nothing more went out through the API paths');
});
