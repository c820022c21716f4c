import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ONCE_IN_POSTGRES_MATRIX } from '../support/pharos.ts';
import { writeFileSync } from 'node:fs';
import { waitFor } from '../support/process.ts';
import { clusterOf, leaseApi, leaseCluster, outagesOf, type LeaseInstance } from '../support/lease-instances.ts';

// Issue 31 point 5: a 20 s PostgreSQL outage stopped every check in a cluster (23.1 s without a check),
// while a lone instance kept checking. Now the leader asks its peers whether they reach the database;
// when none does (and none leads) it keeps checking, buffers results (memory and a journal in its data
// dir), sends alerts for state changes it decides straight through its channels, and writes everything
// when the database is back, without sending those alerts again. Three real processes, real PostgreSQL.
//
//   node --import tsx --test --test-reporter=spec test/api/db-outage.test.ts

const OUTAGE_MS = 20_000;
const FREQ_S = 10;
const MONITORS = 3;

let cleanup: (() => Promise<void>) | null = null;
after(async () => {
  await cleanup?.();
});

/** One /healthz answer as the test saw it. */
interface Probe {
  name: string;
  /** When it was asked (Date.now()). */
  at: number;
  ms: number;
  code: number;
  status: string;
  reasons: string[];
}

const healthOf = async (i: LeaseInstance): Promise<Probe> => {
  const t0 = performance.now();
  const at = Date.now();
  try {
    const res = await fetch(`${i.url}/healthz`, { signal: AbortSignal.timeout(5000) });
    const body = (await res.json()) as { status: string; reasons?: string[] };
    return { name: i.name, at, ms: performance.now() - t0, code: res.status, status: body.status, reasons: body.reasons ?? [] };
  } catch (e) {
    return { name: i.name, at, ms: performance.now() - t0, code: 0, status: `no answer: ${(e as Error).message}`, reasons: [] };
  }
};

