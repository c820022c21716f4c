import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '../../src/lib/clock.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import { postgresCluster } from '../../src/cluster/postgres.ts';
import type { Cluster } from '../../src/cluster/types.ts';
import type { ClusterChange } from '../../src/domain/cluster.ts';
import { sql as instancesTable } from '../../src/store/pg/0017_cluster_instances.ts';
import { sql as leaseTable } from '../../src/store/pg/0021_leader_lease.ts';
import pg from 'pg';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { waitFor } from '../support/process.ts';

// Leadership by a lease with fencing (issue 31; an advisory lock before, issue 22) against a real
// PostgreSQL 15 from Debian: exactly one leader among instances on one database, take-over at once when
// the leader's session is gone, a leader whose renewal cannot complete stops leading before the lease
// ends in the database's clock and a follower takes over after that, change messages between instances
// (LISTEN/NOTIFY) and the instances listing.

let pgsql: TestPostgres;
before(async () => {
  pgsql = await startPostgres();
});
after(async () => {
  await pgsql?.cleanup();
});

/** Leadership changes of every instance of a test, in the order they were heard. */
type Log = Array<{ id: string; leader: boolean }>;

let n = 0;
async function instance(url: string, log: Log, heartbeatMs = 300): Promise<Cluster> {
  const id = `ins_test${String(++n).padStart(8, '0')}`;
  const c = postgresCluster({ url, clock: systemClock, logger: silentLogger, instance: { id, address: `test:${n}`, version: 'test', startedAt: Date.now() }, options: { heartbeatMs, reconnectMaxMs: 500 } });
  c.onLeadership((leader) => log.push({ id, leader }));
  await c.start();
  return c;
}

/** The server process (backend) of an instance's lock connection. */
async function backendPid(instanceId: string): Promise<number> {
  const admin = pgsql.admin('postgres');
  await admin.connect();
  try {
    const r = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [`pharos ${instanceId}`]);
    assert.equal(r.rows.length, 1, `one connection of ${instanceId}`);
    return r.rows[0]!.pid;
  } finally {
    await admin.end();
  }
}

async function terminate(instanceId: string): Promise<void> {
  const pid = await backendPid(instanceId);
  const admin = pgsql.admin('postgres');
  await admin.connect();
  try {
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
}

/** A new database with the instances and lease tables (what the store's PostgreSQL migrations create before the cluster starts). */
async function database(name: string): Promise<string> {
  const url = await pgsql.createDatabase(name);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(instancesTable);
    await c.query(leaseTable);
  } finally {
    await c.end();
  }
  return url;
}

const leaders = (all: Cluster[]) => all.filter((c) => c.isLeader);

test('two instances on one database: exactly one leads; cutting its connection hands leadership to the other', async () => {
  const url = await database('two');
  const log: Log = [];
  const a = await instance(url, log);
  const b = await instance(url, log);
  try {
    const first = await waitFor('a leader', async () => leaders([a, b])[0]);
    const other = first === a ? b : a;
    // Several heartbeats later the other still follows (it tried the lock at every beat).
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual(leaders([a, b]), [first], 'exactly one leader');
    assert.deepEqual(log, [{ id: first.instanceId, leader: true }]);

    const view = await other.view();
    assert.equal(view.mode, 'postgres');
    assert.equal(view.self, other.instanceId);
    assert.equal(view.leader, first.instanceId);
    assert.deepEqual(view.instances.map((i) => [i.id, i.leader]), [[first.instanceId, true], [other.instanceId, false]]);

    await terminate(first.instanceId);
    await waitFor('the other instance to lead', async () => other.isLeader);
    assert.equal(first.isLeader, false);
    // The old leader heard the loss before the new one took over.
    assert.deepEqual(log, [
      { id: first.instanceId, leader: true },
      { id: first.instanceId, leader: false },
      { id: other.instanceId, leader: true },
    ]);
    // The old leader reconnects as a follower and both list the new leader.
    await waitFor('the old leader to reconnect and list the new one', async () => {
      try {
        return (await first.view()).leader === other.instanceId;
      } catch {
        return false;
      }
    });
    await new Promise((r) => setTimeout(r, 1000));
    assert.deepEqual(leaders([a, b]), [other], 'still exactly one leader after the old one came back');
  } finally {
    await a.stop();
    await b.stop();
  }
});

