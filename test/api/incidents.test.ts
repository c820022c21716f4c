import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';

// /v3/incidents and /v1/components over real HTTP with a real SQLite file and a manual clock.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
async function setup(): Promise<TestPharos> {
  const p = await startTestPharos();
  cleanups.push(() => p.cleanup());
  return p;
}

describe('incidents', () => {
  test('create, add updates (sorted by date), resolve, replace, list, delete', async () => {
    const p = await setup();
    const monitor = (await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'api', url: 'http://127.0.0.1:9/', paused: true } })).json()).uuid;
    const hc = (await (await p.api('/v1/healthchecks', { method: 'POST', json: { name: 'backup', period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' } })).json()).healthcheck;
    const comp = await (await p.api('/v1/components', { method: 'POST', json: { name: 'Card processor', description: 'Supplier' } })).json();
    assert.deepEqual(comp, { uuid: comp.uuid, name: 'Card processor', description: 'Supplier', status: 'operational' });
    const t0 = p.clock.now();
    const res = await p.api('/v3/incidents', {
      method: 'POST',
      json: {
        title: { en: 'Payments failing', de: 'Zahlungen schlagen fehl', sv: 'Betalningar misslyckas' },
        type: 'outage',
        affectedComponents: [monitor, hc.publicUuid, comp.uuid],
        updates: [{ text: { en: 'We are looking into it' }, type: 'investigating' }],
      },
    });
    assert.equal(res.status, 201);
    const created = await res.json();
    assert.equal(created.message, 'Incident created');
    assert.match(created.uuid, /^inci_/);
    assert.match(created.updates[0].uuid, /^upd_[0-9A-Za-z]{22}$/, 'each update has its own uuid');
    assert.deepEqual(created.updates, [{ uuid: created.updates[0].uuid, date: new Date(t0).toISOString(), text: { en: 'We are looking into it' }, type: 'investigating' }]);
    assert.equal(created.date, new Date(t0).toISOString(), 'date: when it started (its creation when none is given)');
    assert.equal(created.isResolved, false);

    const base = `/v3/incidents/${created.uuid}`;
    const later = new Date(t0 + 3_600_000).toISOString();
    const earlier = new Date(t0 + 600_000).toISOString();
    await p.api(`${base}/updates`, { method: 'POST', json: { date: later, text: { en: 'Fixed' }, type: 'resolved' } });
    const after = await (await p.api(`${base}/updates`, { method: 'POST', json: { date: earlier, text: { en: 'Supplier identified' }, type: 'identified' } })).json();
    assert.deepEqual(after.updates.map((u: { type: string }) => u.type), ['investigating', 'identified', 'resolved'], 'updates sorted by date');
    assert.equal(after.isResolved, true, 'the newest update is resolved');

    const put = await p.api(base, { method: 'PUT', json: { title: { en: 'Payments degraded' }, type: 'incident' } });
    assert.equal(put.status, 200);
    const replaced = await put.json();
    assert.equal(replaced.type, 'incident');
    assert.equal(replaced.affectedComponents.length, 3, 'a partial PUT keeps the fields it leaves out');
    assert.equal(replaced.updates.length, 3, 'a PUT without updates keeps the timeline');
    assert.equal((await (await p.api('/v3/incidents')).json()).length, 1);
    assert.deepEqual(await (await p.api(base, { method: 'DELETE' })).json(), { message: 'Incident deleted' });
    assert.equal((await p.api(base)).status, 404);
    assert.equal((await p.api(`${base}/updates`, { method: 'POST', json: { text: { en: 'x' }, type: 'update' } })).status, 404);
  });

  test('validation: title, type, languages, references and update types answer 400 naming the field', async () => {
    const p = await setup();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'outage' }, 'title'],
      [{ title: { en: 'x' } }, 'type'],
      [{ title: { en: 'x' }, type: 'meltdown' }, 'type'],
      [{ title: {}, type: 'outage' }, 'title'],
      [{ title: { xx: 'x' }, type: 'outage' }, 'title.xx'],
      [{ title: { en: 'x' }, type: 'outage', affectedComponents: ['comp_nope'] }, 'affectedComponents'],
      [{ title: { en: 'x' }, type: 'outage', statuspages: ['sp_nope'] }, 'statuspages'],
      [{ title: { en: 'x' }, type: 'outage', updates: [{ text: { en: 'x' }, type: 'panicking' }] }, 'updates.0.type'],
      [{ title: { en: 'x' }, type: 'outage', updates: [{ text: { en: 'x' }, type: 'update', date: 'soon' }] }, 'updates.0.date'],
    ];
    for (const [json, field] of cases) {
      const res = await p.api('/v3/incidents', { method: 'POST', json });
      assert.equal(res.status, 400, JSON.stringify(json));
      const error = (await res.json()).error as string;
      assert.ok(error.startsWith(`${field}:`), `${JSON.stringify(json)} → ${error}`);
    }
    assert.deepEqual(await (await p.api('/v3/incidents')).json(), []);
  });
});

describe('components', () => {
  test('CRUD with status values; fields left out keep their values', async () => {
    const p = await setup();
    const c = await (await p.api('/v1/components', { method: 'POST', json: { name: 'DNS', status: 'degraded' } })).json();
    const updated = await (await p.api(`/v1/components/${c.uuid}`, { method: 'PUT', json: { name: 'DNS provider' } })).json();
    assert.deepEqual(updated, { uuid: c.uuid, name: 'DNS provider', description: null, status: 'degraded' });
    const statusOnly = await (await p.api(`/v1/components/${c.uuid}`, { method: 'PUT', json: { status: 'operational' } })).json();
    assert.deepEqual(statusOnly, { uuid: c.uuid, name: 'DNS provider', description: null, status: 'operational' }, 'a partial PUT needs no name');
    assert.equal((await p.api('/v1/components', { method: 'POST', json: { name: 'x', status: 'on fire' } })).status, 400);
    assert.equal((await (await p.api('/v1/components')).json()).length, 1);
    assert.equal((await p.api(`/v1/components/${c.uuid}`, { method: 'DELETE' })).status, 200);
    assert.equal((await p.api(`/v1/components/${c.uuid}`)).status, 404);
  });
});
