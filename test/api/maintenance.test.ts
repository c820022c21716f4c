import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpReceiver } from '../support/receivers.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';

// Maintenance windows and reports over real HTTP, real targets on 127.0.0.1 and a manual clock.
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup() {
  const hooks = await httpReceiver();
  cleanups.push(hooks.close);
  const p = await startTestPharos({
    channels: [{ name: 'hook', type: 'webhook', url: `${hooks.url}/hook` }],
    escalation_policies: [{ uuid: 'ep_now', name: 'Now', steps: [{ after_minutes: 0, channels: ['hook'] }] }],
  });
  cleanups.push(() => p.cleanup());
  return { p, hooks };
}

async function monitorOn(p: TestPharos, name: string, target: HttpTarget) {
  const res = await p.api('/v1/monitors', { method: 'POST', json: { name, url: target.url, check_frequency: 10, escalation_policy: 'ep_now' } });
  assert.equal(res.status, 201);
  return (await res.json()).uuid as string;
}

describe('maintenance windows', () => {
  test('create, read, update, list, delete; status follows the clock', async () => {
    const { p } = await setup();
    const target = await httpTarget();
    cleanups.push(target.stop);
    const m = await monitorOn(p, 'db', target);
    const t0 = p.clock.now();
    const body = { name: 'DB upgrade', start_date: iso(t0 + MIN), end_date: iso(t0 + 61 * MIN), monitors: [m], title: { en: 'Database upgrade', de: 'Datenbank-Upgrade' } };
    const res = await p.api('/v1/maintenance-windows', { method: 'POST', json: body });
    assert.equal(res.status, 201);
    const w = await res.json();
    assert.match(w.uuid, /^mw_/);
    assert.deepEqual(w, {
      uuid: w.uuid,
      name: 'DB upgrade',
      start_date: body.start_date,
      end_date: body.end_date,
      recurrence: null,
      next_occurrences: [{ start_date: body.start_date, end_date: body.end_date }],
      monitors: [m],
      statuspages: [],
      title: body.title,
      updates: [],
      notificationOption: 'none',
      notificationMinutes: 60,
      status: 'upcoming',
      timezone: 'UTC',
      createdAt: iso(t0),
      createdBy: 'PHAROS_ADMIN_TOKEN (admin@localhost)',
    });
    await p.advance(MIN);
    assert.equal((await (await p.api(`/v1/maintenance-windows/${w.uuid}`)).json()).status, 'ongoing');
    const put = await p.api(`/v1/maintenance-windows/${w.uuid}`, { method: 'PUT', json: { ...body, name: 'DB upgrade v2', notificationOption: 'scheduled', notificationMinutes: 30 } });
    assert.equal(put.status, 200);
    assert.equal((await put.json()).notificationMinutes, 30);
    await p.advance(60 * MIN);
    const [listed] = await (await p.api('/v1/maintenance-windows')).json();
    assert.equal(listed.status, 'completed');
    assert.equal(listed.name, 'DB upgrade v2');
    assert.deepEqual(await (await p.api(`/v1/maintenance-windows/${w.uuid}`, { method: 'DELETE' })).json(), { message: 'Maintenance window deleted' });
    assert.equal((await p.api(`/v1/maintenance-windows/${w.uuid}`)).status, 404);
  });

  test('every validation rule answers 400 naming the field', async () => {
    const { p } = await setup();
    const target = await httpTarget();
    cleanups.push(target.stop);
    const m = await monitorOn(p, 'db', target);
    const base = { name: 'w', start_date: '2026-05-01T22:00:00Z', end_date: '2026-05-01T23:00:00Z', monitors: [m] };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, name: undefined }, 'name'],
      [{ ...base, start_date: 'tomorrow' }, 'start_date'],
      [{ ...base, end_date: '2026-05-01T21:00:00Z' }, 'end_date'],
      [{ ...base, monitors: undefined }, 'monitors'],
      [{ ...base, monitors: ['mon_nope'] }, 'monitors'],
      [{ ...base, statuspages: ['sp_nope'] }, 'statuspages'],
      [{ ...base, title: { klingon: 'x' } }, 'title.klingon'],
      [{ ...base, title: {} }, 'title'],
      [{ ...base, notificationOption: 'later' }, 'notificationOption'],
      [{ ...base, notificationMinutes: 0 }, 'notificationMinutes'],
    ];
    for (const [json, field] of cases) {
      const res = await p.api('/v1/maintenance-windows', { method: 'POST', json });
      assert.equal(res.status, 400, JSON.stringify(json));
      const error = (await res.json()).error as string;
      assert.ok(error.startsWith(`${field}:`), `${JSON.stringify(json)} → ${error}`);
    }
    assert.deepEqual(await (await p.api('/v1/maintenance-windows')).json(), []);
  });

  test('alerts are held during maintenance and flow again when it ends; other monitors alert as usual', async () => {
    const { p, hooks } = await setup();
    const [inWindow, outside] = [await httpTarget(), await httpTarget()];
    cleanups.push(inWindow.stop, outside.stop);
    const m = await monitorOn(p, 'covered', inWindow);
    await monitorOn(p, 'free', outside);
    const t0 = p.clock.now();
    await p.api('/v1/maintenance-windows', { method: 'POST', json: { name: 'w', start_date: iso(t0 + MIN), end_date: iso(t0 + 31 * MIN), monitors: [m] } });
    await p.advance(5 * MIN);
    inWindow.respond(503);
    outside.respond(503);
    await p.advance(MIN);
    const outages = (await (await p.api('/v2/outages?status=ongoing')).json()).outages;
    assert.equal(outages.length, 2, 'outages open during maintenance as usual');
    const alerted = () => hooks.delivered('/hook').filter((b) => b.event === 'outage.alert').map((b) => b.outage.monitor.name);
    assert.deepEqual(alerted(), ['free']);
    const covered = outages.find((o: { monitor: { name: string } }) => o.monitor.name === 'covered');
    const timeline = (await (await p.api(`/v2/outages/${covered.uuid}/timeline`)).json()).events;
    assert.match(timeline.at(-1).message, /held: alerts are suppressed/);
    await p.advance(t0 + 31 * MIN - 1 - p.clock.now());
    assert.deepEqual(alerted(), ['free'], 'nothing until the window ends');
    await p.advance(1);
    assert.deepEqual(alerted(), ['free', 'covered'], 'alerts flow again once the window is over');
  });
});

