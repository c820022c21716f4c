import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedPostgres, startTestPharos, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { httpReceiver } from '../support/receivers.ts';
import { waitFor } from '../support/process.ts';
import { storeWriter } from '../support/integrations.ts';

// Issue 32 "must show": two instances on one real PostgreSQL database; an integration and a policy
// changed on one instance (the follower, through its store, as its API would) are used by the other's
// (the leader's, which sends alerts) next alert, without restart or any message between them.

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

test('a change made on one instance is used by the other instance’s next alert', { timeout: 60_000 }, async () => {
  const url = await (await sharedPostgres()).createDatabase(`integrations${process.pid}`);
  const rx = await httpReceiver();
  cleanups.push(() => rx.close());
  rx.state.answer = () => 204;
  const clock = new ManualClock();
  const config = { storage: { driver: 'postgres', postgres_url: url }, public_url: 'https://pharos.example.com' };
  const leader: TestPharos = await startTestPharos(config, clock);
  cleanups.push(() => leader.cleanup());
  const follower: TestPharos = await startTestPharos(config, clock);
  cleanups.push(() => follower.cleanup());
  assert.equal(leader.cluster.isLeader, true);
  assert.equal(follower.cluster.isLeader, false);

  const w = storeWriter(follower);
  const hook = await w.integration({ name: 'ops-hook', kind: 'webhook', settings: { url: `${rx.url}/first`, secret: 'one' } }, clock.now());
  const policy = await w.policy({ name: 'Ops', steps: [{ delayMinutes: 0, integrations: [hook.uuid] }] }, clock.now());

  const outage = async (on: TestPharos) => {
    const res = await on.api('/v2/outages', { method: 'POST', json: { description: 'Checkout broken', severity: 'major', escalationPolicyUuid: policy.uuid } });
    assert.equal(res.status, 200, await res.clone().text());
  };
  await outage(leader);
  await waitFor('the leader to alert the first URL', async () => rx.delivered('/first').length === 1, 10_000);

  // Changed on the follower: the leader's next alert goes to the new URL, signed with the new secret.
  await w.settings(hook.uuid, { url: `${rx.url}/second`, secret: 'two' }, clock.now());
  await outage(follower);
  await waitFor('the leader to alert the second URL', async () => rx.delivered('/second').length === 1, 10_000);
  const second = rx.received.find((r) => r.path === '/second')!;
  const { webhookSignature } = await import('../../src/alerting/channels/webhook/index.ts');
  assert.equal(second.headers['x-pharos-signature'], webhookSignature('two', Number(second.headers['x-pharos-timestamp']), second.body));
  assert.equal(rx.delivered('/first').length, 1);

  // Disabled on the follower: the leader's next alert is not sent, its row failed with the reason.
  await follower.store.async.integrations.setEnabled(hook.uuid, false, clock.now() + 1);
  await outage(follower);
  await waitFor('the row to fail', async () => (await leader.store.async.alerts.all()).some((r) => r.lastError === 'integration "ops-hook" is disabled: not sent'), 10_000);
  assert.equal(rx.received.length, 2, 'nothing more was sent');
});
