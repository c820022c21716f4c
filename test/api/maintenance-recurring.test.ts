import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { waitFor } from '../support/process.ts';
import { httpReceiver } from '../support/receivers.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';

// Recurring maintenance windows (issue 33 point 6) over real HTTP on a manual clock: the API's
// recurrence and time zone, occurrences listed, alerts held during an occurrence, "end now", the
// audit log and the reports' exclusion. Starts Friday 2026-03-27 12:00Z, two days before Berlin's
// spring-forward change.
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const T = (s: string) => Date.parse(s);

let p: TestPharos;
let hooks: Awaited<ReturnType<typeof httpReceiver>>;
const targets: HttpTarget[] = [];

before(async () => {
  hooks = await httpReceiver();
  p = await startTestPharos(
    {
      channels: [{ name: 'hook', type: 'webhook', url: `${hooks.url}/hook` }],
      escalation_policies: [{ uuid: 'ep_now', name: 'Now', steps: [{ after_minutes: 0, channels: ['hook'] }] }],
    },
    new ManualClock(T('2026-03-27T12:00:00Z')),
  );
});
after(async () => {
  await p.cleanup();
  await hooks.close();
  for (const t of targets) await t.stop();
});

async function monitorOn(name: string) {
  const target = await httpTarget();
  targets.push(target);
  const res = await p.api('/v1/monitors', { method: 'POST', json: { name, url: target.url, check_frequency: 10, escalation_policy: 'ep_now' } });
  assert.equal(res.status, 201);
  return { uuid: (await res.json()).uuid as string, target };
}