describe('reports', () => {
  test('a monitor down 12 minutes, 5 of them inside maintenance: exact SLA, MTTR and downtime', async () => {
    const { p } = await setup();
    const target = await httpTarget();
    cleanups.push(target.stop);
    const m = await monitorOn(p, 'api', target);
    const from = p.clock.now();
    await p.advance(20 * MIN);
    // Checks run on a 10 s grid; the target fails from the next check on, so the outage starts at
    // exactly that check (the detection) and ends at the first passing check 12 minutes later.
    await p.core.checks.flush();
    const lastCheck = p.store.checks.lastCheckAt(p.store.monitors.get(m)!.id)!;
    const downAt = lastCheck + 10_000;
    target.respond(500);
    const w = { name: 'w', start_date: iso(downAt + 7 * MIN), end_date: iso(downAt + 12 * MIN), monitors: [m] };
    assert.equal((await p.api('/v1/maintenance-windows', { method: 'POST', json: w })).status, 201);
    await p.advance(downAt + 12 * MIN - 1 - p.clock.now());
    target.respond(200);
    await p.advance(MIN);
    const [outage] = (await (await p.api('/v2/outages')).json()).outages;
    assert.equal(outage.isResolved, true);
    assert.equal(outage.startDate, iso(downAt), 'the outage starts at the first failing check');
    assert.equal(outage.endDate, iso(downAt + 12 * MIN), 'and lasts 12 minutes');
    const to = from + 60 * MIN;
    const r = await (await p.api(`/v2/reporting/monitor-reports/${m}?from=${iso(from)}&to=${iso(to)}`)).json();
    assert.deepEqual(r.period, { from: iso(from), to: iso(to) });
    assert.equal(r.protocol, 'http');
    assert.equal(r.outages.count, 1);
    assert.equal(r.outages.totalDowntime, 420, '12 minutes down, 5 of them in maintenance: 7 minutes = 420 s count');
    assert.equal(r.mttr, 420);
    assert.equal(r.outages.details[0].startDate, outage.startDate);
    assert.equal(r.sla, 88.33, '100 × (1 − 7 min / 60 min) = 88.333…, rounded down to 2 decimals');
    const list = await (await p.api(`/v2/reporting/monitor-reports?from=${iso(from)}&to=${iso(to)}`)).json();
    assert.deepEqual(list, [{ uuid: m, name: 'api', sla: r.sla }]);

    assert.equal((await p.api(`/v2/reporting/monitor-reports/${m}?from=${iso(to)}&to=${iso(from)}`)).status, 400, 'from >= to');
    assert.equal((await p.api(`/v2/reporting/monitor-reports/${m}?from=yesterday`)).status, 400);
    assert.equal((await p.api('/v2/reporting/monitor-reports/mon_missing')).status, 404);
    const def = await (await p.api(`/v2/reporting/monitor-reports/${m}`)).json();
    assert.deepEqual(def.period, { from: iso(p.clock.now() - 7 * 24 * 60 * MIN), to: iso(p.clock.now()) }, 'default: the last 7 days');
  });
});
