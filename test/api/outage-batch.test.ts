import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CheckResult } from '../../src/domain/check.ts';
import type { Monitor } from '../../src/domain/monitor.ts';
import type { OutageRecord } from '../../src/domain/outage.ts';
import { rawDb } from '../../src/store/index.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpReceiver } from '../support/receivers.ts';
import { allowWrites, refuseWrites } from '../support/store-faults.ts';

// Issue 21 (outage storm): state changes that arrive in the same turn of the event loop are written
// in one flush transaction. A real Pharos on a manual clock; the confirmed failures and recoveries
// are handed to the core as the results service hands them over (core.checks.monitorDown/Up), all
// in one synchronous turn, as a storm's burst arrives. Nothing here is timed.

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const N = 40;

async function setup(config: Record<string, unknown>): Promise<{ p: TestPharos; monitors: Monitor[]; hooks: Awaited<ReturnType<typeof httpReceiver>> }> {
  const hooks = await httpReceiver();
  cleanups.push(hooks.close);
  const p = await startTestPharos({
    channels: [{ name: 'hook', type: 'webhook', url: `${hooks.url}/hook` }],
    escalation_policies: [{ uuid: 'ep_now', name: 'Now', steps: [{ after_minutes: 0, channels: ['hook'] }] }],
    ...config,
  });
  cleanups.push(() => p.cleanup());
  const monitors: Monitor[] = [];
  for (let i = 0; i < N; i++) {
    // Port 9 (discard): a scheduled check there fails like the handed-over ones. First checks fall
    // within 10 s of creation (the wheel's spread), so an advance may run some: assertions count
    // the results this file hands over, not every stored one.
    const res = await p.api('/v1/monitors', { method: 'POST', json: { name: `m${i}`, url: `http://127.0.0.1:9/m${i}`, check_frequency: 300, escalation_policy: 'ep_now' } });
    assert.equal(res.status, 201);
    monitors.push(p.store.monitors.get((await res.json()).uuid)!);
  }
  return { p, monitors, hooks };
}

const failure = (m: Monitor, at: number): CheckResult => ({ monitorId: m.id, at, region: 'london', probe: 'local', ok: false, latencyMs: 1, statusCode: 0, reason: 'Connection refused' });
const success = (m: Monitor, at: number): CheckResult => ({ monitorId: m.id, at, region: 'london', probe: 'local', ok: true, latencyMs: 1, statusCode: 200, reason: null });
const down = (p: TestPharos, m: Monitor) => {
  const at = p.clock.now();
  p.core.checks.monitorDown(m, failure(m, at), { at: at - 6_000, region: 'london', outcome: failure(m, at - 6_000) }, ['london']);
};

/** Follows outage events: whether each came after the commit, and how many outages were stored by then. */
function follow(p: TestPharos) {
  const seen: Array<{ type: 'opened' | 'resolved'; outage: OutageRecord; inTransaction: boolean; ongoing: number }> = [];
  const note = (type: 'opened' | 'resolved') => ({ outage }: { outage: OutageRecord }) =>
    seen.push({ type, outage, inTransaction: rawDb(p.store).inTransaction, ongoing: p.store.outages.ongoingCount() });
  const off = [p.core.bus.on('outage.opened', note('opened')), p.core.bus.on('outage.resolved', note('resolved'))];
  cleanups.push(async () => off.forEach((o) => o()));
  return seen;
}

