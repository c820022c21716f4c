import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import ICAL from 'ical.js';
import { ManualClock } from '../support/manual-clock.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';

// Issue 34 point 2: /v1/on-call-schedules — CRUD, who is on call at a time, the timeline, overrides,
// the audit log, and the secret iCal feeds. Runs on both stores (PHAROS_TEST_DRIVER=postgres).
// The clock stands at Wed 3 Jun 2026 10:00Z (12:00 CEST). The schedule used throughout is weekly in
// Europe/Berlin, hand-off Monday 09:00 CEST = 07:00Z, from Mon 1 Jun: Ann (1–8 Jun), Bob (8–15 Jun), …
const NOW = Date.parse('2026-06-03T10:00:00Z');
let p: TestPharos;
let ann: string;
let bob: string;
let cat: string;
let readToken: string;
let sched: string;

const weekly = (users: string[], extra: Record<string, unknown> = {}) => ({
  name: 'Primary',
  team: 'SRE',
  time_zone: 'Europe/Berlin',
  layers: [{ name: 'Weekly', users, rotation: { type: 'weekly', handoff_time: '09:00', start_date: '2026-06-01' } }],
  ...extra,
});

before(async () => {
  p = await startTestPharos({}, new ManualClock(NOW));
  const actor = { type: 'system' as const, id: 'test', name: 'test' };
  const person = async (name: string) => (await p.core.accounts.create({ email: `${name.toLowerCase()}@example.com`, name, role: 'editor', password: 'a long enough password 1' }, actor)).uuid;
  [ann, bob, cat] = [await person('Ann'), await person('Bob'), await person('Cat')];
  readToken = (await p.core.users.createToken({ email: 'reader@example.com', name: 'Reader', scope: 'read' }, actor)).token;
});
after(() => p.cleanup());

