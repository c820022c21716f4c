import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { sharedPostgres, startTestPharos, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { waitFor } from '../support/process.ts';
import { postgresCluster, CHANGES_CHANNEL } from '../../src/cluster/postgres.ts';
import type { ClusterChange } from '../../src/domain/cluster.ts';
import type { Healthcheck } from '../../src/domain/healthcheck.ts';
import { silentLogger } from '../../src/lib/logger.ts';

// Issue 31 point 4: every ping announces a `healthcheck` change and every other instance re-read it
// with a synchronous store call (bench:cluster with 2 instances: 59,955 `SELECT * FROM healthchecks
// WHERE uuid = $1` in a 20 s window, one per ping per other instance), so the work grew with the
// number of instances. Now the sender holds healthcheck changes to send each once per window, and a
// follower re-reads the healthchecks relayed to it together, asynchronously.

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A client that LISTENs to the change messages and keeps them. */
async function listen(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const messages: Array<{ from: string; changes: ClusterChange[] }> = [];
  c.on('notification', (n) => {
    if (n.channel === CHANGES_CHANNEL && n.payload) messages.push(JSON.parse(n.payload));
  });
  await c.query(`LISTEN ${CHANGES_CHANNEL}`);
  cleanups.push(() => c.end());
  return messages;
}

const turn = () => new Promise<void>((r) => setImmediate(r));

test('N publications of the same healthchecks over many turns go out as one change per healthcheck; an outage change goes at once and takes them along', { timeout: 60_000 }, async () => {
  const url = await (await sharedPostgres()).createDatabase(`changes${process.pid}`);
  // A Pharos instance migrates the database (lease and instance tables).
  const owner = await startTestPharos({ storage: { driver: 'postgres', postgres_url: url } }, new ManualClock());
  cleanups.push(() => owner.cleanup());
  const messages = await listen(url);
  const clock = new ManualClock();
  const sender = postgresCluster({ url, clock, logger: silentLogger, instance: { id: 'ins_sender', address: '127.0.0.1:9', version: 'test', startedAt: clock.now() }, options: { coalesceMs: 60_000 } });
  await sender.start();
  cleanups.push(() => sender.stop());

  const uuids = Array.from({ length: 20 }, (_, i) => `tok_test${i}`);
  // 20 rounds (20 "pings" of each of 20 healthchecks), each in its own turn of the event loop.
  for (let round = 0; round < 20; round++) {
    for (const uuid of uuids) sender.publish({ kind: 'healthcheck', uuid });
    await turn();
  }
  // Held (60 s window) until a change of another kind goes out: it takes them along, at once.
  sender.publish({ kind: 'outage', uuid: 'out_x', event: 'opened' });
  await waitFor('the outage change message', async () => messages.some((m) => m.from === 'ins_sender' && m.changes.some((c) => c.kind === 'outage')), 10_000);
  const mine = messages.filter((m) => m.from === 'ins_sender');
  const healthchecks = mine.flatMap((m) => m.changes).filter((c) => c.kind === 'healthcheck');
  console.log(`400 healthcheck publications of 20 healthchecks: ${mine.length} message(s), ${healthchecks.length} healthcheck change(s)`);
  assert.equal(healthchecks.length, 20, 'one change per healthcheck, not one per publication');
  assert.deepEqual(new Set(healthchecks.map((c) => (c as { uuid: string }).uuid)), new Set(uuids));
  const flat = mine.flatMap((m) => m.changes);
  assert.equal(flat.at(-1)!.kind, 'outage', 'the held healthcheck changes go before the outage change');
});

test('a follower re-reads relayed healthcheck changes without a synchronous store call, and sees the latest state', { timeout: 60_000 }, async () => {
  const url = await (await sharedPostgres()).createDatabase(`changes2${process.pid}`);
  const clock = new ManualClock();
  const config = { storage: { driver: 'postgres', postgres_url: url } };
  const leader: TestPharos = await startTestPharos(config, clock);
  cleanups.push(() => leader.cleanup());
  const follower: TestPharos = await startTestPharos(config, clock);
  cleanups.push(() => follower.cleanup());
  assert.equal(leader.cluster.isLeader, true);
  const messages = await listen(url);

  const hcs: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await leader.api('/v1/healthchecks', { method: 'POST', json: { name: `job ${i}`, period_value: 1, period_type: 'hours', grace_period_value: 1, grace_period_type: 'minutes' } });
    hcs.push(((await res.json()) as { healthcheck: { uuid: string } }).healthcheck.uuid);
  }
  // What the leader's bus hears, and every synchronous store read of a healthcheck by uuid on the leader.
  const seen = new Map<string, Healthcheck>();
  leader.core.bus.on('healthcheck.changed', ({ healthcheck }) => void seen.set(healthcheck.uuid, healthcheck));
  let syncReads = 0;
  const get = leader.store.healthchecks.get;
  leader.store.healthchecks.get = (uuid: string) => {
    syncReads++;
    return get(uuid);
  };
  cleanups.push(async () => {
    leader.store.healthchecks.get = get;
  });

  const PINGS = 30;
  for (let n = 0; n < PINGS; n++) {
    const answers = await Promise.all(hcs.map((uuid) => fetch(`${follower.url}/ping/${uuid}`)));
    for (const a of answers) assert.equal(a.status, 200);
  }
  // A paused healthcheck (an API change on the follower) reaches the leader too.
  assert.equal((await follower.api(`/v1/healthchecks/${hcs[0]}/pause`, { method: 'POST' })).status, 200);
  await waitFor('the leader to see every ping and the pause', async () => hcs.every((u) => seen.get(u)?.pingsTotal === PINGS) && seen.get(hcs[0]!)?.paused === true, 10_000);
  const relayed = messages.filter((m) => m.from !== leader.cluster.instanceId).flatMap((m) => m.changes).filter((c) => c.kind === 'healthcheck').length;
  console.log(`${PINGS * hcs.length} pings on the follower: ${relayed} healthcheck change(s) relayed, ${syncReads} synchronous read(s) on the leader`);
  assert.equal(syncReads, 0, 'no synchronous store read per relayed change');
  assert.ok(relayed <= PINGS * hcs.length, 'never more changes than pings');
});
