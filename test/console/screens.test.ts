import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin, type ConsoleClient } from '../support/console.ts';

// Incidents with one language tab per update language, and groups in the status-page editor, as a
// browser with JavaScript off uses them (forms post and redirect).
let p: TestPharos;
let admin: ConsoleClient;
before(async () => {
  p = await startTestPharos();
  admin = await setupAdmin(p);
});
after(() => p.cleanup());

describe('console screens without JavaScript', () => {
  test('incidents: one language tab per language of each update, the first checked', async () => {
    const res = await p.api('/v3/incidents', {
      method: 'POST',
      json: { title: { en: 'Slow API', fr: 'API lente' }, type: 'incident', updates: [{ text: { en: 'Looking into it', fr: 'Nous enquêtons', de: 'Wir prüfen' }, type: 'investigating' }] },
    });
    assert.equal(res.status, 201, await res.clone().text());
    const upd = (await p.core.incidents.list())[0]!.updates[0]!.uuid;
    const html = (await admin.get('/incidents')).html;
    const tabs = new RegExp(`<div class="tabs" data-tabs="${upd}">[^]*?</div></div>`).exec(html)?.[0] ?? '';
    assert.deepEqual([...tabs.matchAll(/<input type="radio" name="tab-[^"]+" id="tab-[^"]+-([a-z]+)" value="[a-z]+"( checked="")?\/>/g)].map((m) => [m[1], Boolean(m[2])]), [
      ['en', true],
      ['fr', false],
      ['de', false],
    ]);
    assert.match(tabs, /<div lang="fr" data-lang="fr">Nous enquêtons<\/div>/);
    const css = await (await fetch(`${p.url}/_console/console.css`)).text();
    assert.match(css, /\.tabs>input:nth-of-type\(3\):checked~div:nth-of-type\(3\)/, 'the stylesheet shows the checked tab\'s panel');
  });

  test('status page editor: add a group to a section, put services in it and take one out', async () => {
    const a = (await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'Web', url: 'http://127.0.0.1:9/', paused: true } })).json()).uuid;
    const b = (await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'Mail', url: 'http://127.0.0.1:9/', paused: true } })).json()).uuid;
    const res = await admin.post('/statuspages', { name: 'Acme', subdomain: 'acme-groups', section_0_name: 'Services' });
    assert.equal(res.status, 303, res.html.slice(0, 300));
    const edit = res.headers.get('location')!;
    const g = await admin.post(`${edit}/sections`, { op: 'add-group', section: '0', name: 'Backend' });
    assert.equal(g.status, 303, /class="alert"[^<]*>([^<]*)/.exec(g.html)?.[1]);
    assert.equal((await admin.post(`${edit}/sections`, { op: 'add-child', section: '0', service: '0', uuid: a })).status, 303);
    assert.equal((await admin.post(`${edit}/sections`, { op: 'add-child', section: '0', service: '0', uuid: b })).status, 303);
    let sp = (await p.core.statuspages.bySubdomain('acme-groups'))!;
    const group = sp.sections[0]!.services[0]!;
    assert.deepEqual([group.is_group, group.name_shown, group.monitor_uuid, group.services.map((s) => s.monitor_uuid)], [true, 'Backend', '', [a, b]]);
    const page = await admin.get(edit);
    assert.match(page.html, /Backend<span class="muted small"> \(group of 2\)<\/span><ul class="group" data-group-children="">[^]*data-child="Web"[^]*data-child="Mail"/);
    assert.equal((await admin.post(`${edit}/sections`, { op: 'remove-child', section: '0', service: '0', child: '0' })).status, 303);
    sp = (await p.core.statuspages.bySubdomain('acme-groups'))!;
    assert.deepEqual(sp.sections[0]!.services[0]!.services.map((s) => s.monitor_uuid), [b]);
    const pub = await (await fetch(`${p.url}/status/acme-groups`)).text();
    assert.match(pub, /Backend[^]*Mail/, 'the public page shows the group');
    const bad = await admin.post(`${edit}/sections`, { op: 'add-child', section: '0', service: '0', uuid: 'mon_unknown' });
    assert.equal(bad.status, 400, bad.html.slice(-800));
    assert.match(bad.html, /unknown monitor, healthcheck or component/);
  });
});