describe('/v1/on-call-schedules', () => {
  test('create answers 201 with the hosted-service fields (current_oncall, next_oncall, rotation_start, rotation_end, team) and the layers; list and get show it', async () => {
    const res = await p.api('/v1/on-call-schedules', { method: 'POST', json: weekly([ann, bob]) });
    const body = await res.json();
    assert.equal(res.status, 201, JSON.stringify(body));
    assert.match(body.uuid, /^sched_[0-9A-Za-z]{22}$/);
    sched = body.uuid;
    assert.deepEqual(
      { team: body.team, current_oncall: body.current_oncall, next_oncall: body.next_oncall, rotation_start: body.rotation_start, rotation_end: body.rotation_end, who: body.current_oncall_user.name, next: body.next_oncall_user.name },
      { team: 'SRE', current_oncall: ann, next_oncall: bob, rotation_start: '2026-06-01T07:00:00.000Z', rotation_end: '2026-06-08T07:00:00.000Z', who: 'Ann', next: 'Bob' },
    );
    assert.deepEqual(body.layers, [{ name: 'Weekly', users: [ann, bob], rotation: { type: 'weekly', length: 7, unit: 'days', handoff_time: '09:00', start_date: '2026-06-01' }, restrictions: [] }]);
    const list = await (await p.api('/v1/on-call-schedules', { token: readToken })).json();
    assert.deepEqual(list, [body]);
    assert.deepEqual(await (await p.api(`/v1/on-call-schedules/${sched}`, { token: readToken })).json(), body);
    assert.equal((await p.api('/v1/on-call-schedules', { method: 'POST', json: weekly([ann]), token: readToken })).status, 403);
  });

  test('GET …/on-call answers who is on call at a time (default now), since, until and who is next', async () => {
    const now = await (await p.api(`/v1/on-call-schedules/${sched}/on-call`)).json();
    assert.equal(now.on_call.uuid, ann);
    assert.equal(now.at, '2026-06-03T10:00:00.000Z');
    const later = await (await p.api(`/v1/on-call-schedules/${sched}/on-call?at=2026-06-09T00:00:00Z`)).json();
    assert.deepEqual(later, {
      schedule_uuid: sched,
      at: '2026-06-09T00:00:00.000Z',
      on_call: { uuid: bob, name: 'Bob', email: 'bob@example.com' },
      since: '2026-06-08T07:00:00.000Z',
      until: '2026-06-15T07:00:00.000Z',
      next: { user: { uuid: ann, name: 'Ann', email: 'ann@example.com' }, start: '2026-06-15T07:00:00.000Z', end: '2026-06-22T07:00:00.000Z' },
    });
    const before = await (await p.api(`/v1/on-call-schedules/${sched}/on-call?at=2026-05-31T12:00:00%2B02:00`)).json();
    assert.equal(before.on_call, null, 'before the first turn nobody is on call');
    assert.equal(before.next.user.uuid, ann);
    const bad = await p.api(`/v1/on-call-schedules/${sched}/on-call?at=tomorrow`);
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).message, /^at: /);
    assert.equal((await p.api('/v1/on-call-schedules/sched_nope/on-call')).status, 404);
  });

  test('GET …/timeline lists shifts and gaps of a bounded range', async () => {
    const t = await (await p.api(`/v1/on-call-schedules/${sched}/timeline?from=2026-06-01T00:00:00Z&to=2026-06-15T07:00:00Z`)).json();
    assert.deepEqual(
      t.shifts.map((s: { start: string; end: string; user: { name: string }; layer: number }) => [s.start, s.end, s.user.name, s.layer]),
      [
        ['2026-06-01T07:00:00.000Z', '2026-06-08T07:00:00.000Z', 'Ann', 0],
        ['2026-06-08T07:00:00.000Z', '2026-06-15T07:00:00.000Z', 'Bob', 0],
      ],
    );
    assert.deepEqual(t.gaps, [{ start: '2026-06-01T00:00:00.000Z', end: '2026-06-01T07:00:00.000Z' }]);
    const long = await p.api(`/v1/on-call-schedules/${sched}/timeline?from=2026-06-01T00:00:00Z&to=2026-09-01T00:00:00Z`);
    assert.equal(long.status, 400);
    assert.match((await long.json()).message, /^to: must be at most 90 days/);
  });

  test('overrides: a person covers a range over every layer; listed; removed', async () => {
    const res = await p.api(`/v1/on-call-schedules/${sched}/overrides`, { method: 'POST', json: { user_uuid: cat, start: '2026-06-04T16:00:00Z', end: '2026-06-05T07:00:00Z', note: 'Ann at the dentist' } });
    const o = await res.json();
    assert.equal(res.status, 201, JSON.stringify(o));
    assert.match(o.uuid, /^ovr_/);
    assert.deepEqual({ user_uuid: o.user_uuid, start: o.start, end: o.end, note: o.note }, { user_uuid: cat, start: '2026-06-04T16:00:00.000Z', end: '2026-06-05T07:00:00.000Z', note: 'Ann at the dentist' });
    assert.equal((await (await p.api(`/v1/on-call-schedules/${sched}/on-call?at=2026-06-04T20:00:00Z`)).json()).on_call.name, 'Cat');
    assert.deepEqual((await (await p.api(`/v1/on-call-schedules/${sched}/overrides`)).json()).map((x: { uuid: string }) => x.uuid), [o.uuid]);
    const t = await (await p.api(`/v1/on-call-schedules/${sched}/timeline?from=2026-06-04T00:00:00Z&to=2026-06-06T00:00:00Z`)).json();
    assert.deepEqual(
      t.shifts.map((s: { user: { name: string }; override_uuid: string | null }) => [s.user.name, s.override_uuid]),
      [
        ['Ann', null],
        ['Cat', o.uuid],
        ['Ann', null],
      ],
    );
    for (const [json, field] of [
      [{ user_uuid: 'user_nobody', start: '2026-06-04T16:00:00Z', end: '2026-06-05T07:00:00Z' }, 'user_uuid'],
      [{ user_uuid: cat, start: '2026-06-05T16:00:00Z', end: '2026-06-05T07:00:00Z' }, 'end'],
      [{ user_uuid: cat, start: '2026-06-05', end: '2026-06-06T07:00:00Z' }, 'start'],
    ] as const) {
      const r = await p.api(`/v1/on-call-schedules/${sched}/overrides`, { method: 'POST', json });
      assert.equal(r.status, 400, field);
      assert.match((await r.json()).message, new RegExp(`^${field}: `));
    }
    assert.equal((await p.api(`/v1/on-call-schedules/${sched}/overrides/${o.uuid}`, { method: 'DELETE' })).status, 200);
    assert.equal((await p.api(`/v1/on-call-schedules/${sched}/overrides/${o.uuid}`, { method: 'DELETE' })).status, 404);
    assert.equal((await (await p.api(`/v1/on-call-schedules/${sched}/on-call?at=2026-06-04T20:00:00Z`)).json()).on_call.name, 'Ann');
  });

  test('bad bodies answer 400 naming the field; users must exist; names are unique (409)', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [weekly([ann, 'user_nobody']), /^layers\[0\]\.users\[1\]: no user "user_nobody"/],
      [weekly([ann], { time_zone: 'Berlin' }), /^time_zone: must be an IANA time zone/],
      [weekly([ann], { layers: [] }), /^layers: must have at least one layer/],
      [weekly([ann], { layers: [{ users: [ann], rotation: { type: 'custom', handoff_time: '09:00', start_date: '2026-06-01' } }] }), /^layers\[0\]\.rotation\.length: /],
      [weekly([ann], { layers: [{ users: [ann], rotation: { type: 'daily', handoff_time: '25:00', start_date: '2026-06-01' } }] }), /^layers\[0\]\.rotation\.handoff_time: /],
      [weekly([ann], { layers: [{ users: [ann], rotation: { type: 'daily', handoff_time: '09:00', start_date: '2026-06-01' }, restrictions: [{ days: [0], start: '09:00', end: '18:00' }] }] }), /^layers\[0\]\.restrictions\[0\]\.days: /],
      [{ ...weekly([ann]), extra: 1 }, /extra/],
    ];
    for (const [json, re] of cases) {
      const r = await p.api('/v1/on-call-schedules', { method: 'POST', json: { ...(json as object), name: 'Other' } });
      const body = await r.json();
      assert.equal(r.status, 400, JSON.stringify(json));
      assert.match(body.message, re);
    }
    const taken = await p.api('/v1/on-call-schedules', { method: 'POST', json: weekly([ann]) });
    assert.equal(taken.status, 409);
    assert.equal((await taken.json()).code, 'on_call_schedules.name_taken');
  });

  test('PATCH changes only what it names: a new time zone moves the hand-off to 09:00 New York time', async () => {
    const res = await p.api(`/v1/on-call-schedules/${sched}`, { method: 'PATCH', json: { time_zone: 'America/New_York' } });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.deepEqual([body.name, body.rotation_start, body.rotation_end], ['Primary', '2026-06-01T13:00:00.000Z', '2026-06-08T13:00:00.000Z']);
    await p.api(`/v1/on-call-schedules/${sched}`, { method: 'PATCH', json: { time_zone: 'Europe/Berlin' } });
    // What was read may be sent back as it is (read-only fields ignored): nothing changes.
    const read = await (await p.api(`/v1/on-call-schedules/${sched}`)).json();
    const put = await p.api(`/v1/on-call-schedules/${sched}`, { method: 'PUT', json: read });
    assert.equal(put.status, 200);
    assert.deepEqual(await put.json(), read);
  });

  test('writes are in the audit log (resource type on_call_schedule)', async () => {
    const page = await (await p.api(`/v1/audit-log?resource_type=on_call_schedule&resource_uuid=${sched}`)).json();
    const actions = page.entries.map((e: { action: string; diff: Record<string, unknown> }) => `${e.action}:${Object.keys(e.diff).sort().join(',')}`);
    assert.ok(actions.includes('create:' + ['description', 'layers', 'name', 'team', 'time_zone'].join(',')), JSON.stringify(actions));
    assert.ok(actions.some((a: string) => /^update:overrides\.ovr_/.test(a)), JSON.stringify(actions));
    assert.ok(actions.includes('update:time_zone'), JSON.stringify(actions));
  });

  test('the OpenAPI document shows the routes and schemas', async () => {
    const doc = (await (await p.api('/openapi.json', { token: null })).json()) as { paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
    for (const path of ['/v1/on-call-schedules', '/v1/on-call-schedules/{uuid}', '/v1/on-call-schedules/{uuid}/on-call', '/v1/on-call-schedules/{uuid}/timeline', '/v1/on-call-schedules/{uuid}/overrides', '/v1/on-call-schedules/{uuid}/overrides/{override}', '/v1/on-call-schedules/{uuid}/ical-feed', '/v1/on-call-schedules/people/{user}/ical-feed']) {
      assert.ok(doc.paths[path], path);
    }
    for (const s of ['OnCallSchedule', 'OnCallAt', 'OnCallTimeline', 'OnCallOverride', 'OnCallScheduleCreate']) assert.ok(doc.components.schemas[s], s);
  });
});

