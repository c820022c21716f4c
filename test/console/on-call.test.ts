import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../support/manual-clock.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin, signIn, type ConsoleClient } from '../support/console.ts';

// Issue 34 point 2, the console: the On-call pages over plain HTTP (no JavaScript): the list with who
// is on call now and next, the editor (people in turn order, rotation, hand-off, zone, windows) checked
// by the API's own schemas, the calendar of the coming weeks, overrides by form, iCal links, roles.
// Both stores (PHAROS_TEST_DRIVER=postgres). The clock stands at Wed 3 Jun 2026 10:00Z (12:00 CEST);
// weekly in Europe/Berlin from Mon 1 Jun, hand-off 09:00: Ann 1–8 Jun, Bob 8–15 Jun, Cat 15–22 Jun.
const NOW = Date.parse('2026-06-03T10:00:00Z');
let p: TestPharos;
let admin: ConsoleClient;
let viewer: ConsoleClient;
const ids: Record<string, string> = {};
let sched = '';

/** The calendar cell of local date `date` (its HTML up to the next day). */
const day = (html: string, date: string): string => {
  const found = html.indexOf(`data-date="${date}"`);
  assert.ok(found > 0, `the calendar shows ${date}`);
  const at = html.lastIndexOf('class="oc-day', found);
  const end = html.indexOf('class="oc-day', found);
  return html.slice(at, end < 0 ? undefined : end);
};

const form = (extra: Record<string, string | string[]> = {}) => ({
  name: 'Primary',
  team: 'SRE',
  description: '',
  time_zone: 'Europe/Berlin',
  layers: '1',
  layer_0_name: 'Weekly',
  layer_0_slots: '4',
  layer_0_windows: '0',
  layer_0_user_0: ids.Ann!,
  layer_0_user_1: ids.Bob!,
  layer_0_user_2: ids.Cat!,
  layer_0_user_3: '',
  layer_0_type: 'weekly',
  layer_0_length: '',
  layer_0_unit: 'days',
  layer_0_handoff: '09:00',
  layer_0_start_date: '2026-06-01',
  op: 'save',
  ...extra,
});

before(async () => {
  p = await startTestPharos({}, new ManualClock(NOW));
  admin = await setupAdmin(p);
  const actor = { type: 'system' as const, id: 'test', name: 'test' };
  for (const name of ['Ann', 'Bob', 'Cat']) ids[name] = (await p.core.accounts.create({ email: `${name.toLowerCase()}@example.com`, name, role: 'editor', password: 'a long enough password 1' }, actor)).uuid;
  await p.core.accounts.create({ email: 'vic@example.com', name: 'Vic', role: 'viewer', password: 'a long enough password 1' }, actor);
  viewer = await signIn(p, 'vic@example.com', 'a long enough password 1');
});
after(() => p.cleanup());

