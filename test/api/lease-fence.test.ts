import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { systemClock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { waitFor } from '../support/process.ts';
import { httpTarget } from '../support/targets.ts';

// Issue 31, fencing and /healthz: a leader whose lease another instance took over (the epoch moved on
// in the database, as a follower's take-over does) has its next flush refused, drops that flush and
// stops leading by itself; /healthz answers from memory in milliseconds, 503 with the reason while
// the database is down, and never says `leader: true` when the lease is not held.

let pgsql: TestPostgres;
before(async () => {
  pgsql = await startPostgres('lease-fence');
});
after(async () => {
  await pgsql?.cleanup();
});

type Health = { status: string; leader: boolean; reasons?: string[] };
const health = async (p: TestPharos) => {
  const t0 = performance.now();
  const res = await fetch(`${p.url}/healthz`, { signal: AbortSignal.timeout(5000) });
  return { code: res.status, body: (await res.json()) as Health, ms: performance.now() - t0 };
};

test('a flush carrying a stale epoch is refused: the results are not stored and the instance stops leading', { timeout: 60_000 }, async () => {
  const lines: string[] = [];
  const url = await pgsql.createDatabase('fence');
  const p = await startTestPharos({ storage: { driver: 'postgres', postgres_url: url } }, systemClock, createLogger('info', (l) => void lines.push(l), 'json'));
  const target = await httpTarget(200);
  const other = new pg.Client({ connectionString: url, application_name: 'pharos ins_other' });
  try {
    await waitFor('p to lead', async () => p.cluster.isLeader);
    assert.deepEqual((await health(p)).body.leader, true);
    const monitor = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'm', url: target.url, check_frequency: 10 } })).json();
    const id = p.store.monitors.list().find((m) => m.uuid === monitor.uuid)!.id;
    const result = (at: number) => ({ monitorId: id, at, region: p.core.config.probe.region, probe: 'local', ok: true, latencyMs: 1, statusCode: 200, reason: null });

    // Fenced write with the current epoch: stored.
    const t1 = Date.now() - 5000;
    p.core.checks.record(result(t1));
    await p.core.checks.flush();
    assert.ok(p.store.checks.latestResults(id, 100).some((r) => r.at === t1), 'stored under its own epoch');

    // Another instance takes the lease over (a live session named as an instance's cluster connection).
    await other.connect();
    await other.query("UPDATE leader_lease SET holder = 'ins_other', holder_pid = pg_backend_pid(), epoch = epoch + 1, expires_at = now() + interval '1 hour'");
    const t2 = Date.now() - 4000;
    p.core.checks.record(result(t2));
    await p.core.checks.flush();
    assert.equal(p.store.checks.latestResults(id, 100).some((r) => r.at === t2), false, 'a write with the stale epoch is not stored');
    assert.equal(p.cluster.isLeader, false, 'the refused write ended the leadership at once');
    assert.ok(lines.some((l) => /another instance took the lease over: 1 check results/.test(l)), 'one line says what was dropped');
    assert.ok(lines.some((l) => /no longer the leader \(a write was refused/.test(l)));
    const h = await health(p);
    assert.equal(h.body.leader, false);
    assert.equal(h.code, 200, 'still serving');
    assert.equal(h.body.status, 'degraded');
  } finally {
    await other.end().catch(() => {});
    await target.stop();
    await p.cleanup();
  }
});

test('/healthz answers from memory: 503 with the reason while the database is down, ok again after', { timeout: 90_000 }, async () => {
  const own = await startPostgres('lease-health');
  const p = await startTestPharos({ storage: { driver: 'postgres', postgres_url: own.url, postgres_statement_timeout_ms: 2000 } }, systemClock);
  try {
    await waitFor('p to lead', async () => p.cluster.isLeader);
    const up = await health(p);
    assert.deepEqual([up.code, up.body.status, up.body.leader, up.body.reasons], [200, 'ok', true, undefined]);
    await own.stop();
    const down = await waitFor('503', async () => {
      const h = await health(p);
      return h.code === 503 ? h : undefined;
    }, 20_000);
    assert.equal(down.body.status, 'unavailable');
    assert.equal(down.body.leader, false);
    assert.ok(down.body.reasons?.some((r) => /cluster connection down|database unreachable/.test(r)), JSON.stringify(down.body));
    const times: number[] = [];
    for (let i = 0; i < 20; i++) times.push((await health(p)).ms);
    assert.ok(Math.max(...times) < 1000, `answers while the database is down (slowest ${Math.max(...times).toFixed(1)} ms)`);
    await own.start();
    await waitFor('ok again', async () => {
      const h = await health(p);
      return h.code === 200 && h.body.status === 'ok' && h.body.leader;
    }, 30_000);
    console.log(`# /healthz while the database was down: slowest of 20 answers ${Math.max(...times).toFixed(1)} ms`);
  } finally {
    await p.cleanup();
    await own.cleanup();
  }
});
