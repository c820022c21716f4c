import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { setupAdmin, signIn, type ConsoleClient } from '../support/console.ts';

// The console's maintenance and incident screens (issue 33 point 6) over plain HTTP (JavaScript off):
// a recurring window from the form (wall clock of its zone), its next occurrences listed, edit, End now
// (audit-logged); an incident edited and deleted after a confirmation page. Clock: Friday 2026-03-27 12:00Z.
let p: TestPharos;
let admin: ConsoleClient;
let viewer: ConsoleClient;
let mon: string;

before(async () => {
  p = await startTestPharos({}, new ManualClock(Date.parse('2026-03-27T12:00:00Z')));
  admin = await setupAdmin(p);
  await p.core.accounts.create({ email: 'vic@example.com', role: 'viewer', password: 'viewer password' }, { type: 'system', id: 'test', name: 'test' });
  viewer = await signIn(p, 'vic@example.com', 'viewer password');
  const res = await p.api('/v1/monitors', { method: 'POST', json: { name: 'db', url: 'http://127.0.0.1:9/', check_frequency: 60 } });
  mon = (await res.json()).uuid;
});
after(() => p.cleanup());

const windowNamed = async (name: string) => (await p.core.maintenance.list()).find((w) => w.name === name)!;

describe('console: maintenance windows', () => {
  test('a weekly window in Europe/Berlin from the form; its next occurrences are listed; a bad field is named', async () => {
    const form = { name: 'Patch night', timezone: 'Europe/Berlin', strategy: 'weekly', days_of_week: ['0'], start_time: '02:00', duration_minutes: '60', monitors: [mon], start_date: '', end_date: '' };
    const bad = await admin.post('/maintenance', { ...form, days_of_week: [] });
    assert.equal(bad.status, 400);
    assert.match(bad.html, /data-error-for="recurrence.days_of_week"/);
    assert.equal((await admin.post('/maintenance', { ...form, timezone: 'Mars/Base' })).status, 400);
    assert.equal((await admin.post('/maintenance', form)).status, 303);
    const w = await windowNamed('Patch night');
    assert.equal(w.timezone, 'Europe/Berlin');
    const page = await admin.get('/maintenance');
    // 29 March: 02:00 is skipped in Berlin, the occurrence starts at 03:00 CEST; then 02:00 CEST.
    assert.match(page.html, /Weekly on Sunday at 02:00 for 1 h \(Europe\/Berlin\)/);
    assert.match(page.html, /2026-03-29 03:00 CEST – 04:00 CEST/);
    assert.match(page.html, /2026-04-05 02:00 CEST – 03:00 CEST/);
    assert.match(page.html, new RegExp(`href="/maintenance/${w.uuid}"`));
  });

  test('edit: the form comes filled in; saved changes show; a viewer may not', async () => {
    const w = await windowNamed('Patch night');
    const edit = await admin.get(`/maintenance/${w.uuid}`);
    assert.equal(edit.status, 200);
    assert.match(edit.html, /name="timezone" value="Europe\/Berlin"/);
    assert.match(edit.html, /<option value="weekly" selected="">/);
    assert.match(edit.html, /name="days_of_week" value="0" checked=""/);
    assert.match(edit.html, new RegExp(`action="/maintenance/${w.uuid}"`));
    // The monitor picker's search without JavaScript: the form comes back by GET with what was typed.
    const searched = await admin.get(`/maintenance/${w.uuid}?pick=monitors&name=Patch+night+2&timezone=Europe%2FBerlin&strategy=weekly&days_of_week=0&monitors=${mon}`);
    assert.match(searched.html, /name="name" value="Patch night 2"/);
    const saved = await admin.post(`/maintenance/${w.uuid}`, { name: 'Patch night', timezone: 'Europe/Berlin', strategy: 'weekly', days_of_week: ['0', '3'], start_time: '02:00', duration_minutes: '90', monitors: [mon] });
    assert.equal(saved.status, 303);
    const after = await p.core.maintenance.get(w.uuid);
    assert.deepEqual(after.recurrence?.daysOfWeek, [0, 3]);
    assert.equal(after.recurrence?.durationMinutes, 90);
    assert.equal((await viewer.post(`/maintenance/${w.uuid}`, { name: 'x' })).status, 403);
    assert.equal((await viewer.post(`/maintenance/${w.uuid}/end`, {})).status, 403);
    assert.doesNotMatch((await viewer.get('/maintenance')).html, /End now|>Edit</);
    assert.equal((await admin.get('/maintenance/mw_missing')).status, 404);
  });

  test('a one-off window in a zone; End now ends it, the list says so, the audit log has it', async () => {
    // 12:30–14:00 Berlin (CET, UTC+1) = 11:30–13:00Z: ongoing at 12:00Z.
    assert.equal((await admin.post('/maintenance', { name: 'Now', timezone: 'Europe/Berlin', strategy: 'once', start_date: '2026-03-27T12:30', end_date: '2026-03-27T14:00', monitors: [mon] })).status, 303);
    const w = await windowNamed('Now');
    assert.equal(w.startAt, Date.parse('2026-03-27T11:30:00Z'));
    assert.equal(w.endAt, Date.parse('2026-03-27T13:00:00Z'));
    const list = await admin.get('/maintenance');
    assert.match(list.html, new RegExp(`id="window-${w.uuid}"[\\s\\S]*?>ongoing<[\\s\\S]*?action="/maintenance/${w.uuid}/end"`));
    assert.equal((await admin.post(`/maintenance/${w.uuid}/end`, {})).status, 303);
    const ended = await p.core.maintenance.get(w.uuid);
    assert.equal(ended.endAt, p.clock.now());
    assert.doesNotMatch((await admin.get('/maintenance')).html, new RegExp(`action="/maintenance/${w.uuid}/end"`));
    assert.equal((await admin.post(`/maintenance/${w.uuid}/end`, {})).status, 303, 'over already: back to the list');
    const log = await p.core.auditLog.page({ resourceUuid: w.uuid }, 10, null);
    assert.deepEqual(
      log.entries.map((e) => [e.action, e.actor.name]),
      [
        ['update', 'admin@example.com'],
        ['create', 'admin@example.com'],
      ],
    );
  });
});

