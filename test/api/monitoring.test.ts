import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpTarget, tcpTarget } from '../support/targets.ts';

// Checks hit real targets on 127.0.0.1; time is a manual clock, so confirmation and scheduling are exact.
// Defaults: confirmation_checks 3 (the failing check + 2 re-checks), recheck_interval_seconds 3.
const FREQ_MS = 10_000;
const RECHECK_MS = 3_000;

let p: TestPharos;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup() {
  p = await startTestPharos();
  cleanups.push(() => p.cleanup());
  return p;
}

async function createMonitor(json: Record<string, unknown>) {
  const res = await p.api('/v1/monitors', { method: 'POST', json: { check_frequency: 10, ...json } });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as { uuid: string };
}
const monitor = async (uuid: string) => (await p.api(`/v1/monitors/${uuid}`)).json();
const outagesOf = async (uuid: string) => {
  const page = await (await p.api('/v2/outages')).json();
  return page.outages.filter((o: { monitor: { uuid: string } | null }) => o.monitor?.uuid === uuid);
};

/** Moves the clock exactly to the monitor's next due check and lets it run. */
async function nextCheck(uuid: string) {
  const id = p.store.monitors.get(uuid)!.id;
  const due = p.scheduler.nextDueAt(id);
  assert.ok(due !== undefined, 'the monitor has a timer');
  await p.advance(due - p.clock.now());
}

/** Runs the first check (new monitors start within one interval) and checks the monitor is up. */
async function firstCheckUp(uuid: string) {
  await nextCheck(uuid);
  assert.equal((await monitor(uuid)).status, 'up');
  assert.deepEqual(await outagesOf(uuid), []);
}

/** One failing check, then the two confirmation re-checks: down only after the last one. */
async function failUntilDown(uuid: string) {
  await nextCheck(uuid);
  assert.equal((await monitor(uuid)).status, 'up', 'one failure is not yet confirmed');
  assert.deepEqual(await outagesOf(uuid), [], 'no outage before confirmation');
  await p.advance(RECHECK_MS);
  assert.equal((await monitor(uuid)).status, 'up', 'two failures are not yet confirmed');
  await p.advance(RECHECK_MS);
  assert.equal((await monitor(uuid)).status, 'down');
  const [outage] = await outagesOf(uuid);
  assert.ok(outage, 'an outage opened');
  assert.equal(outage.isResolved, false);
  assert.equal(outage.endDate, null);
  assert.equal(outage.detectedLocation, 'london');
  assert.equal(outage.confirmedLocations, 'london');
  assert.ok(outage.incidentNumber >= 1);
  return outage;
}

/** The next regular check passes: up again, outage resolved with the exact duration. */
async function recoverAndResolve(uuid: string, outageUuid: string) {
  await nextCheck(uuid);
  assert.equal((await monitor(uuid)).status, 'up');
  const o = await (await p.api(`/v2/outages/${outageUuid}`)).json();
  assert.equal(o.isResolved, true);
  // First failure at t, re-checks at t+3 s and t+6 s (extra checks beside the slots), next regular
  // check (passing) in its slot at t+10 s.
  assert.equal(o.durationMs, FREQ_MS);
  assert.equal(Date.parse(o.endDate) - Date.parse(o.startDate), o.durationMs);
}