describe('iCal feeds at secret URLs', () => {
  const events = (text: string) =>
    new ICAL.Component(ICAL.parse(text) as unknown[]).getAllSubcomponents('vevent').map((v) => {
      const e = new ICAL.Event(v);
      return { summary: e.summary, start: e.startDate.toJSDate().toISOString(), end: e.endDate.toJSDate().toISOString() };
    });
  const get = (url: string) => fetch(p.url + new URL(url).pathname);

  test("a schedule's feed lists the next 8 weeks of shifts, read by ical.js; a new URL turns the old one off; a wrong token is 404", async () => {
    const made = await p.api(`/v1/on-call-schedules/${sched}/ical-feed`, { method: 'POST' });
    const feed = await made.json();
    assert.equal(made.status, 201, JSON.stringify(feed));
    assert.match(feed.url, /\/ical\/on-call\/[0-9A-Za-z]{32}\.ics$/);
    const res = await get(feed.url);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/calendar/);
    const ev = events(await res.text());
    // From the start of yesterday (2 Jun 00:00Z) for 56 days (to 28 Jul 00:00Z): Ann's turn clipped,
    // then seven whole weeks alternating, then Ann's last turn clipped: 9 events.
    assert.equal(ev.length, 9, JSON.stringify(ev));
    assert.deepEqual(ev[0], { summary: 'On call: Ann', start: '2026-06-02T00:00:00.000Z', end: '2026-06-08T07:00:00.000Z' });
    assert.deepEqual(ev[1], { summary: 'On call: Bob', start: '2026-06-08T07:00:00.000Z', end: '2026-06-15T07:00:00.000Z' });
    assert.equal(ev.at(-1)!.end, '2026-07-28T00:00:00.000Z');

    const again = await (await p.api(`/v1/on-call-schedules/${sched}/ical-feed`, { method: 'POST' })).json();
    assert.equal((await get(feed.url)).status, 404, 'the old URL stops working');
    assert.equal((await get(again.url)).status, 200);
    assert.equal((await fetch(`${p.url}/ical/on-call/${'x'.repeat(32)}.ics`)).status, 404);
    assert.equal((await fetch(`${p.url}/ical/on-call/nonsense`)).status, 404);
  });

  test("a person's feed lists only their shifts, across schedules", async () => {
    const feed = await (await p.api(`/v1/on-call-schedules/people/${bob}/ical-feed`, { method: 'POST' })).json();
    const ev = events(await (await get(feed.url)).text());
    assert.deepEqual(
      ev.map((e) => [e.summary, e.start]),
      ['2026-06-08', '2026-06-22', '2026-07-06', '2026-07-20'].map((d) => ['On call: Primary', `${d}T07:00:00.000Z`]),
    );
    assert.equal((await p.api(`/v1/on-call-schedules/people/user_nobody/ical-feed`, { method: 'POST' })).status, 404);
    assert.equal((await p.api(`/v1/on-call-schedules/people/${bob}/ical-feed`, { method: 'DELETE' })).status, 200);
    assert.equal((await get(feed.url)).status, 404);
  });

  test('deleting the schedule deletes its overrides and feed', async () => {
    const feed = await (await p.api(`/v1/on-call-schedules/${sched}/ical-feed`, { method: 'POST' })).json();
    await p.api(`/v1/on-call-schedules/${sched}/overrides`, { method: 'POST', json: { user_uuid: cat, start: '2026-06-04T16:00:00Z', end: '2026-06-05T07:00:00Z' } });
    assert.equal((await p.api(`/v1/on-call-schedules/${sched}`, { method: 'DELETE' })).status, 200);
    assert.equal((await p.api(`/v1/on-call-schedules/${sched}`)).status, 404);
    assert.equal((await get(feed.url)).status, 404);
    assert.deepEqual(await p.core.onCall.schedulesOf(cat), []);
  });

  test('the feed route is rate-limited per address (429 with Retry-After)', async () => {
    let last: Response | undefined;
    for (let i = 0; i < 61; i += 1) last = await fetch(`${p.url}/ical/on-call/${'y'.repeat(32)}.ics`);
    assert.equal(last!.status, 429);
    assert.ok(Number(last!.headers.get('retry-after')) > 0);
  });
});
