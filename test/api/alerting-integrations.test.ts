import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpReceiver } from '../support/receivers.ts';
import { storeWriter } from '../support/integrations.ts';

// Alerting reads integrations and policies from the database when it uses them (issue 32 point 2):
// a change made through the store (as the API and the console make it) is used by the next alert,
// without restart; a disabled or deleted integration fails its rows with the reason, never retried.
// Both stores (PHAROS_TEST_DRIVER=postgres).

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup() {
  const rx = await httpReceiver();
  cleanups.push(rx.close);
  const p = await startTestPharos({ public_url: 'https://pharos.example.com', alerting: { retry_base_seconds: 10 } });
  cleanups.push(() => p.cleanup());
  const w = storeWriter(p);
  return { p, rx, w };
}

async function manualOutage(p: TestPharos, policy: string) {
  const res = await p.api('/v2/outages', { method: 'POST', json: { description: 'Checkout broken', severity: 'critical', escalationPolicyUuid: policy } });
  assert.equal(res.status, 200, await res.clone().text());
  await p.advance(0);
  return (await res.json()).outage as { uuid: string };
}
const act = (p: TestPharos, uuid: string, action: string) => p.api(`/v2/outages/${uuid}/${action}`, { method: 'POST' });

test('an integration changed between two alerts: the second goes to the new URL, without restart', async () => {
  const { p, rx, w } = await setup();
  rx.state.answer = () => 204;
  const hook = await w.integration({ name: 'ops-hook', kind: 'webhook', settings: { url: `${rx.url}/first`, headers: { authorization: 'Bearer one' } } }, p.clock.now());
  const policy = await w.policy({ name: 'Ops', steps: [{ delayMinutes: 0, integrations: [hook.uuid] }] }, p.clock.now());

  const first = await manualOutage(p, policy.uuid);
  assert.equal(rx.delivered('/first').length, 1);
  assert.equal(rx.received.find((r) => r.path === '/first')!.headers.authorization, 'Bearer one');
  const [row] = p.store.alerts.forOutage(first.uuid);
  assert.equal(row!.channel, hook.uuid, 'outbox rows name the integration by uuid');
  const timeline = p.store.outages.events(first.uuid).map((e) => e.message ?? '');
  assert.ok(timeline.some((m) => m.includes('to ops-hook')), `the timeline names the integration: ${JSON.stringify(timeline)}`);

  await w.settings(hook.uuid, { url: `${rx.url}/second`, headers: { authorization: 'Bearer two' } }, p.clock.now());
  await manualOutage(p, policy.uuid);
  assert.equal(rx.delivered('/first').length, 1, 'the old URL gets nothing more');
  assert.equal(rx.delivered('/second').length, 1);
  assert.equal(rx.received.find((r) => r.path === '/second')!.headers.authorization, 'Bearer two');
});

test('a policy changed between two outages: the next outage follows the new steps', async () => {
  const { p, rx, w } = await setup();
  rx.state.answer = () => 204;
  const a = await w.integration({ name: 'a', kind: 'webhook', settings: { url: `${rx.url}/a` } }, p.clock.now());
  const b = await w.integration({ name: 'b', kind: 'webhook', settings: { url: `${rx.url}/b` } }, p.clock.now());
  const policy = await w.policy({ name: 'Ops', steps: [{ delayMinutes: 0, integrations: [a.uuid] }] }, p.clock.now());
  await manualOutage(p, policy.uuid);
  assert.equal(rx.delivered('/a').length, 1);
  await p.store.async.escalationPolicies.update(policy.uuid, { ...policy, steps: [{ delayMinutes: 0, targets: [{ type: 'integration', uuid: b.uuid }] }] }, p.clock.now() + 1);
  await manualOutage(p, policy.uuid);
  assert.equal(rx.delivered('/a').length, 1);
  assert.equal(rx.delivered('/b').length, 1);
});

test('a disabled integration is not sent to: its row fails at once with the reason, never retried', async () => {
  const { p, rx, w } = await setup();
  rx.state.answer = () => 204;
  const off = await w.integration({ name: 'muted', kind: 'webhook', settings: { url: `${rx.url}/muted` }, enabled: false }, p.clock.now());
  const on = await w.integration({ name: 'live', kind: 'webhook', settings: { url: `${rx.url}/live` } }, p.clock.now());
  const policy = await w.policy({ name: 'Both', steps: [{ delayMinutes: 0, integrations: [off.uuid, on.uuid] }] }, p.clock.now());
  const o = await manualOutage(p, policy.uuid);
  await p.advance(60 * 60_000);
  assert.equal(rx.delivered('/muted').length, 0);
  assert.equal(rx.delivered('/live').length, 1);
  const muted = p.store.alerts.forOutage(o.uuid).find((r) => r.channel === off.uuid)!;
  assert.equal(muted.attempts, 1);
  assert.notEqual(muted.failedAt, null);
  assert.equal(muted.lastError, 'integration "muted" is disabled: not sent');

  // Deleted after the row was queued: failed the same way, naming it.
  await p.store.async.integrations.setEnabled(off.uuid, true, p.clock.now() + 1);
  rx.state.answer = () => 503;
  const o2 = await manualOutage(p, policy.uuid);
  await p.store.async.integrations.delete(off.uuid);
  await p.advance(60_000);
  const gone = p.store.alerts.forOutage(o2.uuid).find((r) => r.channel === off.uuid)!;
  assert.notEqual(gone.failedAt, null);
  assert.equal(gone.lastError, `integration ${off.uuid} was deleted (or never existed): not sent`);
});

test('the webhook gets outage.acknowledged when someone acknowledges, then the recovery', async () => {
  const { p, rx, w } = await setup();
  rx.state.answer = () => 204;
  const hook = await w.integration({ name: 'hook', kind: 'webhook', settings: { url: `${rx.url}/hook` } }, p.clock.now());
  const chat = await w.integration({ name: 'chat', kind: 'slack', settings: { url: `${rx.url}/slack` } }, p.clock.now());
  const policy = await w.policy({ name: 'Ops', steps: [{ delayMinutes: 0, integrations: [hook.uuid, chat.uuid] }] }, p.clock.now());
  const o = await manualOutage(p, policy.uuid);
  assert.equal((await act(p, o.uuid, 'acknowledge')).status, 200);
  await p.advance(0);
  assert.equal((await act(p, o.uuid, 'resolve')).status, 200);
  await p.advance(0);
  const events = rx.delivered('/hook').map((b: { event: string }) => b.event);
  assert.deepEqual(events, ['outage.alert', 'outage.acknowledged', 'outage.recovery']);
  const ack = rx.delivered('/hook')[1] as { outage: { uuid: string }; deliveryId: string };
  assert.equal(ack.outage.uuid, o.uuid);
  assert.equal(rx.delivered('/slack').length, 2, 'a chat kind gets the alert and the recovery, no acknowledgement');
});