describe('console: incidents', () => {
  test('edit an incident: title, kind, an update\'s text and kind, remove an update, status pages', async () => {
    const inc = await p.core.incidents.create({ title: { en: 'Slow API', de: 'Langsame API' }, type: 'incident', updates: [{ text: { en: 'Looking' }, type: 'investigating' }, { text: { en: 'Found it' }, type: 'identified' }] });
    const list = await admin.get('/incidents');
    assert.match(list.html, new RegExp(`href="/incidents/${inc.uuid}"`));
    assert.match(list.html, new RegExp(`href="/incidents/${inc.uuid}/delete"[^>]*hx-confirm=`));
    const edit = await admin.get(`/incidents/${inc.uuid}`);
    assert.match(edit.html, /name="title_de" value="Langsame API"/);
    const form = {
      title_en: 'Slow API (fixed)',
      title_de: 'Langsame API',
      type: 'outage',
      update_0_date: new Date(inc.updates[0]!.at).toISOString(),
      update_0_type: 'investigating',
      update_0_text_en: 'Looking',
      update_0_remove: '1',
      update_1_date: new Date(inc.updates[1]!.at).toISOString(),
      update_1_type: 'resolved',
      update_1_text_en: 'Fixed and watched',
    };
    const bad = await admin.post(`/incidents/${inc.uuid}`, { ...form, title_en: '', title_de: '' });
    assert.equal(bad.status, 400);
    assert.equal((await admin.post(`/incidents/${inc.uuid}`, form)).status, 303);
    const after = await p.core.incidents.get(inc.uuid);
    assert.deepEqual(after.title, { en: 'Slow API (fixed)', de: 'Langsame API' });
    assert.equal(after.type, 'outage');
    assert.deepEqual(
      after.updates.map((u) => [u.type, u.text.en]),
      [['resolved', 'Fixed and watched']],
    );
    assert.equal((await viewer.post(`/incidents/${inc.uuid}`, form)).status, 403);
  });

  test('delete asks: GET shows what goes, a POST without the confirmation shows it again, with it deletes', async () => {
    const inc = await p.core.incidents.create({ title: { en: 'Outage to delete' }, type: 'outage', updates: [{ text: { en: 'Down' }, type: 'investigating' }] });
    const ask = await admin.get(`/incidents/${inc.uuid}/delete`);
    assert.equal(ask.status, 200);
    assert.match(ask.html, /Delete the incident Outage to delete\?/);
    assert.match(ask.html, /its 1 update/);
    const stray = await admin.post(`/incidents/${inc.uuid}/delete`, {});
    assert.equal(stray.status, 200);
    assert.ok(await p.core.incidents.get(inc.uuid), 'a POST without the confirmation deletes nothing');
    assert.equal((await viewer.post(`/incidents/${inc.uuid}/delete`, { confirm: 'delete' })).status, 403);
    assert.equal((await admin.post(`/incidents/${inc.uuid}/delete`, { confirm: 'delete' })).status, 303);
    assert.equal((await admin.get(`/incidents/${inc.uuid}`)).status, 404);
  });
});
