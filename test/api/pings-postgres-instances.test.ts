import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { freePort, spawnPharos, type PharosProcess } from '../support/process.ts';
import { tempDir, ONCE_IN_POSTGRES_MATRIX } from '../support/pharos.ts';

// Issue 31 point 4: three `pharos serve` processes on one real PostgreSQL, every one pinged at once
// for the same healthchecks. Before, 67 pings of a bench run got 503 with "deadlock detected": each
// instance's group commit counted its batch's pings healthcheck by healthcheck in arrival order
// (one `UPDATE healthchecks … WHERE id = ?` each), so two instances' batches could lock the same rows
// in opposite orders. Now every batch locks its healthchecks in id order first (the asynchronous
// batches that only count, and the synchronous ones in which a healthcheck flips). Here: every ping is
// answered 200, none is lost (each healthcheck's counter and rows equal what was acknowledged), and
// no instance logged a deadlock.

const TOKEN = 'pings-instances-admin-token-0123456789';
const HEALTHCHECKS = 12;
const PINGERS_PER_INSTANCE = 16;
const PINGS_PER_PINGER = 60;

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

test('three instances on one PostgreSQL pinging the same healthchecks at once: no deadlock, no 503, every acknowledged ping stored', { timeout: 240_000, skip: ONCE_IN_POSTGRES_MATRIX }, async () => {
  const pgsql: TestPostgres = await startPostgres('pings_instances');
  cleanups.push(() => pgsql.cleanup());
  const dir = tempDir('pharos-pings-instances-');
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, 'config.yaml');
  writeFileSync(config, JSON.stringify({ log_level: 'info', storage: { pings_per_healthcheck: 10000 } }));
  const instances: PharosProcess[] = [];
  for (let n = 0; n < 3; n++) {
    const port = await freePort();
    const proc = await spawnPharos({ PHAROS_CONFIG: config, PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_DATA_DIR: join(dir, `data${n}`), PHAROS_DATABASE_URL: pgsql.url, PHAROS_ADMIN_TOKEN: TOKEN });
    cleanups.push(() => {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
    });
    instances.push(proc);
  }
  const tokens: string[] = [];
  for (let i = 0; i < HEALTHCHECKS; i++) {
    const res = await fetch(`${instances[i % 3]!.url}/v1/healthchecks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: `job ${i}`, period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' }),
    });
    const text = await res.text();
    assert.equal(res.status, 201, text);
    tokens.push((JSON.parse(text) as { healthcheck: { uuid: string } }).healthcheck.uuid);
  }

  // Each pinger walks the healthchecks in its own order (start and direction differ), so one
  // instance's batch holds them in an order another's does not.
  const acked = new Map<string, number>(tokens.map((t) => [t, 0]));
  const refused: string[] = [];
  const pinger = async (instance: PharosProcess, k: number) => {
    const step = k % 2 === 0 ? 1 : HEALTHCHECKS - 1;
    for (let i = 0; i < PINGS_PER_PINGER; i++) {
      const token = tokens[(k * 5 + i * step) % HEALTHCHECKS]!;
      // Every 7th ping a failure: healthchecks flip down and up again, so batches that open and
      // resolve outages (the synchronous transaction) run alongside those that only count.
      const res = await fetch(`${instance.url}/ping/${token}${i % 7 === 3 ? '/fail' : ''}`, { signal: AbortSignal.timeout(30_000) });
      const text = await res.text();
      if (res.status === 200) acked.set(token, acked.get(token)! + 1);
      else refused.push(`${res.status} ${text}`);
    }
  };
  await Promise.all(instances.flatMap((instance, n) => Array.from({ length: PINGERS_PER_INSTANCE }, (_, k) => pinger(instance, n * PINGERS_PER_INSTANCE + k))));

  const deadlocks = instances.map((p) => (p.stderr().match(/deadlock detected/g) ?? []).length);
  const total = [...acked.values()].reduce((a, b) => a + b, 0);
  console.log(`3 instances, ${HEALTHCHECKS} healthchecks: ${total} pings acknowledged, ${refused.length} refused (${refused.slice(0, 3).join('; ')}), deadlocks logged per instance: ${deadlocks.join(', ')}`);
  assert.deepEqual(deadlocks, [0, 0, 0], 'no instance logged "deadlock detected"');
  assert.deepEqual(refused, [], 'every ping answered 200');

  const c = new pg.Client({ connectionString: pgsql.url });
  await c.connect();
  try {
    const rows = (await c.query<{ uuid: string; total: number; n: number; distinct_n: number }>(
      'SELECT h.uuid, h.pings_total::int AS total, count(p.id)::int AS n, count(DISTINCT p.n)::int AS distinct_n FROM healthchecks h LEFT JOIN pings p ON p.healthcheck_id = h.id GROUP BY h.uuid, h.pings_total',
    )).rows;
    for (const r of rows) {
      assert.equal(r.total, acked.get(r.uuid), `${r.uuid}: counter = acknowledged pings`);
      assert.equal(r.n, acked.get(r.uuid), `${r.uuid}: rows = acknowledged pings`);
      assert.equal(r.distinct_n, r.n, `${r.uuid}: every ping has its own number`);
    }
  } finally {
    await c.end();
  }
});
