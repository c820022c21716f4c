import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, TEST_DRIVER, type TestPharos } from '../support/pharos.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';
import { setupAdmin, signIn, type ConsoleClient } from '../support/console.ts';
import { httpReceiver } from '../support/receivers.ts';

// The console's screens over plain HTTP, as a browser with JavaScript off uses them: forms post and
// redirect (303). A real Pharos on a manual clock checks a real loopback target.
const RECHECK_MS = 3000;
let p: TestPharos;
let admin: ConsoleClient;
let viewer: ConsoleClient;
let target: HttpTarget;
let hooks: Awaited<ReturnType<typeof httpReceiver>>;
before(async () => {
  hooks = await httpReceiver();
  hooks.state.answer = (path) => (path === '/broken' ? 500 : 200);
  p = await startTestPharos({
    channels: [
      { name: 'ops-hook', type: 'webhook', url: `${hooks.url}/ops` },
      { name: 'broken-hook', type: 'webhook', url: `${hooks.url}/broken` },
    ],
  });
  target = await httpTarget(200);
  admin = await setupAdmin(p);
  await p.core.accounts.create({ email: 'vic@example.com', role: 'viewer', password: 'viewer password' }, { type: 'system', id: 'test', name: 'test' });
  viewer = await signIn(p, 'vic@example.com', 'viewer password');
});
after(async () => {
  await hooks.close();
  await target.stop();
  await p.cleanup();
});

const nextCheck = async (uuid: string) => {
  const due = p.scheduler.nextDueAt(p.store.monitors.get(uuid)!.id)!;
  await p.advance(due - p.clock.now());
  await p.core.checks.flush(); // results are group-committed; the page reads what is stored
};
const uuidFrom = (res: Response) => /\/([a-z]+_[0-9A-Za-z]{22}|tok_[0-9A-Za-z]+)$/.exec(res.headers.get('location') ?? '')?.[1] ?? '';
const monitorForm = (over: Record<string, string | string[]> = {}) => ({
  name: 'Web',
  protocol: 'http',
  url: target.url,
  check_frequency: '10',
  timeout: '5',
  regions: ['london'],
  http_method: 'GET',
  expected_status_code: '2xx',
  follow_redirects: 'on',
  alerts_wait: '0',
  ...over,
});

