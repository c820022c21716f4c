import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ONCE_IN_POSTGRES_MATRIX } from '../support/pharos.ts';
import { waitFor } from '../support/process.ts';
import { clusterOf, leaseApi, leaseCluster, outagesOf } from '../support/lease-instances.ts';

// Issue 31 point 3: a frozen leader (SIGSTOP 30 s) kept its advisory lock — no take-over and no check
// for 30 s, then a burst of every overdue check when it was thawed. With the lease: the follower takes
// over once the lease has ended in the database's clock (lease 10 s, renewed every 2 s), checks go on,
// and the thawed leader stops leader work by its own monotonic clock without a single check or alert.

const FREEZE_MS = 30_000;
const FREQ_S = 10;
const MONITORS = 4;

let cleanup: (() => Promise<void>) | null = null;
after(async () => {
  await cleanup?.();
});

test('SIGSTOP the leader for 30 s: a follower takes over within 15 s, checks go on, the thawed leader stops by itself', { timeout: 240_000, skip: ONCE_IN_POSTGRES_MATRIX }, async (t) => {
  const c = await leaseCluster('lease-freeze');
  cleanup = c.cleanup;
  const a = await c.start('a');
  await waitFor('a to lead', async () => (await clusterOf(a)).leader === a.id);
  const b = await c.start('b');

  // m0 is down before the freeze and recovers during it; m1 goes down during it; m2, m3 stay up.
  c.answers.set('/m0', 500);
  const uuids: string[] = [];
  for (let m = 0; m < MONITORS; m++) {
    const res = await leaseApi(b.url, '/v1/monitors', { method: 'POST', json: { name: `m${m}`, url: `${c.target}/m${m}`, check_frequency: FREQ_S, escalation_policy: 'ep_hook' } });
    const body = await res.text();
    assert.equal(res.status, 201, body);
    uuids.push((JSON.parse(body) as { uuid: string }).uuid);
  }
  const checked = (m: number, from: number, to = Infinity, by?: string) => c.hits.filter((h) => h.path === `/m${m}` && h.at >= from && h.at < to && (by === undefined || h.by === by)).length;
  await waitFor('every monitor checked twice by a', async () => [...Array(MONITORS).keys()].every((m) => checked(m, 0, Infinity, 'a') >= 2), 60_000);
  const downBefore = await waitFor('m0 outage open and alerted', async () => {
    const o = (await outagesOf(b)).find((x) => x.monitor?.uuid === uuids[0] && !x.isResolved);
    return o && c.deliveries().get(`outage.alert:${o.uuid}`) === 1 ? o : undefined;
  }, 30_000);

  // Freeze the leader.
  const frozenAt = Date.now();
  a.proc.child.kill('SIGSTOP');
  c.answers.set('/m0', 200);
  c.answers.set('/m1', 500);
  await waitFor('b to lead', async () => (await clusterOf(b)).leader === b.id, 20_000);
  const takeOverMs = Date.now() - frozenAt;
  assert.ok(takeOverMs <= 15_000, `take-over ${takeOverMs} ms after the freeze (aim ≤ 15 s)`);
  const healthB = (await (await fetch(`${b.url}/healthz`)).json()) as { leader: boolean; status: string };
  assert.equal(healthB.leader, true, 'b says it leads');

  await new Promise((r) => setTimeout(r, Math.max(0, frozenAt + FREEZE_MS - Date.now())));
  const thawedAt = Date.now();
  const during = [...Array(MONITORS).keys()].map((m) => checked(m, frozenAt, thawedAt));
  a.proc.child.kill('SIGCONT');

  // The thawed leader answers /healthz at once, from memory, and does not say it leads.
  const t0 = performance.now();
  const healthA = (await (await fetch(`${a.url}/healthz`, { signal: AbortSignal.timeout(5000) })).json()) as { leader: boolean; status: string; reasons?: string[] };
  const healthMs = performance.now() - t0;
  assert.equal(healthA.leader, false, `a does not claim to lead after the freeze: ${JSON.stringify(healthA)}`);
  await waitFor('a to log that it stopped leading', async () => /no longer the leader/.test(a.proc.stderr()), 10_000);

  // m1's outage opens under b, m0's resolves under b; then everything recovers and nothing stays open.
  const m1Outage = await waitFor('m1 outage open (under b)', async () => (await outagesOf(b)).find((x) => x.monitor?.uuid === uuids[1]), 40_000);
  await waitFor('m0 outage resolved', async () => (await outagesOf(b)).find((x) => x.uuid === downBefore.uuid)?.isResolved, 40_000);
  c.answers.set('/m1', 200);
  await waitFor('no outage open', async () => (await outagesOf(b)).every((o) => o.isResolved), 40_000);
  await waitFor('the recovery alerts delivered', async () => c.deliveries().get(`outage.recovery:${downBefore.uuid}`) === 1 && c.deliveries().get(`outage.recovery:${m1Outage.uuid}`) === 1, 30_000);
  // Two more checks of every monitor, then count.
  const since = Date.now();
  await waitFor('two more checks of every monitor', async () => [...Array(MONITORS).keys()].every((m) => checked(m, since) >= 2), 40_000);

  const byA = [...Array(MONITORS).keys()].map((m) => checked(m, thawedAt, Infinity, 'a'));
  const d = c.deliveries();
  const duplicates = [...d.values()].filter((n) => n > 1).length;
  const expected = Math.floor(FREEZE_MS / (FREQ_S * 1000));
  const missed = during.map((n) => Math.max(0, expected - n));
  t.diagnostic(`take-over ${takeOverMs} ms after SIGSTOP; checks per monitor during the 30 s freeze ${during.join(', ')} (expected ~${expected}, missed ${missed.join(', ')}); checks by the thawed leader ${byA.join(', ')}; a's /healthz after SIGCONT in ${healthMs.toFixed(1)} ms: ${JSON.stringify(healthA)}; deliveries ${JSON.stringify(Object.fromEntries(d))}`);
  assert.deepEqual(byA, [0, 0, 0, 0], 'the thawed leader makes no check');
  assert.equal(duplicates, 0, `no alert delivered twice: ${JSON.stringify(Object.fromEntries(d))}`);
  assert.ok(during.every((n) => n >= 1), `checks went on during the freeze (${during.join(', ')})`);
  assert.equal((await clusterOf(a)).leader, b.id, 'a sees b lead');
});