test('a leader whose renewal cannot complete stops leading by its own clock; a follower takes over only once the lease has ended in the database', async () => {
  const url = await database('frozen');
  const log: Log = [];
  const a = await instance(url, log);
  await waitFor('a to lead', async () => a.isLeader);
  const b = await instance(url, log);
  // a has seen b beat: a is not alone, so it stops everything when it loses the lease (see `alone`).
  await waitFor('a to see b', async () => !a.alone);
  const epochA = a.fence.epoch();
  assert.ok(epochA !== null && epochA >= 1);
  const pid = await backendPid(a.instanceId);
  const admin = pgsql.admin('frozen');
  await admin.connect();
  // Both instances' view, sampled every 20 ms: never two leaders at once.
  let both = 0;
  const sampler = setInterval(() => {
    if (a.isLeader && b.isLeader) both++;
  }, 20);
  try {
    // Freeze a's server process: a's renewal gets no answer; its session (and pid) stays, so b must
    // wait for the lease to end in the database's clock (lease 5 x 300 ms).
    process.kill(pid, 'SIGSTOP');
    const frozenAt = Date.now();
    await waitFor('a to stop leading', async () => !a.isLeader, 10_000);
    const stoppedAfter = Date.now() - frozenAt;
    const leaderNow = await waitFor('an instance to lead again', async () => leaders([a, b])[0], 10_000);
    const lease = (await admin.query<{ holder: string; epoch: string }>('SELECT holder, epoch FROM leader_lease')).rows[0]!;
    assert.equal(lease.holder, leaderNow.instanceId);
    if (leaderNow === b) assert.ok(Number(lease.epoch) > epochA, 'a take-over raises the epoch');
    else assert.equal(Number(lease.epoch), epochA, 'a renewing its own lease (nobody took over) keeps the epoch');
    assert.ok(stoppedAfter < 1500, `a stopped ${stoppedAfter} ms after the freeze, before its lease (1500 ms) ran out`);
    assert.equal(log[0]?.id, a.instanceId);
    assert.deepEqual(log.slice(0, 2), [
      { id: a.instanceId, leader: true },
      { id: a.instanceId, leader: false },
    ]);
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(leaders([a, b]).length, 1, 'exactly one leader');
    assert.equal(both, 0, 'never two leaders at once');
  } finally {
    clearInterval(sampler);
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // already gone
    }
    await admin.end();
    await a.stop();
    await b.stop();
  }
});

test('a leader that stops frees the lock at once; changes reach the other instances, not the sender', async () => {
  const url = await database('relay');
  const log: Log = [];
  const a = await instance(url, log);
  await waitFor('a to lead', async () => a.isLeader);
  const b = await instance(url, log);
  const c = await instance(url, log);
  const heard = new Map<string, ClusterChange[]>([[a.instanceId, []], [b.instanceId, []], [c.instanceId, []]]);
  for (const x of [a, b, c]) x.onChange((ch) => heard.get(x.instanceId)!.push(ch));
  try {
    b.publish({ kind: 'healthcheck', uuid: 'hc-1' });
    b.publish({ kind: 'healthcheck', uuid: 'hc-1' });
    b.publish({ kind: 'monitor', uuid: 'm-1', created: true });
    await waitFor('a and c to hear b', async () => heard.get(a.instanceId)!.length === 2 && heard.get(c.instanceId)!.length === 2);
    const expected = [{ kind: 'healthcheck', uuid: 'hc-1' }, { kind: 'monitor', uuid: 'm-1', created: true }];
    assert.deepEqual(heard.get(a.instanceId), expected, 'the same change twice in one turn is sent once');
    assert.deepEqual(heard.get(c.instanceId), expected);
    assert.deepEqual(heard.get(b.instanceId), [], 'the sender does not hear itself');

    // A batch larger than one NOTIFY payload arrives whole.
    for (let i = 0; i < 500; i++) c.publish({ kind: 'healthcheck', uuid: `hc-batch-${String(i).padStart(4, '0')}` });
    await waitFor('a to hear the whole batch', async () => heard.get(a.instanceId)!.length === 502);
    assert.deepEqual(heard.get(b.instanceId)!.map((x) => (x as { uuid: string }).uuid), Array.from({ length: 500 }, (_, i) => `hc-batch-${String(i).padStart(4, '0')}`));

    await a.stop();
    assert.equal(a.isLeader, false);
    const next = await waitFor('b or c to lead', async () => leaders([b, c])[0], 5000);
    await new Promise((r) => setTimeout(r, 1000));
    assert.deepEqual(leaders([b, c]), [next], 'exactly one new leader');
    const view = await next.view();
    assert.equal(view.leader, next.instanceId);
    assert.equal(view.instances.find((i) => i.id === a.instanceId)?.leader, false, 'the stopped instance is listed, not leading');
  } finally {
    await a.stop();
    await b.stop();
    await c.stop();
  }
});

