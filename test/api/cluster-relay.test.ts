import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedPostgres, startTestPharos, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { httpReceiver } from '../support/receivers.ts';
import { spawnAgent, waitFor } from '../support/process.ts';
import { httpTarget } from '../support/targets.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/lib/logger.ts';

// Two in-process instances on one real PostgreSQL database, sharing a manual clock (issue 22): only the
// leader runs the leader work; what a follower takes (a ping, a new monitor, a new outage) reaches the
// leader's timers at once over LISTEN/NOTIFY; when the leader stops, the follower starts the work.

const HOUR = 3_600_000;
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

test('a follower’s ping, monitor and outage reach the leader; the follower takes the work over when the leader stops', { timeout: 60_000 }, async () => {
  const url = await (await sharedPostgres()).createDatabase(`relay${process.pid}`);
  const hooks = await httpReceiver();
  cleanups.push(() => hooks.close());
  const clock = new ManualClock();
  const config = {
    storage: { driver: 'postgres', postgres_url: url },
    channels: [{ name: 'hook', type: 'webhook', url: `${hooks.url}/hook` }],
    escalation_policies: [{ uuid: 'ep_hook', name: 'Hook', steps: [{ after_minutes: 0, channels: ['hook'] }] }],
  };
  const lines = { leader: [] as string[], follower: [] as string[] };
  const leader: TestPharos = await startTestPharos(config, clock, createLogger('info', (l) => void lines.leader.push(l), 'json'));
  let leaderStopped = false;
  cleanups.push(async () => {
    if (!leaderStopped) await leader.cleanup();
  });
  const follower: TestPharos = await startTestPharos(config, clock, createLogger('info', (l) => void lines.follower.push(l), 'json'));
  cleanups.push(() => follower.cleanup());
  assert.equal(leader.cluster.isLeader, true);
  assert.equal(follower.cluster.isLeader, false);

  // A ping taken by the follower moves the leader's deadline at once.
  const hc = (await (await leader.api('/v1/healthchecks', { method: 'POST', json: { name: 'job', period_value: 1, period_type: 'hours', grace_period_value: 1, grace_period_type: 'minutes' } })).json()).healthcheck;
  const id = leader.store.healthchecks.get(hc.uuid)!.id;
  const created = clock.now();
  assert.equal(leader.deadlines.timerAt(id), created + HOUR + 60_000 + 1);
  assert.equal(follower.deadlines.timerAt(id), undefined, 'a follower sets no deadline timers');
  await clock.advance(30 * 60_000);
  const pingedAt = clock.now();
  assert.equal((await fetch(`${follower.url}/ping/${hc.uuid}`)).status, 200);
  await waitFor('the leader’s deadline to follow the ping', async () => leader.deadlines.timerAt(id) === pingedAt + HOUR + 60_000 + 1, 5000);

  // A monitor created on the follower is scheduled by the leader only.
  const target = await httpReceiver();
  cleanups.push(() => target.close());
  const mon = (await (await follower.api('/v1/monitors', { method: 'POST', json: { name: 'site', url: `${target.url}/`, check_frequency: 60 } })).json()) as { id: number };
  await waitFor('the leader to schedule the monitor', async () => leader.scheduler.nextDueAt(mon.id) !== undefined, 5000);
  assert.equal(follower.scheduler.scheduledCount, 0, 'the follower checks nothing');

  // An outage opened on the follower: its alert is sent by the leader, once.
  const res = await follower.api('/v2/outages', { method: 'POST', json: { description: 'Checkout broken', severity: 'major', escalationPolicyUuid: 'ep_hook' } });
  assert.equal(res.status, 200, await res.clone().text());
  await waitFor('the leader to deliver the alert', async () => hooks.delivered('/hook').length === 1, 10_000);
  await leader.dispatcher.settled();
  await follower.dispatcher.settled();
  assert.equal(hooks.received.length, 1, 'sent once');
  const opened = (l: string[]) => l.filter((x) => /outage #\d+ opened/.test(x)).length;
  assert.deepEqual([opened(lines.follower), opened(lines.leader)], [1, 0], 'the outage is logged once, by the instance that opened it');

  // The leader stops: the follower gains leadership and starts the work from the store.
  leaderStopped = true;
  await leader.cleanup();
  await waitFor('the follower to lead', async () => follower.cluster.isLeader, 15_000);
  // The new leader reads the store asynchronously (the monitors' status, the local share's due times, the healthchecks).
  await waitFor('the monitor scheduled on the new leader', async () => follower.scheduler.nextDueAt(mon.id) !== undefined, 5000);
  await follower.deadlines.settled();
  assert.equal(follower.deadlines.timerAt(id), pingedAt + HOUR + 60_000 + 1, 'the deadline is rebuilt from the store');
  const view = (await (await follower.api('/v1/cluster')).json()) as { leader: string; self: string };
  assert.equal(view.leader, view.self);
});

test('an agent polling a follower is served by the leader: only the agent checks its region; it stays served after a fail-over', { timeout: 90_000 }, async () => {
  const url = await (await sharedPostgres()).createDatabase(`agents${process.pid}`);
  const config = { storage: { driver: 'postgres', postgres_url: url }, probe: { region: 'london', agent_offline_seconds: 3 } };
  const leader = await startTestPharos(config, systemClock);
  let leaderStopped = false;
  cleanups.push(async () => {
    if (!leaderStopped) await leader.cleanup();
  });
  const follower = await startTestPharos(config, systemClock);
  cleanups.push(() => follower.cleanup());
  await waitFor('the follower to know the leader', async () => follower.cluster.leaderUrl() === leader.url, 10_000);
  const token = (await follower.core.users.createToken({ email: 'agents@example.com', name: 'agents', scope: 'probe', regions: ['paris'] }, { type: 'system', id: 'test', name: 'test' })).token;
  const target = await httpTarget(200);
  cleanups.push(() => target.stop());

  const agent = await spawnAgent(token, ['--server', follower.url, '--region', 'paris', '--source-address', '127.0.0.2', '--name', 'paris-probe']);
  cleanups.push(async () => {
    if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill('SIGKILL');
    await agent.exited;
  });
  type Listing = Array<{ id: string; status: string }>;
  await waitFor('the leader to have the agent online', async () => ((await (await leader.api('/v1/probes')).json()) as Listing).some((p) => p.id === agent.id && p.status === 'online'));
  const viaFollower = (await (await follower.api('/v1/probes')).json()) as Listing;
  assert.ok(viaFollower.some((p) => p.id === agent.id && p.status === 'online'), 'the follower shows the leader’s listing');

  const m = (await (await follower.api('/v1/monitors', { method: 'POST', json: { name: 'api', url: target.url, check_frequency: 10, regions: ['paris'] } })).json()) as { id: number };
  await waitFor('two checks of the monitor', async () => target.hits >= 2, 30_000);
  assert.deepEqual([...target.clients], ['127.0.0.2'], 'only the agent checks the paris region');
  assert.equal(leader.scheduler.nextDueAt(m.id), undefined, 'the leader’s local probe leaves paris to the agent');

  // The leader stops: the follower leads, serves the agent itself, and the agent keeps checking.
  leaderStopped = true;
  await leader.cleanup();
  await waitFor('the follower to lead', async () => follower.cluster.isLeader, 15_000);
  const hits = target.hits;
  await waitFor('two more checks', async () => target.hits >= hits + 2, 40_000);
  assert.deepEqual([...target.clients], ['127.0.0.2'], 'still only the agent');
  assert.ok(((await (await follower.api('/v1/probes')).json()) as Listing).some((p) => p.id === agent.id && p.status === 'online'));
});
