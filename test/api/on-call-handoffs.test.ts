import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpReceiver } from '../support/receivers.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { handoffNoticesService } from '../../src/core/on-call-handoffs.ts';
import { silentLogger } from '../../src/lib/logger.ts';

// Issue 34 point 2: hand-off notifications on the store under test (PHAROS_TEST_DRIVER=postgres),
// time on the manual clock. Weekly in Europe/Berlin from Mon 1 Jun 2026, hand-off 09:00 CEST (07:00Z):
// Ann 1–8 Jun, then the installation token's user ("me", ntfy verified) 8–15 Jun. The clock starts at
// Mon 8 Jun 08:30 CEST: me is told at 08:45, once, through a local fake ntfy.
const START = Date.parse('2026-06-08T06:30:00Z');
let p: TestPharos;
let rx: Awaited<ReturnType<typeof httpReceiver>>;
let me: string;
let sched: string;

const pushes = () => rx.received.filter((r) => r.path.startsWith('/ntfy')).map((r) => JSON.parse(r.body) as { topic: string; title: string; message: string });
const notices = () => pushes().filter((x) => x.title.startsWith('On call for'));
const json = async (path: string, method: string, body: unknown, status = method === 'POST' ? 201 : 200) => {
  const res = await p.api(path, { method, json: body });
  assert.equal(res.status, status, await res.clone().text());
  return res.json();
};

before(async () => {
  rx = await httpReceiver();
  rx.state.answer = () => 200;
  p = await startTestPharos({ channels: [{ name: 'ntfy', type: 'ntfy', server: `${rx.url}/ntfy`, topic: 'team' }] }, new ManualClock(START));
  me = (await (await p.api('/v1/me')).json()).uuid;
  const m = await json('/v1/me/contact-methods', 'POST', { kind: 'ntfy', address: 'me-pager' });
  const code = /(\d{6})/.exec(pushes().at(-1)!.message)![1]!;
  await json(`/v1/me/contact-methods/${m.uuid}/verify`, 'POST', { code }, 200);
  const ann = (await p.core.accounts.create({ email: 'ann@example.com', name: 'Ann', role: 'editor', password: 'a long enough password 1' }, { type: 'system', id: 'test', name: 'test' })).uuid;
  sched = (
    await json('/v1/on-call-schedules', 'POST', {
      name: 'Primary',
      time_zone: 'Europe/Berlin',
      layers: [{ name: 'Weekly', users: [ann, me], rotation: { type: 'weekly', handoff_time: '09:00', start_date: '2026-06-01' } }],
    })
  ).uuid;
});
after(async () => {
  await p?.cleanup();
  await rx?.close();
});

describe('on-call hand-off notices', () => {
  test('the person taking over is told 15 minutes before, through their verified method, with zone and end', async () => {
    await p.advance(14 * 60_000);
    await p.core.onCallHandoffs.settled();
    assert.equal(notices().length, 0, 'not yet at 08:44');
    await p.advance(60_000);
    await p.core.onCallHandoffs.settled();
    assert.equal(notices().length, 1, 'told at 08:45');
    const n = notices()[0]!;
    assert.equal(n.topic, 'me-pager');
    assert.equal(n.title, 'On call for "Primary" from 09:00');
    assert.equal(n.message, 'You are on call for "Primary" from 09:00 (Europe/Berlin) until Mon 15 Jun 09:00.');
  });

  test('once per hand-off: later looks, a restart of the timer and another instance on the same store tell nobody again', async () => {
    await p.advance(30 * 60_000);
    await p.core.onCallHandoffs.settled();
    assert.equal(await p.core.onCallHandoffs.runDue(), 0);
    p.core.onCallHandoffs.stop();
    p.core.onCallHandoffs.start(() => true);
    await p.advance(1000);
    await p.core.onCallHandoffs.settled();
    const other = handoffNoticesService({ store: p.store, clock: p.clock, logger: silentLogger, people: p.core.people });
    assert.equal(await other.runDue(), 0, 'a second instance finds it claimed');
    assert.equal(notices().length, 1);
    assert.equal(await p.store.async.onCall.lastHandoff(sched), Date.parse('2026-06-08T07:00:00Z'));
  });

  test('a follower (not leading) tells nothing; a hand-off missed by more than 15 minutes is not told late; an override starting soon is a hand-off told', async () => {
    p.core.onCallHandoffs.stop();
    p.core.onCallHandoffs.start(() => false);
    await p.advance(7 * 86_400_000 + 10 * 60_000);
    await p.core.onCallHandoffs.settled();
    assert.equal(await p.store.async.onCall.lastHandoff(sched), Date.parse('2026-06-08T07:00:00Z'), 'a follower claims nothing');
    p.core.onCallHandoffs.stop();
    p.core.onCallHandoffs.start(() => true);
    await p.advance(0);
    await p.core.onCallHandoffs.settled();
    // Now Mon 15 Jun 09:25: Ann's hand-off at 09:00 was missed by more than 15 minutes: not told any more.
    assert.equal(await p.store.async.onCall.lastHandoff(sched), Date.parse('2026-06-08T07:00:00Z'));
    const override = await json(`/v1/on-call-schedules/${sched}/overrides`, 'POST', { user_uuid: me, start: '2026-06-15T07:40:00Z', end: '2026-06-15T08:30:00Z' });
    assert.ok(override.uuid);
    assert.equal(await p.core.onCallHandoffs.runDue(), 1, 'an override starting in 15 minutes is a hand-off to tell');
    assert.equal(notices().length, 2);
    assert.match(notices()[1]!.message, /^You are on call for "Primary" from 09:40 \(Europe\/Berlin\) until 10:30\.$/);
  });
});
