import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos } from '../support/pharos.ts';
import { httpReceiver } from '../support/receivers.ts';
import { httpTarget } from '../support/targets.ts';

// The flood guard with real monitors on real targets (127.0.0.1) and a manual clock: 6 of 8
// monitors fail together; the threshold is max(4, 50 % of 8) = 4 outages within 120 s.
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

test('a burst of failures is one notice, held alerts, and a release rule at recovery', async () => {
  const hooks = await httpReceiver();
  const [a, b, c] = await Promise.all([httpTarget(), httpTarget(), httpTarget()]);
  cleanups.push(hooks.close, a.stop, b.stop, c.stop);
  const p = await startTestPharos({
    alerting: { flood_guard: { min_monitors: 4, failing_share: 0.5, window_seconds: 120 } },
    channels: [{ name: 'hook', type: 'webhook', url: `${hooks.url}/hook` }],
    escalation_policies: [{ uuid: 'ep_now', name: 'Now', steps: [{ after_minutes: 0, channels: ['hook'] }] }],
  });
  cleanups.push(() => p.cleanup());
  const create = async (name: string, url: string) =>
    (await (await p.api('/v1/monitors', { method: 'POST', json: { name, url, check_frequency: 10, escalation_policy: 'ep_now' } })).json()).uuid as string;
  for (let i = 0; i < 5; i++) await create(`a${i}`, `${a.url}/m${i}`);
  const lonely = await create('b0', `${b.url}/x`);
  for (let i = 0; i < 2; i++) await create(`c${i}`, `${c.url}/m${i}`);
  await p.advance(20_000);
  assert.equal(hooks.received.length, 0, 'all up');

  a.respond(503);
  await p.advance(30_000);
  b.respond(503); // fails while the flood lasts: its outage is held from the start
  await p.advance(30_000);
  const bodies = () => hooks.delivered('/hook');
  const alerts = bodies().filter((m) => m.event === 'outage.alert');
  const notices = bodies().filter((m) => m.event === 'pharos.notice');
  assert.equal((await (await p.api('/v2/outages?status=ongoing')).json()).total, 6, 'every failing monitor has its outage');
  assert.equal(notices.length, 1, 'one notice for the burst');
  assert.match(notices[0].title, /^probe london lost connectivity: 4 monitors failing$/);
  assert.equal(alerts.length, 3, 'only the outages opened before the threshold alerted');
  assert.match(await (await p.api('/metrics')).text(), /pharos_flood_guard_active 1/);

  a.respond(200);
  await p.advance(20_000);
  const notices2 = bodies().filter((m) => m.event === 'pharos.notice');
  assert.equal(notices2.length, 2);
  // The flood ends when fewer than 4 of its outages are ongoing: after the third recovery.
  assert.equal(notices2[1].title, 'probe london regained connectivity: 3 monitors recovered');
  assert.match(notices2[1].text, /3 monitors are still failing; they alert if still failing in 120 s/);
  assert.match(await (await p.api('/metrics')).text(), /pharos_flood_guard_active 0/);
  const heldAlerts = () => bodies().filter((m) => m.event === 'outage.alert' && m.outage.monitor.name === 'b0');
  assert.equal(heldAlerts().length, 0, 'the monitor still failing does not alert at once');
  await p.advance(120_000);
  assert.equal(heldAlerts().length, 1, 'still failing after the window: it alerts');
  assert.equal((await (await p.api(`/v1/monitors/${lonely}`)).json()).status, 'down');
  const recoveries = bodies().filter((m) => m.event === 'outage.recovery');
  assert.equal(recoveries.length, 3, 'recoveries only to outages that alerted');
});