test('the database going away takes leadership away; it comes back by itself', async () => {
  const url = await database('outage');
  const log: Log = [];
  const a = await instance(url, log);
  try {
    await waitFor('a to lead', async () => a.isLeader);
    await waitFor('a to know it is alone (a leader that loses the database then keeps its checks)', async () => a.alone);
    await pgsql.stop();
    await waitFor('a to stop leading', async () => !a.isLeader, 10_000);
    await assert.rejects(a.view(), (e: { status?: number; code?: string }) => e.status === 503 && e.code === 'cluster.unavailable');
    assert.equal(a.connected, false, '/healthz answers 503 meanwhile');
    await pgsql.start();
    await waitFor('a to lead again', async () => a.isLeader, 20_000);
    assert.equal(a.connected, true);
    assert.deepEqual(log, [
      { id: a.instanceId, leader: true },
      { id: a.instanceId, leader: false },
      { id: a.instanceId, leader: true },
    ]);
  } finally {
    await a.stop();
  }
});

test('a leader alone that loses its connection renews its own lease at once; finding it taken over, it says so (its kept checks stop)', async () => {
  const url = await database('alone');
  const log: Log = [];
  const a = await instance(url, log);
  await waitFor('a to lead, alone', async () => a.isLeader && a.alone);
  const epoch = a.fence.epoch()!;
  // Its session is ended: a hears the loss, reconnects and renews the same lease (nobody took it over).
  await terminate(a.instanceId);
  await waitFor('a to lead again on its own lease', async () => log.length >= 3, 10_000);
  assert.deepEqual(log, [
    { id: a.instanceId, leader: true },
    { id: a.instanceId, leader: false },
    { id: a.instanceId, leader: true },
  ]);
  assert.equal(a.fence.epoch(), epoch, 'the same epoch: its writes stay valid');

  // Now its session is frozen and another holder takes the lease meanwhile (as a follower that
  // started while a was cut off would): a reconnects, cannot renew, and says so once more.
  const pid = await backendPid(a.instanceId);
  const admin = pgsql.admin('alone');
  await admin.connect();
  try {
    process.kill(pid, 'SIGSTOP');
    // The other holder is a live session named as a Pharos instance's cluster connection is.
    await admin.query("SET application_name = 'pharos ins_other'");
    await admin.query("UPDATE leader_lease SET holder = 'ins_other', holder_pid = pg_backend_pid(), epoch = epoch + 1, expires_at = now() + interval '1 hour'");
    await waitFor('a to hear that someone else holds the lease', async () => log.length >= 5, 10_000);
    assert.deepEqual(log.slice(3), [
      { id: a.instanceId, leader: false },
      { id: a.instanceId, leader: false },
    ]);
    assert.equal(a.isLeader, false);
    assert.equal(a.fence.epoch(), null, 'no lease held any more');
  } finally {
    process.kill(pid, 'SIGCONT');
    await admin.end();
  }
  await a.stop();
});