test('a batch of failures flushed together opens every outage once, with its timeline and alert, events after the commit', async () => {
  const { p, monitors, hooks } = await setup({ alerting: { flood_guard: { enabled: false } } });
  const seen = follow(p);

  for (const m of monitors) down(p, m);
  for (const m of monitors.slice(0, 5)) down(p, m); // a second confirmation in the same batch
  assert.equal(p.store.outages.ongoingCount(), 0, 'queued for the flush transaction, not written one by one');
  assert.equal(seen.length, 0, 'no event before the commit');

  await p.core.checks.committed();
  assert.equal(seen.length, N, 'one outage.opened per monitor');
  assert.ok(seen.every((e) => e.type === 'opened' && !e.inTransaction), 'every event after the commit');
  assert.ok(seen.every((e) => e.ongoing === N), 'the whole batch was committed before the first event');
  assert.deepEqual(new Set(seen.map((e) => e.outage.monitorId)), new Set(monitors.map((m) => m.id)));
  assert.equal(new Set(seen.map((e) => e.outage.incidentNumber)).size, N, 'distinct incident numbers');
  for (const e of seen) assert.deepEqual(e.outage, p.store.outages.get(e.outage.uuid), 'the event carries the outage as stored');

  const ongoing = await (await p.api('/v2/outages?status=ongoing')).json();
  assert.equal(ongoing.total, N, 'exactly one ongoing outage per monitor');
  for (const o of ongoing.outages) {
    assert.equal(o.description, 'Connection refused');
    const { events } = await (await p.api(`/v2/outages/${o.uuid}/timeline`)).json();
    assert.deepEqual(events.map((e: { type: string }) => e.type), ['opened', 'alerted'], `timeline of ${o.uuid}`);
  }
  for (const m of monitors) assert.equal((await (await p.api(`/v1/monitors/${m.uuid}`)).json()).status, 'down');
  assert.equal(p.store.checks.latestResults(monitors[0]!.id, 10).length, 2, 'both confirming results of monitor 0 are stored');

  await p.advance(0);
  const alerts = hooks.delivered('/hook').filter((m) => m.event === 'outage.alert');
  assert.equal(alerts.length, N, 'one alert per outage');
  assert.equal(new Set(alerts.map((a) => a.outage.uuid)).size, N);

  // The recovery, also in one turn.
  seen.length = 0;
  await p.advance(1_000);
  for (const m of monitors) p.core.checks.monitorUp(m, success(m, p.clock.now()));
  await p.core.checks.committed();
  assert.equal(seen.length, N, 'one outage.resolved per monitor');
  assert.ok(seen.every((e) => e.type === 'resolved' && !e.inTransaction && e.ongoing === 0));
  assert.ok(seen.every((e) => e.outage.endAt === p.clock.now()), 'resolved at the passing check');
  for (const e of seen) assert.deepEqual(e.outage, p.store.outages.get(e.outage.uuid), 'the event carries the outage as stored');
  assert.equal((await (await p.api('/v2/outages?status=ongoing')).json()).total, 0);
  assert.equal((await (await p.api('/v2/outages')).json()).total, N, 'no outage opened twice');
  await p.advance(0);
  assert.equal(hooks.delivered('/hook').filter((m) => m.event === 'outage.recovery').length, N, 'one recovery message per alerted outage');
});

test('a flush transaction that rolls back keeps its state changes and opens each outage exactly once on the retry', async () => {
  const { p, monitors } = await setup({ alerting: { flood_guard: { enabled: false } } });
  const seen = follow(p);
  refuseWrites(p, 'refuse_outages', 'BEFORE INSERT', 'outages');
  const failedAt = p.clock.now();
  for (const m of monitors) down(p, m);
  await p.core.checks.committed();
  assert.equal(p.store.outages.ongoingCount(), 0, 'the failed flush stored nothing half-done');
  assert.equal(seen.length, 0, 'and announced nothing');
  assert.equal(p.store.checks.latestResults(monitors[0]!.id, 10).length, 0);

  allowWrites(p, 'refuse_outages');
  await p.advance(1_000); // the flush's retry
  assert.equal(seen.length, N);
  assert.ok(seen.every((e) => !e.inTransaction && e.ongoing === N));
  assert.equal((await (await p.api('/v2/outages')).json()).total, N, 'each outage opened exactly once');
  // The confirming result, and no copy of it (a repeat of an identical result is stored 1 ms later).
  // A scheduled first check the advance may reach (its phase is within 10 s) is another result.
  const confirming = p.store.checks.latestResults(monitors[0]!.id, 10).filter((r) => r.at >= failedAt && r.at <= failedAt + 1);
  assert.equal(confirming.length, 1, 'the confirming result is stored once');
});

test('a burst flushed together raises one flood notice and holds the alerts past the threshold', async () => {
  const { p, monitors, hooks } = await setup({ alerting: { flood_guard: { min_monitors: 10, failing_share: 0.5, window_seconds: 120 } } });
  for (const m of monitors) down(p, m);
  await p.core.checks.committed();
  await p.advance(0);
  const bodies = hooks.delivered('/hook');
  const notices = bodies.filter((m) => m.event === 'pharos.notice');
  assert.equal(notices.length, 1, 'one notice for the burst');
  // Threshold max(10, 50 % of 40) = 20: the first 19 alert (the documented "at most threshold − 1").
  assert.equal(notices[0].title, 'probe london lost connectivity: 20 monitors failing');
  assert.equal(bodies.filter((m) => m.event === 'outage.alert').length, 19);
  assert.equal((await (await p.api('/v2/outages?status=ongoing')).json()).total, N);
});