test('PostgreSQL stopped 20 s under three instances: the leader keeps checking and alerting, nothing lost, doubled or sent twice', { timeout: 300_000, skip: ONCE_IN_POSTGRES_MATRIX }, async (t) => {
  const c = await leaseCluster('db-outage');
  const started: LeaseInstance[] = [];
  // On failure the instances' logs say what happened (PHAROS_TEST_LOGS=dir keeps them there).
  t.after(() => {
    const dir = process.env.PHAROS_TEST_LOGS;
    if (dir) for (const i of started) writeFileSync(`${dir}/db-outage-${i.name}.log`, i.proc.stderr());
  });
  cleanup = c.cleanup;
  const a = await c.start('a');
  await waitFor('a to lead', async () => (await clusterOf(a)).leader === a.id);
  const b = await c.start('b');
  const d = await c.start('c');
  const all = [a, b, d];
  started.push(...all);

  // m0 and m2 stay up; m1 goes down during the outage and recovers after it.
  const uuids: string[] = [];
  for (let m = 0; m < MONITORS; m++) {
    const res = await leaseApi(b.url, '/v1/monitors', { method: 'POST', json: { name: `m${m}`, url: `${c.target}/m${m}`, check_frequency: FREQ_S, escalation_policy: 'ep_hook' } });
    const body = await res.text();
    assert.equal(res.status, 201, body);
    uuids.push((JSON.parse(body) as { uuid: string }).uuid);
  }
  const checked = (m: number, from: number, to = Infinity) => c.hits.filter((h) => h.path === `/m${m}` && h.at >= from && h.at < to).length;
  await waitFor('every monitor checked twice', async () => [...Array(MONITORS).keys()].every((m) => checked(m, 0) >= 2), 60_000);
  // Every instance has heartbeat rows for the others (its peers), and all are healthy.
  await waitFor('every instance healthy', async () => (await Promise.all(all.map(healthOf))).every((h) => h.status === 'ok'), 30_000);

  // The outage.
  const stoppedAt = Date.now();
  await c.pgsql.stop();
  c.answers.set('/m1', 500);
  const probes: Probe[] = [];
  let alertedDuring = 0;
  while (Date.now() < stoppedAt + OUTAGE_MS) {
    probes.push(...(await Promise.all(all.map(healthOf))));
    alertedDuring = [...c.deliveries().entries()].filter(([k]) => k.startsWith('outage.alert:')).length;
    await new Promise((r) => setTimeout(r, 500));
  }
  const restartedAt = Date.now();
  const during = [...Array(MONITORS).keys()].map((m) => checked(m, stoppedAt, restartedAt));
  const deliveredDuring = new Map(c.deliveries());
  await c.pgsql.start();

  // Every instance healthy again, without a restart.
  await waitFor('every instance healthy after the outage', async () => (await Promise.all(all.map(healthOf))).every((h) => h.status === 'ok'), 60_000);
  const healthyAfterMs = Date.now() - restartedAt;

  // m1's outage is stored (with the uuid its alert carried), then m1 recovers: one recovery alert.
  const m1 = await waitFor('m1 outage stored', async () => (await outagesOf(b)).find((o) => o.monitor?.uuid === uuids[1]), 30_000);
  c.answers.set('/m1', 200);
  await waitFor('m1 outage resolved', async () => (await outagesOf(b)).find((o) => o.uuid === m1.uuid)?.isResolved, 40_000);
  await waitFor('the recovery delivered', async () => c.deliveries().get(`outage.recovery:${m1.uuid}`) === 1, 30_000);
  const since = Date.now();
  await waitFor('two more checks of every monitor', async () => [...Array(MONITORS).keys()].every((m) => checked(m, since) >= 2), 40_000);
  const leader = (await clusterOf(b)).leader;

  // Stop every instance (each stores what it buffered), then compare what the targets saw with what is stored.
  for (const i of all) i.proc.child.kill('SIGTERM');
  await Promise.all(all.map((i) => i.proc.exited));
  const db = c.pgsql.admin('db-outage');
  await db.connect();
  const ids = new Map((await db.query<{ id: number; uuid: string }>('SELECT id, uuid FROM monitors')).rows.map((r) => [r.uuid, Number(r.id)]));
  const tables = (await db.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE tablename LIKE 'check_results_h%'")).rows.map((r) => r.tablename);
  const stored: Array<{ monitor: number; at: number }> = [];
  for (const table of tables) {
    const hour = Number(table.slice('check_results_h'.length));
    for (const r of (await db.query<{ monitor_id: string; t: string }>(`SELECT monitor_id, t FROM ${table}`)).rows) stored.push({ monitor: Number(r.monitor_id), at: hour * 3_600_000 + Number(r.t) });
  }
  const rollups = new Map((await db.query<{ monitor_id: string; n: string }>('SELECT monitor_id, sum(checks) AS n FROM check_rollups_hourly GROUP BY monitor_id')).rows.map((r) => [Number(r.monitor_id), Number(r.n)]));
  await db.end();

  const rows = uuids.map((u) => stored.filter((s) => s.monitor === ids.get(u)).length);
  const rolled = uuids.map((u) => rollups.get(ids.get(u)!) ?? 0);
  const hitsAll = uuids.map((_, m) => checked(m, 0));
  // Results of the outage window: each check the targets saw during it has its stored result, dated
  // when the check started (at most a second before the target saw it; checks are 10 s apart, so no
  // other check's result can stand in for it). Matched check by check, not by counting a time window,
  // whose edges a check a few ms before the stop falls on either side of.
  const storedDuring = uuids.map((u, m) => {
    const left = stored.filter((s) => s.monitor === ids.get(u)).map((s) => s.at);
    return c.hits
      .filter((h) => h.path === `/m${m}` && h.at >= stoppedAt && h.at < restartedAt)
      .filter((h) => {
        const i = left.findIndex((at) => at <= h.at && at > h.at - 1000);
        if (i >= 0) left.splice(i, 1);
        return i >= 0;
      }).length;
  });
  const dup = [...c.deliveries().values()].filter((n) => n > 1).length;
  const expected = Math.floor(OUTAGE_MS / (FREQ_S * 1000));
  const slowest = Math.max(...probes.map((p) => p.ms));
  const statuses = [...new Set(probes.map((p) => `${p.name}:${p.code}:${p.status}`))].sort();
  const reasons = [...new Set(probes.flatMap((p) => p.reasons.map((r) => `${p.name}: ${r}`)))];

  t.diagnostic(`checks per monitor during the 20 s outage ${during.join(', ')} (due ~${expected}); results stored for that window ${storedDuring.join(', ')}`);
  t.diagnostic(`alerts delivered during the outage ${alertedDuring} (${JSON.stringify(Object.fromEntries(deliveredDuring))}); all deliveries ${JSON.stringify(Object.fromEntries(c.deliveries()))}; duplicates ${dup}`);
  t.diagnostic(`checks seen by the targets ${hitsAll.join(', ')}; raw results stored ${rows.join(', ')}; rollup checks ${rolled.join(', ')}`);
  t.diagnostic(`/healthz during the outage: ${probes.length} answers, slowest ${slowest.toFixed(1)} ms; ${statuses.join(' | ')}`);
  t.diagnostic(`reasons: ${reasons.join(' | ')}`);
  t.diagnostic(`every instance healthy ${healthyAfterMs} ms after PostgreSQL was started again; leader after: ${leader === a.id ? 'a (the same)' : leader}`);

  assert.ok(during.every((n) => n >= expected - 1) && during.reduce((x, y) => x + y, 0) >= MONITORS * expected - 1, `checks went on during the outage (${during.join(', ')}; due ~${expected} each)`);
  assert.ok(deliveredDuring.get(`outage.alert:${m1.uuid}`) === 1, `m1's alert went out during the outage, under the uuid later stored (${JSON.stringify(Object.fromEntries(deliveredDuring))})`);
  assert.equal(dup, 0, `no alert delivered twice: ${JSON.stringify(Object.fromEntries(c.deliveries()))}`);
  assert.deepEqual(rows, hitsAll, 'every check stored once (raw results = checks the targets saw)');
  assert.deepEqual(rolled, hitsAll, 'every check counted once in the rollups');
  assert.deepEqual(storedDuring, during, 'the outage window\'s results stored');
  // From one second in (the instances notice a stopped server within a heartbeat at most; usually at once).
  assert.ok(probes.filter((p) => p.at >= stoppedAt + 1000).every((p) => (p.status === 'degraded' || p.status === 'unavailable') && p.reasons.length > 0), `every /healthz during the outage says degraded or unavailable with reasons: ${statuses.join(' | ')}`);
  assert.ok(slowest < 1000, `/healthz answered from memory during the outage (slowest ${slowest.toFixed(1)} ms)`);
});
