import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { arr, assertDecodes, obj, str } from './clients/shapes.ts';
import { go, py } from './clients/types.ts';

// Incidents with their updates, and maintenance windows, as the hosted service's clients send and read them.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
async function setup(): Promise<TestPharos> {
  const p = await startTestPharos();
  cleanups.push(() => p.cleanup());
  return p;
}
const json = async (p: TestPharos, path: string, method = 'GET', body?: unknown) => {
  const res = await p.api(path, { method, ...(body === undefined ? {} : { json: body }) });
  return { status: res.status, body: await res.json() };
};
const iso = (ms: number) => new Date(ms).toISOString();

describe('incidents (Go Incident, Python Incident)', () => {
  test('create with date and text, updates with their own uuid, "" dates, partial PUT', async () => {
    const p = await setup();
    const sp = (await json(p, '/v2/statuspages', 'POST', { name: 'Acme' })).body.statuspage.uuid;
    // CreateIncidentRequest of both clients: title, text, type, statuspages, date.
    const created = await json(p, '/v3/incidents', 'POST', { title: { en: 'Payments failing' }, text: { en: 'We are looking into it' }, type: 'incident', statuspages: [sp], date: '2026-01-01T10:00:00Z' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assertDecodes(created.body, go.Incident, 'Go Incident');
    assertDecodes(created.body, py.Incident, 'Python Incident');
    assertDecodes(created.body, obj({ message: str, uuid: str }), 'API.md {message, uuid}');
    const uuid = created.body.uuid as string;
    assert.equal(created.body.date, '2026-01-01T10:00:00.000Z');
    assert.deepEqual(created.body.text, { en: 'We are looking into it' });
    assert.deepEqual(created.body.updates.map((u: { type: string; date: string }) => [u.type, u.date]), [['investigating', '2026-01-01T10:00:00.000Z']], 'text became the first update');

    // AddIncidentUpdateRequest with `date: ""` (the clients send it when resolving now).
    const update = await json(p, `/v3/incidents/${uuid}/updates`, 'POST', { text: { en: 'Fixed' }, type: 'resolved', date: '' });
    assert.equal(update.status, 200, JSON.stringify(update.body));
    assertDecodes(update.body, py.Incident, 'Python Incident');
    const last = update.body.updates.at(-1);
    assert.deepEqual([last.type, last.date], ['resolved', iso(p.clock.now())]);
    const uuids = update.body.updates.map((u: { uuid: string }) => u.uuid);
    assert.equal(new Set(uuids).size, 2);
    assert.ok(uuids.every((u: string) => /^upd_[0-9A-Za-z]{22}$/.test(u)));
    assert.deepEqual((await json(p, `/v3/incidents/${uuid}`)).body.updates.map((u: { uuid: string }) => u.uuid), uuids, 'update uuids are stored, not made up per read');

    // UpdateIncidentRequest: only what changes.
    const renamed = await json(p, `/v3/incidents/${uuid}`, 'PUT', { title: { en: 'Payments degraded' } });
    assert.equal(renamed.status, 200);
    assertDecodes(renamed.body, go.Incident, 'Go Incident');
    assert.deepEqual([renamed.body.type, renamed.body.statuspages, renamed.body.updates.length, renamed.body.date], ['incident', [sp], 2, '2026-01-01T10:00:00.000Z']);
    const refused = await json(p, `/v3/incidents/${uuid}`, 'PUT', { type: 'outage', statuspages: ['sp_nope'] });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error, /^statuspages: /);
    assert.equal((await json(p, `/v3/incidents/${uuid}`)).body.type, 'incident', 'nothing stored');
    const list = await json(p, '/v3/incidents');
    assertDecodes(list.body, arr(go.Incident), 'Go []Incident');
    assertDecodes(list.body, arr(py.Incident), 'Python list[Incident]');
  });
});

describe('maintenance windows (Go Maintenance, Python Maintenance)', () => {
  test('create as the clients do, partial PUT, and an invalid merge stores nothing', async () => {
    const p = await setup();
    const mon = (await json(p, '/v1/monitors', 'POST', { name: 'API', url: 'http://127.0.0.1:9/', paused: true })).body.uuid;
    const t0 = p.clock.now();
    // CreateMaintenanceRequest: name, title, text, dates, monitors, statuspages, notification settings.
    const created = await json(p, '/v1/maintenance-windows', 'POST', {
      name: 'DB upgrade',
      title: { en: 'Database upgrade' },
      text: { en: 'Writes pause for a minute' },
      start_date: iso(t0 + 3_600_000),
      end_date: iso(t0 + 7_200_000),
      monitors: [mon],
      statuspages: [],
      notificationOption: 'scheduled',
      notificationMinutes: 30,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assertDecodes(created.body, go.Maintenance, 'Go Maintenance');
    assertDecodes(created.body, py.Maintenance, 'Python Maintenance');
    const uuid = created.body.uuid as string;

    const renamed = await json(p, `/v1/maintenance-windows/${uuid}`, 'PUT', { name: 'DB upgrade (v16)' });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assertDecodes(renamed.body, go.Maintenance, 'Go Maintenance');
    assert.deepEqual([renamed.body.name, renamed.body.monitors, renamed.body.notificationMinutes, renamed.body.title], ['DB upgrade (v16)', [mon], 30, { en: 'Database upgrade' }]);
    const moved = await json(p, `/v1/maintenance-windows/${uuid}`, 'PUT', { end_date: iso(t0 + 10_800_000) });
    assert.equal(moved.body.end_date, iso(t0 + 10_800_000));

    const refused = await json(p, `/v1/maintenance-windows/${uuid}`, 'PUT', { end_date: iso(t0) });
    assert.equal(refused.status, 400, 'ending before the stored start');
    assert.match(refused.body.error, /^end_date: /);
    assert.equal((await json(p, `/v1/maintenance-windows/${uuid}`)).body.end_date, iso(t0 + 10_800_000), 'nothing stored');
    const list = await json(p, '/v1/maintenance-windows');
    assertDecodes(list.body, arr(go.Maintenance), 'Go []Maintenance');
    assertDecodes(list.body, arr(py.Maintenance), 'Python list[Maintenance]');
  });
});