describe('recurring maintenance windows', () => {
  test('weekly in Europe/Berlin: recurrence, zone and the next occurrences across the DST change; edit; OpenAPI', async () => {
    const { uuid: m } = await monitorOn('weekly');
    const body = { name: 'Sunday patching', monitors: [m], timezone: 'Europe/Berlin', recurrence: { strategy: 'weekly', start_time: '02:00', duration_minutes: 60, days_of_week: [0] } };
    const res = await p.api('/v1/maintenance-windows', { method: 'POST', json: body });
    const w = await res.json();
    assert.equal(res.status, 201, JSON.stringify(w));
    assert.equal(w.timezone, 'Europe/Berlin');
    assert.deepEqual(w.recurrence, { strategy: 'weekly', start_time: '02:00', duration_minutes: 60, days_of_week: [0], days_of_month: [], valid_from: iso(p.clock.now()), valid_until: null });
    assert.equal(w.status, 'upcoming');
    // 29 March: 02:00 does not exist in Berlin (clocks jump to 03:00 CEST = 01:00Z); then CEST, UTC+2.
    assert.deepEqual(w.next_occurrences, [
      { start_date: '2026-03-29T01:00:00.000Z', end_date: '2026-03-29T02:00:00.000Z' },
      { start_date: '2026-04-05T00:00:00.000Z', end_date: '2026-04-05T01:00:00.000Z' },
      { start_date: '2026-04-12T00:00:00.000Z', end_date: '2026-04-12T01:00:00.000Z' },
      { start_date: '2026-04-19T00:00:00.000Z', end_date: '2026-04-19T01:00:00.000Z' },
      { start_date: '2026-04-26T00:00:00.000Z', end_date: '2026-04-26T01:00:00.000Z' },
    ]);
    assert.equal(w.start_date, '2026-03-29T01:00:00.000Z', 'start/end: the next occurrence');
    assert.equal(w.end_date, '2026-03-29T02:00:00.000Z');

    const put = await p.api(`/v1/maintenance-windows/${w.uuid}`, { method: 'PUT', json: { timezone: 'America/New_York', recurrence: { ...body.recurrence, days_of_week: [0, 6] } } });
    const edited = await put.json();
    assert.equal(put.status, 200, JSON.stringify(edited));
    assert.equal(edited.name, 'Sunday patching', 'fields left out keep their values');
    // New York is on EDT (UTC−4) since 8 March: Saturday 28 March 02:00 EDT = 06:00Z.
    assert.deepEqual(edited.next_occurrences.slice(0, 2), [
      { start_date: '2026-03-28T06:00:00.000Z', end_date: '2026-03-28T07:00:00.000Z' },
      { start_date: '2026-03-29T06:00:00.000Z', end_date: '2026-03-29T07:00:00.000Z' },
    ]);
    const once = await p.api(`/v1/maintenance-windows/${w.uuid}`, { method: 'PUT', json: { recurrence: null, start_date: '2026-04-01T10:00:00Z', end_date: '2026-04-01T11:00:00Z' } });
    assert.equal(once.status, 200);
    assert.equal((await once.json()).recurrence, null, 'back to one-off');

    const doc = await (await p.api('/openapi.json')).json();
    const schema = doc.components.schemas.MaintenanceWindow;
    assert.ok(schema.properties.recurrence && schema.properties.next_occurrences && schema.properties.timezone, 'the OpenAPI document shows the new fields');
    assert.equal((await p.api(`/v1/maintenance-windows/${w.uuid}`, { method: 'DELETE' })).status, 200);
  });

  test('monthly and cron windows; every rule answers 400 naming the field', async () => {
    const { uuid: m } = await monitorOn('rules');
    const monthly = await (await p.api('/v1/maintenance-windows', { method: 'POST', json: { name: 'month end', monitors: [m], recurrence: { strategy: 'monthly', start_time: '03:00', duration_minutes: 30, days_of_month: [31] } } })).json();
    assert.deepEqual(
      monthly.next_occurrences.map((o: { start_date: string }) => o.start_date),
      ['2026-03-31T03:00:00.000Z', '2026-05-31T03:00:00.000Z', '2026-07-31T03:00:00.000Z', '2026-08-31T03:00:00.000Z', '2026-10-31T03:00:00.000Z'],
    );
    const cron = await (await p.api('/v1/maintenance-windows', { method: 'POST', json: { name: 'cron', monitors: [m], timezone: 'Europe/Berlin', recurrence: { strategy: 'cron', cron: '30 4 * * 1-5', duration_minutes: 15 } } })).json();
    assert.deepEqual(cron.next_occurrences.slice(0, 2), [
      { start_date: '2026-03-30T02:30:00.000Z', end_date: '2026-03-30T02:45:00.000Z' },
      { start_date: '2026-03-31T02:30:00.000Z', end_date: '2026-03-31T02:45:00.000Z' },
    ]);
    const base = { name: 'w', monitors: [m] };
    const weekly = { strategy: 'weekly', start_time: '02:00', duration_minutes: 60, days_of_week: [1] };
    const cases: Array<[Record<string, unknown>, string]> = [
      [base, 'start_date'],
      [{ ...base, recurrence: weekly, timezone: 'Mars/Olympus' }, 'timezone'],
      [{ ...base, recurrence: { ...weekly, strategy: 'hourly' } }, 'recurrence.strategy'],
      [{ ...base, recurrence: { ...weekly, days_of_week: [] } }, 'recurrence.days_of_week'],
      [{ ...base, recurrence: { ...weekly, days_of_week: [7] } }, 'recurrence.days_of_week.0'],
      [{ ...base, recurrence: { ...weekly, start_time: '24:00' } }, 'recurrence.start_time'],
      [{ ...base, recurrence: { ...weekly, duration_minutes: undefined } }, 'recurrence.duration_minutes'],
      [{ ...base, recurrence: { strategy: 'monthly', start_time: '02:00', duration_minutes: 5, days_of_month: [] } }, 'recurrence.days_of_month'],
      [{ ...base, recurrence: { strategy: 'cron', cron: '0 0 * *', duration_minutes: 5 } }, 'recurrence.cron'],
      [{ ...base, recurrence: { strategy: 'cron', cron: '0 0 30 2 *', duration_minutes: 5 } }, 'recurrence.cron'],
      [{ ...base, recurrence: { ...weekly, valid_from: '2026-05-01T00:00:00Z', valid_until: '2026-04-01T00:00:00Z' } }, 'recurrence.valid_until'],
    ];
    for (const [json, field] of cases) {
      const res = await p.api('/v1/maintenance-windows', { method: 'POST', json });
      const error = ((await res.json()).error ?? '') as string;
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.ok(error.startsWith(`${field}:`), `${JSON.stringify(json)} → ${error}`);
    }
    for (const w of [monthly, cron]) await p.api(`/v1/maintenance-windows/${w.uuid}`, { method: 'DELETE' });
  });

  test('alerts are held during an occurrence; "end now" ends it, alerts flow, the next one stays; audit log; reports exclude only the occurrence', async () => {
    const { uuid: m, target } = await monitorOn('covered');
    const t0 = p.clock.now();
    const startIso = new Date(t0 + 5 * MIN).toISOString();
    const created = await (await p.api('/v1/maintenance-windows', { method: 'POST', json: { name: 'daily', monitors: [m], recurrence: { strategy: 'daily', start_time: startIso.slice(11, 16), duration_minutes: 30 } } })).json();
    const occurrence = T(created.start_date);
    assert.equal(created.start_date, `${startIso.slice(0, 16)}:00.000Z`, 'today\'s occurrence, 5 minutes from now');
    await p.advance(occurrence + MIN - p.clock.now());
    assert.equal((await (await p.api(`/v1/maintenance-windows/${created.uuid}`)).json()).status, 'ongoing');
    target.respond(503);
    await p.advance(MIN);
    const alerted = () => hooks.delivered('/hook').filter((b) => b.event === 'outage.alert' && b.outage.monitor.name === 'covered').length;
    const [outage] = (await (await p.api('/v2/outages?status=ongoing')).json()).outages.filter((o: { monitor: { name: string } }) => o.monitor.name === 'covered');
    assert.ok(outage, 'the outage opens during maintenance');
    assert.equal(alerted(), 0, 'held during the occurrence');
    await p.advance(3 * MIN);
    assert.equal(alerted(), 0);
    const endedAt = p.clock.now();
    const ended = await p.api(`/v1/maintenance-windows/${created.uuid}/end`, { method: 'POST' });
    assert.equal(ended.status, 200);
    // Alerts flow again at once (the store's answers are asynchronous on PostgreSQL: a millisecond at a time).
    await waitFor('the held alert after "end now"', async () => {
      await p.advance(1);
      return alerted() === 1;
    });
    assert.ok(p.clock.now() - endedAt < 1000);
    const next = await (await p.api(`/v1/maintenance-windows/${created.uuid}`)).json();
    assert.equal(next.status, 'upcoming');
    assert.equal(T(next.start_date), occurrence + 24 * 60 * MIN, "the next day's occurrence stays");
    assert.equal((await p.api(`/v1/maintenance-windows/${created.uuid}/end`, { method: 'POST' })).status, 409, 'nothing ongoing to end');
    target.respond(200);
    await p.advance(MIN);
    const [resolved] = (await (await p.api('/v2/outages')).json()).outages.filter((o: { uuid: string }) => o.uuid === outage.uuid);
    assert.equal(resolved.isResolved, true);

    const entries = (await (await p.api(`/v1/audit-log?resource_uuid=${created.uuid}`)).json()).entries as Array<{ action: string; resource_type: string; diff: Record<string, unknown> }>;
    assert.deepEqual(
      entries.map((e) => e.action),
      ['update', 'create'],
      '"end now" and the creation',
    );
    assert.equal(entries[0]!.resource_type, 'maintenance_window');
    assert.ok('ended_now' in entries[0]!.diff);

    const from = occurrence - 10 * MIN;
    const to = p.clock.now();
    const r = await (await p.api(`/v2/reporting/monitor-reports/${m}?from=${iso(from)}&to=${iso(to)}`)).json();
    const expected = (T(resolved.endDate) - endedAt) / 1000;
    assert.ok(Math.abs(r.outages.totalDowntime - expected) < 1, `downtime counts from "end now" on, not inside the occurrence: ${r.outages.totalDowntime} s vs ${expected} s`);
  });

  test("the next day's occurrence holds alerts too, and they flow at its natural end (the gate re-arms itself)", async () => {
    // A day of checks: the other tests' monitors go first, this one checks every 5 minutes.
    for (const other of (await (await p.api('/v1/monitors')).json()) as Array<{ uuid: string }>) assert.ok((await p.api(`/v1/monitors/${other.uuid}`, { method: 'DELETE' })).ok);
    const target = await httpTarget();
    targets.push(target);
    const res = await p.api('/v1/monitors', { method: 'POST', json: { name: 'nightly', url: target.url, check_frequency: 300, escalation_policy: 'ep_now' } });
    const m = (await res.json()).uuid as string;
    const first = new Date(p.clock.now() + 5 * MIN);
    const w = await (await p.api('/v1/maintenance-windows', { method: 'POST', json: { name: 'nightly', monitors: [m], recurrence: { strategy: 'daily', start_time: first.toISOString().slice(11, 16), duration_minutes: 20 } } })).json();
    const day2 = T(w.start_date) + 24 * 60 * MIN;
    const alerted = () => hooks.delivered('/hook').filter((b) => b.event === 'outage.alert' && b.outage.monitor.name === 'nightly').length;
    await p.advance(day2 + 2 * MIN - p.clock.now());
    assert.equal((await (await p.api(`/v1/maintenance-windows/${w.uuid}`)).json()).status, 'ongoing', "the second day's occurrence");
    target.respond(503);
    await p.advance(5 * MIN);
    assert.equal(alerted(), 0, 'held during the second occurrence');
    await p.advance(day2 + 20 * MIN - 1 - p.clock.now());
    assert.equal(alerted(), 0, 'until its end');
    await waitFor('the held alert at the occurrence end', async () => {
      await p.advance(1);
      return alerted() === 1;
    });
    assert.ok(p.clock.now() - (day2 + 20 * MIN) < 1000, 'at the end, not later');
    target.respond(200);
    await p.advance(2 * MIN);
  });
});
