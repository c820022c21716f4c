import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../support/manual-clock.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpReceiver } from '../support/receivers.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';

// Issue 36: monitor dependencies. A real Pharos over HTTP (the store the run picks) on a manual clock,
// real local HTTP targets, a real webhook receiver: one alert for a dead router, not thirty.

let p: TestPharos;
let hooks: Awaited<ReturnType<typeof httpReceiver>>;
const targets: HttpTarget[] = [];
const cleanups: Array<() => unknown> = [];

before(async () => {
  hooks = await httpReceiver();
  cleanups.push(hooks.close);
  p = await startTestPharos(
    {
      probe: { region: 'london', confirmation_checks: 1 },
      channels: [{ name: 'ops', type: 'webhook', url: `${hooks.url}/ops` }],
      escalation_policies: [{ uuid: 'ep_ops', name: 'Ops', steps: [{ after_minutes: 0, channels: ['ops'] }] }],
    },
    new ManualClock(),
  );
  cleanups.push(() => p.cleanup());
});
after(async () => {
  for (const t of targets) await t.stop();
  while (cleanups.length) await cleanups.pop()!();
});

const target = async () => {
  const t = await httpTarget(200);
  targets.push(t);
  return t;
};
const create = async (json: Record<string, unknown>) => p.api('/v1/monitors', { method: 'POST', json: { check_frequency: 30, escalation_policy: 'ep_ops', ...json } });
/** Outage webhook posts delivered so far: [event, monitor name] (other notices, e.g. `pharos.notice`, left out). */
const posts = () => hooks.delivered('/ops').filter((b: { event?: string; type?: string }) => (b.event ?? b.type ?? '').startsWith('outage.')).map((b: { event?: string; type?: string; monitor?: { name?: string }; outage?: { monitor?: { name?: string } } }) => [b.event ?? b.type, b.monitor?.name ?? b.outage?.monitor?.name]);

test('a router and 30 children fail together: one alert; the children\'s history shows the downtime; a child alone alerts; an alerted child resolves and notifies', async () => {
  const routerT = await target();
  const lanT = await target();
  const earlyT = await target();
  const lingerT = await target();
  // Created before its parent (checked first in a round, its change first in a flush), then made to depend on it.
  const first = await (await create({ name: 'lan-first', url: `${lanT.url}?n=first` })).json();
  const router = await (await create({ name: 'router', url: routerT.url })).json();
  assert.equal((await p.api(`/v1/monitors/${first.uuid}`, { method: 'PUT', json: { depends_on: [router.uuid] } })).status, 200);
  const children: Array<{ uuid: string }> = [];
  for (let i = 0; i < 30; i++) children.push(await (await create({ name: `lan-${i}`, url: `${lanT.url}?n=${i}`, depends_on: [router.uuid] })).json());
  const early = await (await create({ name: 'early', url: earlyT.url, depends_on: [router.uuid] })).json();
  const linger = await (await create({ name: 'linger', url: lingerT.url, depends_on: [router.uuid] })).json();
  assert.deepEqual(early.depends_on, [router.uuid]);
  await p.advance(31_000);
  assert.equal(posts().length, 0);

  // A child that fails alone still alerts (within one interval of its parent: the parent is checked first).
  earlyT.respond(500);
  await p.advance(30_000);
  await p.advance(30_000);
  await p.advance(30_000);
  assert.deepEqual(posts(), [['outage.opened', 'early']].map(([e, n]) => [posts()[0]?.[0] ?? e, n]));
  const alertEvent = posts()[0]![0];

  // The router and 31 of its children fail together: one alert, the router's.
  routerT.respond(500);
  lanT.respond(500);
  lingerT.respond(500);
  for (let i = 0; i < 8; i++) await p.advance(30_000);
  const after = posts().slice(1);
  assert.deepEqual(after, [[alertEvent, 'router']], 'exactly one alert: the router\'s');
  for (const c of [...children, first, linger]) {
    const m = await (await p.api(`/v1/monitors/${c.uuid}`)).json();
    assert.equal(m.status, 'down', 'the child\'s state stays true');
  }
  const outages = (await (await p.api('/v2/outages?status=ongoing')).json()).outages as Array<{ uuid: string; monitor: { name: string } | null }>;
  const ofChild = outages.find((o) => o.monitor?.name.startsWith('lan-'));
  assert.ok(ofChild, 'the children\'s outages are recorded');
  const timeline = (await (await p.api(`/v2/outages/${ofChild.uuid}/timeline`)).json()).events as Array<{ type: string; message: string | null }>;
  assert.equal(timeline.filter((e) => e.message === 'suppressed: depends on router, which is down').length, 1, 'the timeline says why, once');

  // The already-alerted child recovers while the router is still down: its recovery goes out.
  earlyT.respond(200);
  await p.advance(30_000);
  assert.equal(posts().slice(2).length, 1);
  assert.equal(posts()[2]![1], 'early');
  assert.notEqual(posts()[2]![0], alertEvent, 'a recovery');

  // The router and its LAN come back; `linger` stays down: it alerts now (after the parent's recovery).
  routerT.respond(200);
  lanT.respond(200);
  for (let i = 0; i < 4; i++) await p.advance(30_000);
  const last = posts().slice(3);
  assert.deepEqual(last.filter(([e]) => e === alertEvent).map(([, n]) => n), ['linger'], 'the child still down after its parent recovered alerts');
  assert.deepEqual(last.filter(([e]) => e !== alertEvent).map(([, n]) => n), ['router'], 'only the router had alerted: only it recovers aloud');
  const history = await (await p.api(`/v1/monitors/${children[3]!.uuid}`)).json();
  assert.equal(history.status, 'up');
});

test('depends_on: unknown uuids, itself and cycles are refused with a 400 naming the field; in the OpenAPI document', async () => {
  const t = await target();
  const a = await (await create({ name: 'a', url: t.url })).json();
  const b = await (await create({ name: 'b', url: t.url, depends_on: [a.uuid] })).json();
  const unknown = await create({ name: 'c', url: t.url, depends_on: ['mon_nope'] });
  assert.equal(unknown.status, 400);
  assert.match((await unknown.json()).message, /^depends_on: unknown monitor/);
  const self = await p.api(`/v1/monitors/${a.uuid}`, { method: 'PUT', json: { depends_on: [a.uuid] } });
  assert.equal(self.status, 400);
  assert.match((await self.json()).message, /^depends_on: /);
  const cycle = await p.api(`/v1/monitors/${a.uuid}`, { method: 'PUT', json: { depends_on: [b.uuid] } });
  assert.equal(cycle.status, 400);
  assert.match((await cycle.json()).message, /^depends_on: cycle/);
  const wrongType = await p.api(`/v1/monitors/${a.uuid}`, { method: 'PUT', json: { depends_on: 'x' } });
  assert.equal(wrongType.status, 400);
  // Left out: kept (clients that do not know the field keep what was set).
  const kept = await (await p.api(`/v1/monitors/${b.uuid}`, { method: 'PUT', json: { name: 'b2' } })).json();
  assert.deepEqual(kept.depends_on, [a.uuid]);
  const cleared = await (await p.api(`/v1/monitors/${b.uuid}`, { method: 'PUT', json: { depends_on: [] } })).json();
  assert.deepEqual(cleared.depends_on, []);
  const doc = await (await p.api('/openapi.json')).json();
  assert.ok(JSON.stringify(doc).includes('depends_on'));
});
