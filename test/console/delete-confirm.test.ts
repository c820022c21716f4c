import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin, type ConsoleClient } from '../support/console.ts';

// Issue 33 point 1: deleting a monitor, a healthcheck or a status page in the console asks first.
// Without JavaScript: GET <base>/delete is a confirmation page naming what is lost; the POST that
// deletes carries confirm=delete, and a POST without it (a stray or old form) shows that page again.
let p: TestPharos;
let admin: ConsoleClient;
before(async () => {
  p = await startTestPharos();
  admin = await setupAdmin(p);
});
after(() => p.cleanup());

const api = async (path: string, json: unknown) => {
  const res = await p.api(path, { method: 'POST', json });
  assert.ok(res.ok, `${path}: ${res.status}`);
  return res.json();
};

describe('delete asks first (no JavaScript)', () => {
  test('a monitor: the page lists its history, outages and status pages; Cancel, Pause instead, Delete', async () => {
    const m = await api('/v1/monitors', { name: 'Checkout', url: 'http://127.0.0.1:9/', check_frequency: 60 });
    await api('/v2/statuspages', { name: 'Public', subdomain: 'public-del', sections: [{ name: 'Shop', services: [{ monitor_uuid: m.uuid }] }] });
    const monitorPage = await admin.get(`/monitors/${m.uuid}`);
    assert.match(monitorPage.html, new RegExp(`<a class="button danger" href="/monitors/${m.uuid}/delete" hx-post="/monitors/${m.uuid}/delete"`), 'the Delete control is a link to the confirmation page');
    assert.match(monitorPage.html, /hx-confirm="Delete this monitor/);

    const confirm = await admin.get(`/monitors/${m.uuid}/delete`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.html, /<h1>Delete the monitor Checkout\?<\/h1>/);
    assert.match(confirm.html, /its check history since \d{4}-\d\d-\d\d/);
    assert.match(confirm.html, /0 outages and their timelines/);
    assert.match(confirm.html, /its place on 1 status page: Public/);
    assert.match(confirm.html, new RegExp(`<a class="button secondary" href="/monitors/${m.uuid}">Cancel</a>`));
    assert.match(confirm.html, new RegExp(`action="/monitors/${m.uuid}/pause"[\\s\\S]*Pause instead`));
    assert.match(confirm.html, /name="confirm" value="delete"/);

    const stray = await admin.post(`/monitors/${m.uuid}/delete`, {});
    assert.equal(stray.status, 200, 'a POST without the confirmation lands on the confirmation page');
    assert.match(stray.html, /Delete the monitor Checkout\?/);
    assert.equal((await p.api(`/v1/monitors/${m.uuid}`)).status, 200, 'and deletes nothing');

    assert.equal((await admin.post(`/monitors/${m.uuid}/pause`, {})).status, 303);
    assert.equal((await p.core.monitors.get(m.uuid)).paused, true);
    assert.doesNotMatch((await admin.get(`/monitors/${m.uuid}/delete`)).html, /Pause instead/, 'no Pause instead once paused');

    const gone = await admin.post(`/monitors/${m.uuid}/delete`, { confirm: 'delete' });
    assert.equal(gone.status, 303);
    assert.equal(gone.headers.get('location'), '/');
    assert.equal((await p.api(`/v1/monitors/${m.uuid}`)).status, 404);
    assert.equal((await admin.get(`/monitors/${m.uuid}/delete`)).status, 404);
    assert.equal((await admin.post(`/monitors/${m.uuid}/delete`, { confirm: 'delete' })).status, 404);
  });

  test('a healthcheck: its ping URL named, Pause instead, Delete', async () => {
    const made = await admin.post('/healthchecks', { name: 'Nightly', period_value: '1', period_type: 'days', cron: '', timezone: 'UTC', grace_period_value: '1', grace_period_type: 'hours' });
    assert.equal(made.status, 303, made.html.slice(0, 300));
    const h = { uuid: /\/healthchecks\/(.+)$/.exec(made.headers.get('location')!)![1]! };
    const exists = async () => (await p.core.healthchecks.list()).some((x) => x.uuid === h.uuid);
    const confirm = await admin.get(`/healthchecks/${h.uuid}/delete`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.html, /Delete the healthcheck Nightly\?/);
    assert.match(confirm.html, new RegExp(`jobs pinging [^ ]*/ping/${h.uuid} get`));
    assert.match(confirm.html, /Pause instead/);
    assert.equal((await admin.post(`/healthchecks/${h.uuid}/delete`, {})).status, 200);
    assert.equal(await exists(), true, 'a POST without the confirmation deletes nothing');
    assert.equal((await admin.post(`/healthchecks/${h.uuid}/delete`, { confirm: 'delete' })).status, 303);
    assert.equal(await exists(), false);
  });

  test('a status page: its address named, no Pause instead, Delete', async () => {
    const sp = await api('/v2/statuspages', { name: 'Status', subdomain: 'status-del', sections: [] });
    const edit = await admin.get(`/statuspages/${sp.uuid}`);
    assert.match(edit.html, new RegExp(`href="/statuspages/${sp.uuid}/delete"`));
    const confirm = await admin.get(`/statuspages/${sp.uuid}/delete`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.html, /Delete the status page Status\?/);
    assert.match(confirm.html, /its public address http:\/\/[^ ]+\/status\/status-del, which stops answering/);
    assert.doesNotMatch(confirm.html, /Pause instead/);
    assert.equal((await admin.post(`/statuspages/${sp.uuid}/delete`, {})).status, 200);
    assert.equal((await p.api(`/v2/statuspages/${sp.uuid}`)).status, 200);
    const gone = await admin.post(`/statuspages/${sp.uuid}/delete`, { confirm: 'delete' });
    assert.equal(gone.status, 303);
    assert.equal(gone.headers.get('location'), '/statuspages');
    assert.equal((await p.api(`/v2/statuspages/${sp.uuid}`)).status, 404);
  });
});
