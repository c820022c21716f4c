import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { rawDb } from '../../src/store/index.ts';

// Issue 35 point 2: clients that keep numeric ids (the Terraform provider's status page sections,
// Terraform state, the Go client's `DELETE …/subscribers/{id}`) must never see an id given again
// to another resource after a delete — SQLite's rowid hands out max(id) + 1, so deleting the
// newest row used to give its id to the next one. Both stores (PHAROS_TEST_DRIVER).
let p: TestPharos;
before(async () => {
  p = await startTestPharos();
});
after(() => p.cleanup());

const json = async (path: string, method = 'GET', body?: unknown) => {
  const res = await p.api(path, { method, ...(body === undefined ? {} : { json: body }) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};
/** The stored numeric id of a row (for resources whose answers do not carry it). */
const idOf = async (table: string, uuid: string) =>
  Number((await rawDb(p.store).prepare<[string], { id: number }>(`SELECT id FROM ${table} WHERE uuid = ?`).get(uuid))!.id);

/** Creates two, deletes the newest, creates one more: its id is above both. */
async function neverRepeats(make: (i: number) => Promise<{ id: number; remove: () => Promise<unknown> }>) {
  const a = await make(1);
  const b = await make(2);
  assert.ok(b.id > a.id);
  await b.remove();
  const c = await make(3);
  assert.ok(c.id > b.id, `the id after deleting ${b.id} is ${c.id}`);
  await c.remove();
  await a.remove();
  const d = await make(4);
  assert.ok(d.id > c.id, `the id after deleting every row (last ${c.id}) is ${d.id}`);
}

test('monitors: the numeric id (and sort_order) of a deleted monitor is never given again', () =>
  neverRepeats(async (i) => {
    const m = await json('/v1/monitors', 'POST', { name: `m${i}`, url: 'http://127.0.0.1:9/', paused: true });
    assert.equal(m.status, 201);
    return { id: m.body.id, remove: () => json(`/v1/monitors/${m.body.uuid}`, 'DELETE') };
  }));

test('subscribers: the integer id of a deleted subscriber is never given again', async () => {
  const sp = (await json('/v2/statuspages', 'POST', { name: 'Ids' })).body.statuspage.uuid as string;
  await neverRepeats(async (i) => {
    const s = await json(`/v2/statuspages/${sp}/subscribers`, 'POST', { email: `s${i}@example.com` });
    assert.equal(s.status, 201);
    return { id: s.body.id, remove: () => json(`/v2/statuspages/${sp}/subscribers/${s.body.id}`, 'DELETE') };
  });
});

test('healthchecks, status pages, maintenance windows, incidents, components: stored ids never repeat', async () => {
  const kinds: Array<[string, string, (i: number) => unknown, (b: { uuid?: string; healthcheck?: { uuid: string }; statuspage?: { uuid: string } }) => string]> = [
    ['healthchecks', '/v1/healthchecks', (i) => ({ name: `h${i}`, period_value: 1, period_type: 'hours', grace_period_value: 5, grace_period_type: 'minutes' }), (b) => b.healthcheck!.uuid],
    ['statuspages', '/v2/statuspages', (i) => ({ name: `p${i}` }), (b) => b.statuspage!.uuid],
    ['maintenance_windows', '/v1/maintenance-windows', (i) => ({ name: `w${i}`, start_date: '2030-01-01T00:00:00Z', end_date: '2030-01-01T01:00:00Z', monitors: [] }), (b) => b.uuid!],
    ['incidents', '/v3/incidents', (i) => ({ title: { en: `i${i}` }, type: 'incident', statuspages: [] }), (b) => b.uuid!],
    ['components', '/v1/components', (i) => ({ name: `c${i}` }), (b) => b.uuid!],
  ];
  for (const [table, path, body, uuidOf] of kinds) {
    await neverRepeats(async (i) => {
      const r = await json(path, 'POST', body(i));
      assert.ok(r.status === 200 || r.status === 201, `${path}: ${JSON.stringify(r.body)}`);
      const uuid = uuidOf(r.body);
      return { id: await idOf(table, uuid), remove: async () => assert.ok((await json(`${path}/${uuid}`, 'DELETE')).status < 300) };
    });
  }
});

test('outages: incident numbers never repeat after a delete', () =>
  neverRepeats(async (i) => {
    const o = await json('/v2/outages', 'POST', { description: `o${i}` });
    assert.equal(o.status, 200, JSON.stringify(o.body));
    return { id: o.body.outage.incidentNumber, remove: () => json(`/v2/outages/${o.body.outage.uuid}`, 'DELETE') };
  }));