describe('detection and recovery against real targets', () => {
  test('HTTP 200 → 503 → down with the cause, then recovered', async () => {
    await setup();
    const target = await httpTarget(200);
    cleanups.push(() => target.stop());
    const m = await createMonitor({ name: 'web', url: target.url });
    await firstCheckUp(m.uuid);
    await nextCheck(m.uuid);
    assert.equal((await monitor(m.uuid)).status, 'up', 'still up while the target answers 200');
    target.respond(503);
    const outage = await failUntilDown(m.uuid);
    assert.equal(outage.description, 'Expected 2xx, got 503');
    assert.equal(outage.statusCode, 503);
    assert.equal(outage.protocol, 'http');
    assert.deepEqual(outage.monitor, { uuid: m.uuid, name: 'web', url: target.url, protocol: 'http' });
    const metrics = await (await p.api('/metrics')).text();
    assert.match(metrics, /^pharos_monitors\{status="down"\} 1$/m);
    assert.match(metrics, /^pharos_checks_total\{protocol="http",result="up"\} 2$/m);
    assert.match(metrics, /^pharos_checks_total\{protocol="http",result="down"\} 3$/m);
    assert.match(metrics, /^pharos_scheduler_lag_seconds\{quantile="0.99"\} 0$/m, 'a manual clock has no lag');
    assert.match(metrics, /^pharos_check_duration_seconds_count\{protocol="http"\} 5$/m);
    assert.match(metrics, /^pharos_http_phase_seconds_count\{phase="ttfb"\} 5$/m, 'time to first byte of every HTTP check');
    assert.match(metrics, /^pharos_http_phase_seconds_count\{phase="body"\} 5$/m);
    assert.match(metrics, /^pharos_http_phase_seconds_count\{phase="connect"\} [1-5]$/m, 'connect time of each new (not kept-alive) connection');
    assert.equal((await p.api('/metrics', { token: null })).status, 401);
    target.respond(200);
    await recoverAndResolve(m.uuid, outage.uuid);
  });

  test('HTTP server stops listening → Connection refused, then recovered', async () => {
    await setup();
    const target = await httpTarget(200);
    cleanups.push(() => target.stop());
    const m = await createMonitor({ name: 'web', url: target.url });
    await firstCheckUp(m.uuid);
    await target.stop();
    const outage = await failUntilDown(m.uuid);
    assert.equal(outage.description, 'Connection refused');
    assert.equal(outage.statusCode, 0);
    await target.listen();
    await recoverAndResolve(m.uuid, outage.uuid);
  });

  test('keyword monitor: keyword disappears → down, comes back → up', async () => {
    await setup();
    const target = await httpTarget(200, 'status: ok');
    cleanups.push(() => target.stop());
    const m = await createMonitor({ name: 'kw', url: target.url, required_keyword: 'ok' });
    await firstCheckUp(m.uuid);
    target.respond(200, 'status: degraded');
    const outage = await failUntilDown(m.uuid);
    assert.equal(outage.description, 'Keyword "ok" not found');
    target.respond(200, 'status: ok');
    await recoverAndResolve(m.uuid, outage.uuid);
  });

  test('TCP port monitor: listener closed → down, reopened → up', async () => {
    await setup();
    const target = await tcpTarget();
    cleanups.push(() => target.stop());
    const m = await createMonitor({ name: 'tcp', url: '127.0.0.1', protocol: 'port', port: target.port });
    await firstCheckUp(m.uuid);
    await target.stop();
    const outage = await failUntilDown(m.uuid);
    assert.equal(outage.description, 'Connection refused');
    assert.equal(outage.protocol, 'port');
    await target.listen();
    await recoverAndResolve(m.uuid, outage.uuid);
  });

  test('ICMP: 127.0.0.1 stays up; an unresolvable name goes down', async () => {
    await setup();
    const ok = await createMonitor({ name: 'lo', url: '127.0.0.1', protocol: 'icmp' });
    const bad = await createMonitor({ name: 'nx', url: 'down.invalid', protocol: 'icmp' });
    await p.advance(FREQ_MS + 2 * RECHECK_MS);
    await p.advance(FREQ_MS);
    assert.equal((await monitor(ok.uuid)).status, 'up');
    assert.deepEqual(await outagesOf(ok.uuid), []);
    assert.equal((await monitor(bad.uuid)).status, 'down');
    const [outage] = await outagesOf(bad.uuid);
    assert.equal(outage.description, 'DNS lookup failed for down.invalid');
    assert.equal(outage.protocol, 'icmp');
  });

  test('a failure cleared by the re-check opens nothing', async () => {
    await setup();
    const target = await httpTarget(200);
    cleanups.push(() => target.stop());
    const m = await createMonitor({ name: 'flaky', url: target.url });
    await firstCheckUp(m.uuid);
    target.respond(500);
    await nextCheck(m.uuid);
    target.respond(200);
    await nextCheck(m.uuid); // the re-check passes
    await nextCheck(m.uuid);
    assert.equal((await monitor(m.uuid)).status, 'up');
    assert.deepEqual(await outagesOf(m.uuid), []);
    const metrics = await (await p.api('/metrics')).text();
    assert.match(metrics, /^pharos_unconfirmed_failures_total 1$/m);
  });
});

describe('scheduling', () => {
  test('checks run once per interval; pause stops them, resume restarts them, delete removes the timer', async () => {
    await setup();
    const target = await httpTarget(200);
    cleanups.push(() => target.stop());
    const m = await createMonitor({ name: 'sched', url: target.url, check_frequency: 20, timeout: 5 });
    await p.advance(10_000); // first check falls inside the first 10 s (spread)
    assert.equal(target.hits, 1);
    await p.advance(20_000 * 5);
    assert.equal(target.hits, 6, 'one check per 20 s');
    await p.api(`/v1/monitors/${m.uuid}`, { method: 'PUT', json: { name: 'sched', url: target.url, paused: true } });
    await p.advance(20_000 * 3);
    assert.equal(target.hits, 6, 'paused monitors are not checked');
    assert.equal(p.scheduler.scheduledCount, 0);
    await p.api(`/v1/monitors/${m.uuid}`, { method: 'PUT', json: { name: 'sched', url: target.url, paused: false } });
    // The resumed monitor's due time is read from the store asynchronously (core/probes.ts `replan`);
    // a read through the same store settles it before the clock moves (the update's answer used to).
    await p.api(`/v1/monitors/${m.uuid}`);
    await p.advance(15_000); // the resumed monitor's first check falls inside 10 s, the next one after 20 s more
    assert.equal(target.hits, 7, 'resumed');
    await p.api(`/v1/monitors/${m.uuid}`, { method: 'DELETE' });
    await p.advance(20_000 * 3);
    assert.equal(target.hits, 7, 'deleted monitors are not checked');
    // The scheduler's own count, not the clock's: background timers (flush, prune, hand-off notices,
    // pending pages, a PostgreSQL retry) come and go with the configuration and the driver.
    assert.equal(p.scheduler.scheduledCount, 0, 'the deleted monitor has no timer left');
  });

  test('changing the frequency reschedules at once', async () => {
    await setup();
    const target = await httpTarget(200);
    cleanups.push(() => target.stop());
    const m = await createMonitor({ name: 'f', url: target.url, check_frequency: 3600 });
    await p.advance(10_000);
    assert.equal(target.hits, 1);
    await p.api(`/v1/monitors/${m.uuid}`, { method: 'PUT', json: { name: 'f', url: target.url, check_frequency: 10 } });
    await p.advance(10_000 + 30_000);
    assert.equal(target.hits, 5, 'one check before the change, then one within 10 s and every 10 s after');
  });
});
