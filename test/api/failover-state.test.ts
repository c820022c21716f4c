import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ONCE_IN_POSTGRES_MATRIX } from '../support/pharos.ts';
import { waitFor } from '../support/process.ts';
import { clusterOf, leaseApi, leaseCluster, outagesOf } from '../support/lease-instances.ts';

// Issue 31 point 2: a monitor goes down under leader A, A is killed, the target recovers, B takes
// over. Before, B judged checks against the status it had loaded at its own start ("up"), so the
// passing checks changed nothing: the outage stayed open for good and no recovery alert went out.
// Now B follows the flips relayed from A and reads every monitor's status at its take-over.

let cleanup: (() => Promise<void>) | null = null;
after(async () => {
  await cleanup?.();
});

test('an outage opened under a killed leader is resolved by the next one, with one recovery alert', { timeout: 180_000, skip: ONCE_IN_POSTGRES_MATRIX }, async (t) => {
  const c = await leaseCluster('failover-state');
  cleanup = c.cleanup;
  const a = await c.start('a');
  await waitFor('a to lead', async () => (await clusterOf(a)).leader === a.id);
  const b = await c.start('b');

  // The monitor is created on the follower and fails from the start.
  c.answers.set('/m', 500);
  const res = await leaseApi(b.url, '/v1/monitors', { method: 'POST', json: { name: 'm', url: `${c.target}/m`, check_frequency: 10, escalation_policy: 'ep_hook' } });
  const body = await res.text();
  assert.equal(res.status, 201, body);
  const monitor = JSON.parse(body) as { uuid: string };
  const outage = await waitFor('the outage to open under a', async () => (await outagesOf(b)).find((o) => o.monitor?.uuid === monitor.uuid), 60_000);
  await waitFor('the down alert to be delivered', async () => c.deliveries().get(`outage.alert:${outage.uuid}`) === 1, 30_000);

  // Kill the leader; the target recovers; b takes over.
  const killedAt = Date.now();
  a.proc.child.kill('SIGKILL');
  await a.proc.exited;
  c.answers.set('/m', 200);
  await waitFor('b to lead', async () => (await clusterOf(b)).leader === b.id, 15_000);
  const takeOverMs = Date.now() - killedAt;

  await waitFor('the outage to resolve under b', async () => (await outagesOf(b)).find((o) => o.uuid === outage.uuid)?.isResolved, 40_000);
  const resolvedMs = Date.now() - killedAt;
  await waitFor('the recovery alert to be delivered', async () => c.deliveries().get(`outage.recovery:${outage.uuid}`) === 1, 30_000);
  // Two more passing checks by b, then count: exactly once each.
  const since = Date.now();
  await waitFor('two more checks', async () => c.hits.filter((h) => h.path === '/m' && h.at > since).length >= 2, 40_000);
  const d = c.deliveries();
  assert.equal(d.get(`outage.alert:${outage.uuid}`), 1, 'one down alert');
  assert.equal(d.get(`outage.recovery:${outage.uuid}`), 1, 'one recovery alert');
  const open = (await outagesOf(b)).filter((o) => !o.isResolved);
  assert.deepEqual(open, [], 'no outage stays open');
  t.diagnostic(`take-over ${takeOverMs} ms after the kill; outage resolved ${resolvedMs} ms after the kill`);
});