describe('console: On-call', () => {
  test('the nav has On-call; the empty list offers a new schedule to editors', async () => {
    const res = await admin.get('/on-call');
    assert.equal(res.status, 200);
    assert.match(res.html, /<a href="\/on-call" aria-current="page">On-call<\/a>/);
    assert.match(res.html, /No on-call schedule yet/);
    assert.match(res.html, /id="new-schedule"/);
    assert.doesNotMatch((await viewer.get('/on-call')).html, /id="new-schedule"/);
    assert.equal((await viewer.get('/on-call/new')).status, 403);
  });

  test('"Add person", "Add window", "Add layer" post the editor back with one more (nothing saved)', async () => {
    const res = await admin.post('/on-call', form({ op: 'add-person-0' }));
    assert.equal(res.status, 200);
    assert.match(res.html, /name="layer_0_user_4"/);
    assert.match((await admin.post('/on-call', form({ op: 'add-window-0' }))).html, /name="layer_0_r0_days"/);
    assert.match((await admin.post('/on-call', form({ op: 'add-layer' }))).html, /id="layer-1"/);
    assert.deepEqual(await p.core.onCall.list(), []);
  });

  test('a bad hand-off time or time zone is refused beside its field (the API rule), the form keeps what was typed', async () => {
    const res = await admin.post('/on-call', form({ layer_0_handoff: '25:00' }));
    assert.equal(res.status, 400);
    assert.match(res.html, /data-error-for="layer_0_handoff">must be a time of day HH:MM/);
    assert.match(res.html, /value="25:00"/);
    const zone = await admin.post('/on-call', form({ time_zone: 'Mars/Olympus' }));
    assert.equal(zone.status, 400);
    assert.match(zone.html, /data-error-for="time_zone">must be an IANA time zone/);
    const nobody = await admin.post('/on-call', form({ layer_0_user_0: '', layer_0_user_1: '', layer_0_user_2: '' }));
    assert.match(nobody.html, /data-error-for="layer_0_users">must name at least one user/);
  });

  test('create: a weekly rotation of three; the page shows who is on call now and next and the calendar, right person on the right days, today marked', async () => {
    const res = await admin.post('/on-call', form());
    assert.equal(res.status, 303, res.html.slice(0, 500));
    const m = /^\/on-call\/(sched_\w+)\?done=created$/.exec(res.headers.get('location') ?? '');
    assert.ok(m, res.headers.get('location') ?? '');
    sched = m[1]!;
    const pg = await admin.get(`/on-call/${sched}`);
    assert.equal(pg.status, 200);
    assert.match(pg.html, /On call now: <span data-on-call="now"><strong>Ann<\/strong> <span class="muted small">until Mon 8 Jun 09:00/);
    assert.match(pg.html, /data-on-call="next"><strong>Bob<\/strong> <span class="muted small">from Mon 8 Jun 09:00/);
    assert.match(day(pg.html, '2026-06-03'), /oc-today/);
    assert.match(day(pg.html, '2026-06-03'), /data-user="[^"]+">Ann</);
    const handoff = day(pg.html, '2026-06-08');
    assert.match(handoff, />Ann<span class="oc-time"> 00:00–09:00/);
    assert.match(handoff, />Bob<span class="oc-time"> 09:00–24:00/);
    assert.match(day(pg.html, '2026-06-10'), />Bob</);
    assert.match(day(pg.html, '2026-06-17'), />Cat</);
    assert.match(day(pg.html, '2026-06-24'), />Ann</);
    assert.match(day(pg.html, '2026-06-01'), /oc-past/);
    const list = await viewer.get('/on-call');
    assert.match(list.html, new RegExp(`id="schedule-${sched}"`));
    assert.match(list.html, /<strong>Ann<\/strong>/);
  });

  test('an override by form ("Cat covers Tuesday") shows in the calendar and the list, and can be removed', async () => {
    const res = await admin.post(`/on-call/${sched}/overrides`, { user_uuid: ids.Cat!, start: '2026-06-09T00:00', end: '2026-06-10T00:00', note: 'Bob at the dentist' });
    assert.equal(res.status, 303, res.html.slice(0, 300));
    const pg = await admin.get(`/on-call/${sched}`);
    assert.match(day(pg.html, '2026-06-09'), /★ Cat</);
    assert.doesNotMatch(day(pg.html, '2026-06-09'), /Bob/);
    assert.match(day(pg.html, '2026-06-10'), />Bob</);
    assert.match(pg.html, /<strong>Cat<\/strong> covers Tue 9 Jun 00:00 to Wed 10 Jun 00:00/);
    const [o] = await p.core.onCall.overrides(sched, NOW, NOW + 30 * 86_400_000);
    assert.equal(o!.startsAt, Date.parse('2026-06-08T22:00:00Z'), 'local midnight in Berlin');

    const bad = await admin.post(`/on-call/${sched}/overrides`, { user_uuid: ids.Cat!, start: '2026-06-10T00:00', end: '2026-06-09T00:00', note: '' });
    assert.equal(bad.status, 400);
    assert.match(bad.html, /end: must be after start/);
    assert.equal((await viewer.post(`/on-call/${sched}/overrides`, { user_uuid: ids.Cat!, start: '2026-06-11T00:00', end: '2026-06-12T00:00' })).status, 403);

    assert.equal((await admin.post(`/on-call/${sched}/overrides/${o!.uuid}/remove`, {})).status, 303);
    assert.doesNotMatch(day((await admin.get(`/on-call/${sched}`)).html, '2026-06-09'), /Cat/);
  });

  test('edit: the editor shows the stored layers; a window (weekdays 09–18) narrows the calendar', async () => {
    const edit = await admin.get(`/on-call/${sched}/edit`);
    assert.equal(edit.status, 200);
    assert.match(edit.html, /value="Europe\/Berlin"/);
    assert.equal((await viewer.get(`/on-call/${sched}/edit`)).status, 403);
    const res = await admin.post(`/on-call/${sched}`, form({ name: 'Primary (office hours)', layer_0_windows: '1', layer_0_r0_days: ['1', '2', '3', '4', '5'], layer_0_r0_start: '09:00', layer_0_r0_end: '18:00' }));
    assert.equal(res.status, 303, res.html.slice(0, 400));
    const s = (await p.core.onCall.get(sched)).schedule;
    assert.equal(s.name, 'Primary (office hours)');
    assert.deepEqual(s.layers[0]!.restrictions, [{ days: [1, 2, 3, 4, 5], start: '09:00', end: '18:00' }]);
    const pg = await admin.get(`/on-call/${sched}`);
    assert.match(day(pg.html, '2026-06-10'), />Bob<span class="oc-time"> 09:00–18:00/);
    assert.match(day(pg.html, '2026-06-13'), /nobody on call/);
  });

  test('iCal links: "Make a new link" shows the secret URL once, and it serves the shifts', async () => {
    const res = await admin.post(`/on-call/${sched}/ical`, {});
    assert.equal(res.status, 200);
    const url = /<code>(http[^<]+\.ics)<\/code>/.exec(res.html)?.[1];
    assert.ok(url, 'the new link is shown');
    const feed = await fetch(p.url + new URL(url).pathname);
    assert.equal(feed.status, 200);
    assert.match(await feed.text(), /BEGIN:VCALENDAR/);
    const mine = await admin.post(`/on-call/${sched}/ical/${ids.Bob}`, {});
    assert.match(mine.html, /New iCal link for Bob&#39;s shifts|New iCal link for Bob's shifts/);
    assert.equal((await viewer.post(`/on-call/${sched}/ical`, {})).status, 403);
  });

  test('delete: the schedule goes, the list says so', async () => {
    const res = await admin.post(`/on-call/${sched}/remove`, {});
    assert.equal(res.status, 303);
    assert.match((await admin.get('/on-call?done=deleted')).html, /On-call schedule deleted/);
    assert.equal((await admin.get(`/on-call/${sched}`)).status, 404);
  });
});
