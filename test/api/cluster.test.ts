import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, tempDir, TEST_DRIVER, type TestPharos } from '../support/pharos.ts';
import { rmSync } from 'node:fs';

// GET /v1/cluster with one instance (issue 22): on SQLite always the leader; on PostgreSQL
// (PHAROS_TEST_DRIVER=postgres) the only instance takes the lock before it starts its leader work.
// Several instances, take-over and the lock itself: cluster-postgres.test.ts and failover.test.ts.
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface View {
  mode: string;
  self: string;
  leader: string | null;
  instances: Array<{ id: string; address: string; version: string; startedAt: string; lastSeenAt: string; leader: boolean }>;
}

async function start(dataDir?: string): Promise<TestPharos> {
  const p = await startTestPharos(dataDir ? { data_dir: dataDir } : {});
  cleanups.push(() => p.cleanup());
  return p;
}

test('a single instance lists itself as the leader, to a read token', async () => {
  const p = await start();
  const read = (await p.core.users.createToken({ email: 'viewer@example.com', name: 'viewer', scope: 'read' }, { type: 'system', id: 'test', name: 'test' })).token;
  const res = await p.api('/v1/cluster', { token: read });
  assert.equal(res.status, 200, await res.clone().text());
  const v = (await res.json()) as View;
  assert.equal(v.mode, TEST_DRIVER === 'postgres' ? 'postgres' : 'single');
  assert.match(v.self, /^ins_[0-9A-Za-z]{12}$/);
  assert.equal(v.leader, v.self);
  assert.equal(v.instances.length, 1);
  const [me] = v.instances;
  assert.equal(me!.id, v.self);
  assert.equal(me!.leader, true);
  assert.match(me!.address, new RegExp(`:${p.port}$`), 'the address names the listening port');
  assert.equal(me!.startedAt, new Date(p.clock.now()).toISOString());
  assert.equal(p.cluster.isLeader, true);
  // /healthz also says whether the database answers and whether this instance keeps checking
  // through a database outage (issue 31 point 5).
  assert.deepEqual(await (await p.api('/healthz', { token: null })).json(), { status: 'ok', version: (await (await p.api('/healthz')).json()).version, instance: v.self, leader: true, database: 'reachable', keepsChecks: false });
  assert.equal(p.scheduler.scheduledCount, 0, 'the leader runs the scheduler (nothing to check yet)');
});

test('the cluster route needs a token, and a probe token may not read it', async () => {
  const p = await start();
  assert.equal((await p.api('/v1/cluster', { token: null })).status, 401);
  const probe = (await p.core.users.createToken({ email: 'agent@example.com', name: 'agent', scope: 'probe', regions: ['paris'] }, { type: 'system', id: 'test', name: 'test' })).token;
  const res = await p.api('/v1/cluster', { token: probe });
  assert.equal(res.status, 403);
  assert.equal((await res.json()).code, 'auth.probe_only');
  assert.equal((await p.api('/v1/cluster', { method: 'POST', json: {} })).status, 405, 'nothing to write');
});

test('a restarted instance is a new one (a new id) and leads', async () => {
  const dir = tempDir();
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const first = await start(dir);
  const before = (await (await first.api('/v1/cluster')).json()) as View;
  await first.close();
  const second = await start(dir);
  const after = (await (await second.api('/v1/cluster')).json()) as View;
  assert.notEqual(after.self, before.self);
  assert.equal(after.leader, after.self);
  // SQLite: the earlier run is replaced (one process per data dir); PostgreSQL: it stays listed, not leading, until forgotten.
  const expected = TEST_DRIVER === 'postgres' ? [[after.self, true], [before.self, false]] : [[after.self, true]];
  assert.deepEqual(after.instances.map((i) => [i.id, i.leader]), expected);
});

test('the OpenAPI document describes GET /v1/cluster', async () => {
  const p = await start();
  const doc = await (await p.api('/openapi.json')).json();
  assert.ok(doc.paths['/v1/cluster']?.get, 'GET /v1/cluster is documented');
  assert.ok(doc.components.schemas.Cluster && doc.components.schemas.ClusterInstance);
});