describe('console flows without JavaScript', () => {
  let monitorUuid = '';
  let outageUuid = '';

  test('a broken field is refused with the API message beside it; nothing is stored', async () => {
    const res = await admin.post('/monitors', monitorForm({ check_frequency: '7', timeout: '99' }));
    assert.equal(res.status, 400);
    assert.match(res.html, /data-error-for="check_frequency">must be one of 10, 20, 30/);
    assert.equal((await p.core.monitors.list()).length, 0);
    const api = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url: target.url, check_frequency: 7 } });
    assert.match((await api.json()).message, /^check_frequency: must be one of 10, 20, 30/, 'the same rule, the same words');
  });

  test('create an HTTP monitor through the form; it is checked and up', async () => {
    const res = await admin.post('/monitors', monitorForm());
    assert.equal(res.status, 303);
    monitorUuid = uuidFrom(res);
    assert.match(monitorUuid, /^mon_/);
    await nextCheck(monitorUuid);
    const page = await admin.get(`/monitors/${monitorUuid}`);
    assert.match(page.html, /id="monitor-status">up</);
    assert.match(page.html, /<tr data-ok="true">/);
    const home = await admin.get('/');
    assert.match(home.html, new RegExp(`id="row-${monitorUuid}" data-kind="monitor" data-status="up"`));
  });

  test('target stops → the overview shows it down and the inbox lists the outage; acknowledge with a message', async () => {
    await target.stop();
    await nextCheck(monitorUuid);
    await p.advance(RECHECK_MS);
    await p.advance(RECHECK_MS);
    const week = await admin.get(`/monitors/${monitorUuid}?range=7d`);
    assert.match(week.html, /aria-current="page" class="button">7d</);
    assert.match(week.html, /Uptime 7 d \(SLA\) <b data-sla="" data-uptime="7d">\d+\.\d\d %<\/b> · 1 outage /);
    await p.advance(60_000);
    const home = await admin.get('/?status=down');
    assert.match(home.html, new RegExp(`id="row-${monitorUuid}" data-kind="monitor" data-status="down"`));
    const row = new RegExp(`id="row-${monitorUuid}"[^]*?</tr>`).exec(home.html)![0];
    const [day, month] = [...row.matchAll(/>(\d+\.\d\d) %</g)].map((m) => Number(m[1]));
    assert.ok(day! < 100 && month! < 100, `24 h and 30 d uptime (outage time) fall: ${day} / ${month}`);
    const inbox = await admin.get('/outages');
    outageUuid = /id="outage-([^"]+)" data-state="ongoing"/.exec(inbox.html)?.[1] ?? '';
    assert.ok(outageUuid, 'the ongoing outage is in the inbox');
    assert.match(inbox.html, /Connection refused/);
    const ack = await admin.post(`/outages/${outageUuid}/act`, { action: 'acknowledge', message: 'on it <b>now</b>' });
    assert.equal(ack.status, 303);
    const page = await admin.get(`/outages/${outageUuid}`);
    assert.match(page.html, /id="outage-state">acknowledged</);
    assert.match(page.html, /on it &lt;b&gt;now&lt;\/b&gt;/);
    assert.equal((await p.core.outages.get(outageUuid)).acknowledgedByUser?.email, 'admin@example.com');
    const again = await admin.post(`/outages/${outageUuid}/act`, { action: 'acknowledge' });
    assert.equal(again.status, 409, 'the API rule (already acknowledged) answers the form too');
  });

  test('a viewer sees everything but has no buttons, and every change is refused 403', async () => {
    const page = await viewer.get(`/outages/${outageUuid}`);
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.html, /id="outage-actions"/);
    const mon = await viewer.get(`/monitors/${monitorUuid}`);
    assert.doesNotMatch(mon.html, /id="monitor-actions"/);
    assert.doesNotMatch((await viewer.get('/')).html, /New monitor/);
    assert.equal((await viewer.post(`/outages/${outageUuid}/act`, { action: 'resolve' })).status, 403);
    assert.equal((await viewer.post(`/monitors/${monitorUuid}/delete`, {})).status, 403);
    assert.equal((await viewer.post('/monitors', monitorForm())).status, 403);
    assert.equal((await viewer.post('/settings/tokens', { name: 'x', scope: 'write' })).status, 403);
    assert.equal((await p.core.outages.get(outageUuid)).endAt, null);
  });

  test('resolve from the outage page; pause, resume and delete a monitor', async () => {
    assert.equal((await admin.post(`/outages/${outageUuid}/act`, { action: 'resolve', message: 'fixed' })).status, 303);
    assert.notEqual((await p.core.outages.get(outageUuid)).endAt, null);
    assert.equal((await admin.post(`/monitors/${monitorUuid}/pause`, {})).status, 303);
    assert.equal((await p.core.monitors.get(monitorUuid)).paused, true);
    assert.equal((await admin.post(`/monitors/${monitorUuid}/resume`, {})).status, 303);
    assert.equal((await p.core.monitors.get(monitorUuid)).paused, false);
    const edit = await admin.post(`/monitors/${monitorUuid}`, monitorForm({ name: 'Web renamed', check_frequency: '60' }));
    assert.equal(edit.status, 303);
    assert.equal((await p.core.monitors.get(monitorUuid)).checkFrequencySeconds, 60);
    const asked = await admin.post(`/monitors/${monitorUuid}/delete`, {});
    assert.equal(asked.status, 200, 'a delete without its confirmation shows the confirmation page');
    assert.match(asked.html, /Delete the monitor/);
    assert.equal((await p.core.monitors.list()).length, 1);
    assert.equal((await admin.post(`/monitors/${monitorUuid}/delete`, { confirm: 'delete' })).status, 303);
    assert.equal((await p.core.monitors.list()).length, 0);
  });

  test('create a healthcheck; its page shows the ping URL, snippets and the schedule in words', async () => {
    const res = await admin.post('/healthchecks', { name: 'Nightly backup', period_value: '', period_type: 'days', cron: '0 2 * * *', timezone: 'Europe/Berlin', grace_period_value: '10', grace_period_type: 'minutes' });
    assert.equal(res.status, 303, res.html.slice(0, 500));
    const uuid = /\/healthchecks\/(.+)$/.exec(res.headers.get('location')!)![1]!;
    const page = await admin.get(`/healthchecks/${uuid}`);
    assert.match(page.html, new RegExp(`data-copy="http://localhost:8080/ping/${uuid}"`));
    assert.match(page.html, /cron &quot;0 2 \* \* \*&quot; in Europe\/Berlin, grace 10 minutes/);
    assert.match(page.html, /curl -fsS/);
    assert.match(page.html, /\/\$\?/);
    assert.match((await admin.get(`/healthchecks/${uuid}/edit`)).html, /name="cron" value="0 2 \* \* \*"/);
    const edited = await admin.post(`/healthchecks/${uuid}`, { name: 'Nightly backup', period_value: '1', period_type: 'days', cron: '', timezone: 'UTC', grace_period_value: '30', grace_period_type: 'minutes' });
    assert.equal(edited.status, 303, edited.html.slice(0, 300));
    assert.match((await admin.get(`/healthchecks/${uuid}`)).html, /every 1 day, grace 30 minutes/);
    // The database named as it is: SQLite's library version, or the PostgreSQL server's.
    assert.match((await admin.get('/settings')).html, TEST_DRIVER === 'postgres' ? /<dt>PostgreSQL<\/dt><dd>1\d\.\d+/ : /<dt>SQLite<\/dt><dd>3\.\d+\.\d+<\/dd>/);
    const bad = await admin.post('/healthchecks', { name: 'x', period_value: '1', period_type: 'days', grace_period_value: '10', grace_period_type: 'seconds' });
    assert.equal(bad.status, 400);
    assert.match(bad.html, /data-error-for="grace_period_value"/);
  });

  test('a status page with two sections, and its view link', async () => {
    const m = await p.api('/v1/monitors', { method: 'POST', json: { name: 'API', url: target.url, paused: true } });
    const apiUuid = (await m.json()).uuid;
    const hc = (await p.core.healthchecks.list())[0]!.uuid;
    const res = await admin.post('/statuspages', { name: 'Acme status', subdomain: 'acme', section_0_name: 'Website', section_0_services: [apiUuid], section_1_name: 'Jobs', section_1_services: [hc], section_2_name: '' });
    assert.equal(res.status, 303, res.html.slice(0, 500));
    const edit = res.headers.get('location')!;
    assert.match(edit, /^\/statuspages\/[a-z]+_/);
    assert.equal((await admin.post(`${edit}/sections`, { op: 'move-section', section: '1', dir: 'up' })).status, 303);
    assert.equal((await admin.post(`${edit}/sections`, { op: 'add-service', section: '0', uuid: apiUuid })).status, 303);
    assert.equal((await admin.post(`${edit}/sections`, { op: 'move-service', section: '0', service: '1', dir: 'up' })).status, 303);
    const sp = (await p.core.statuspages.bySubdomain('acme'))!;
    assert.deepEqual(sp.sections.map((x) => [x.name, x.services.map((v) => v.monitor_uuid)]), [['Jobs', [apiUuid, hc]], ['Website', [apiUuid]]]);
    assert.equal((await admin.post(`${edit}/sections`, { op: 'remove-service', section: '0', service: '0' })).status, 303);
    assert.equal((await admin.post(`${edit}/sections`, { op: 'move-section', section: '0', dir: 'down' })).status, 303);
    const bad = await admin.post(edit, { name: 'Acme status', accent_color: 'red', theme: 'light' });
    assert.equal(bad.status, 400);
    assert.match(bad.html, /data-error-for="accent_color">must be a hex colour/);
    const list = await admin.get('/statuspages');
    assert.match(list.html, /Website \(1\), Jobs \(1\)/);
    assert.match(list.html, /href="\/status\/acme"/);
    const pub = await fetch(`${p.url}/status/acme`);
    assert.equal(pub.status, 200);
    assert.match(await pub.text(), /Website[\s\S]*Jobs/);
  });

  test('settings: an admin adds a person and creates an API token shown once; sign out everywhere', async () => {
    const add = await admin.post('/settings/users', { email: 'eddie@example.com', name: 'Eddie', role: 'editor', password: 'short' });
    assert.equal(add.status, 400);
    assert.match(add.html, /data-error-for="password">must be at least 10 characters/);
    assert.equal((await admin.post('/settings/users', { email: 'eddie@example.com', name: 'Eddie', role: 'editor', password: 'long enough pw' })).status, 200);
    const eddie = await signIn(p, 'eddie@example.com', 'long enough pw');
    const tok = await admin.post('/settings/tokens', { name: 'ci', scope: 'read' });
    const token = /class="secret">(phr_[0-9A-Za-z]{43})</.exec(tok.html)?.[1];
    assert.ok(token);
    assert.equal((await p.api('/v1/monitors', { token })).status, 200);
    const other = await signIn(p, 'eddie@example.com', 'long enough pw');
    assert.equal((await eddie.post('/settings/sessions/end-all', {})).status, 303);
    assert.equal((await other.get('/outages')).status, 303, 'the other session ended');
    // An admin disables a person: their sessions end.
    const again = await signIn(p, 'eddie@example.com', 'long enough pw');
    const uuid = (await p.core.accounts.byEmail('eddie@example.com'))!.uuid;
    assert.equal((await admin.post(`/settings/users/${uuid}/disable`, {})).status, 303);
    assert.equal((await again.get('/outages')).status, 303);
  });

  test('send test alert: the delivery result of each channel is shown', async () => {
    const ok = await admin.post('/settings/channels/ops-hook/test', {});
    assert.equal(ok.status, 200);
    assert.match(ok.html, /id="channel-result" role="status">Test alert delivered to ops-hook\.</);
    const [msg] = hooks.delivered('/ops');
    assert.match(msg.title, /Pharos test alert/, 'the sample alert of core.channels.test (as pharos alert test sends)');
    const bad = await admin.post('/settings/channels/broken-hook/test', {});
    assert.match(bad.html, /Test alert to broken-hook failed: [^<]*500/);
    assert.doesNotMatch((await viewer.get('/settings')).html, /Send test alert/);
    assert.equal((await viewer.post('/settings/channels/ops-hook/test', {})).status, 403);
  });

  test('maintenance, incidents and components screens create through the API schemas', async () => {
    const mon = (await p.core.monitors.list())[0]!.uuid;
    assert.equal((await admin.post('/maintenance', { name: 'DB upgrade', start_date: '2030-01-01T02:00', end_date: '2030-01-01T01:00', monitors: [mon] })).status, 400);
    assert.equal((await admin.post('/maintenance', { name: 'DB upgrade', start_date: '2030-01-01T02:00', end_date: '2030-01-01T03:00', monitors: [mon] })).status, 303);
    assert.match((await admin.get('/maintenance')).html, /DB upgrade/);
    const nowIso = (ms: number) => new Date(ms).toISOString().slice(0, 16);
    assert.equal((await admin.post('/maintenance', { name: 'Now', start_date: nowIso(p.clock.now() - 60_000), end_date: nowIso(p.clock.now() + 3_600_000), monitors: [mon] })).status, 303);
    const home = await admin.get('/?status=maintenance');
    assert.match(home.html, new RegExp(`id="row-${mon}" data-kind="monitor" data-status="[a-z]+" data-maintenance=""`));
    assert.match(home.html, /data-count="maintenance"><b>1<\/b>in maintenance/);
    assert.equal((await admin.post('/components', { name: 'Payments' })).status, 303);
    const comp = (await p.core.incidents.components.list())[0]!;
    assert.equal((await admin.post(`/components/${comp.uuid}`, { status: 'degraded' })).status, 303);
    assert.equal((await p.core.incidents.components.get(comp.uuid)).status, 'degraded');
    assert.equal((await admin.post('/incidents', { title: 'Slow API', type: 'incident', update_text: 'Looking into it', update_type: 'investigating' })).status, 303);
    assert.match((await admin.get('/incidents')).html, /Looking into it/);
    const inc = (await p.core.incidents.list())[0]!.uuid;
    assert.equal((await admin.post(`/incidents/${inc}/updates`, { lang: 'de', type: 'identified', text: 'Ursache gefunden' })).status, 303);
    assert.match((await admin.get('/incidents')).html, /<label for="tab-upd_[0-9A-Za-z]+-de">de<\/label><div lang="de" data-lang="de">Ursache gefunden<\/div>/);
    const bad = await admin.post(`/incidents/${inc}/updates`, { lang: 'xx', type: 'identified', text: 'x' });
    assert.equal(bad.status, 400);
  });
});
