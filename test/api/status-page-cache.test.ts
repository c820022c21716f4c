import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { statusFixture, type StatusFixture } from '../support/status-fixture.ts';
import { httpTarget } from '../support/targets.ts';
import { MIN_RENDER_INTERVAL_MS } from '../../src/http/pages/cache.ts';

// Issue 21: the render cache of public status pages. A response served from the cache carries the
// same CSP nonce as the render it came from, so "same nonce" = served from the cache and "new nonce" =
// rendered again. Each event that changes a page must show on the next request (after the render
// interval, within the same minute, so the minute's expiry is not what refreshed it).
const MIN = 60_000;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
async function setup(page: Record<string, unknown> = {}): Promise<StatusFixture> {
  const f = await statusFixture(page);
  cleanups.push(() => f.close());
  return f;
}
/** Advances to the start of the next minute (+ a full minute, so new monitors get checked). */
async function toNextMinute(f: StatusFixture, extra = 0) {
  const now = f.p.clock.now();
  await f.p.advance(MIN - (now % MIN) + extra);
}
const minuteOf = (f: StatusFixture) => Math.floor(f.p.clock.now() / MIN);
async function get(f: StatusFixture, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(f.p.url + path, { headers, redirect: 'manual' });
  const nonce = /'nonce-([^']+)'/.exec(res.headers.get('content-security-policy') ?? '')?.[1];
  return { res, nonce, body: await res.text() };
}
/** GETs a page twice and asserts the second came from the cache; returns the first. */
async function cachedGet(f: StatusFixture, path: string) {
  const first = await get(f, path);
  assert.equal(first.res.status, 200, `${path}: ${first.body.slice(0, 200)}`);
  await f.p.advance(MIN_RENDER_INTERVAL_MS);
  const again = await get(f, path);
  assert.equal(again.nonce, first.nonce, `${path} is served from the cache when nothing changed`);
  assert.equal(again.body, first.body);
  return first;
}
/** After an event: past the render interval, the next request is rendered again. */
async function afterEvent(f: StatusFixture, path: string, before: { nonce?: string | undefined }) {
  await f.p.advance(MIN_RENDER_INTERVAL_MS);
  const next = await get(f, path);
  assert.notEqual(next.nonce, before.nonce, `${path} rendered again after the event`);
  return next;
}

describe('status page render cache (issue 21)', () => {
  test('a check flipping (outage opened), an incident and its update, a component, a monitor rename each show on the next request', async () => {
    const f = await setup();
    const target = await httpTarget(200);
    cleanups.push(() => target.stop());
    const m = await (await f.p.api('/v1/monitors', { method: 'POST', json: { name: 'Flipper', url: `${target.url}/flip`, check_frequency: 10 } })).json();
    const sp = await (await f.p.api(`/v2/statuspages/${f.page.uuid}`)).json();
    // The page's services as read back carry their shown `name` (the hosted clients' shape); PUT back
    // without it, so they keep following their monitor's name (the rename below).
    type Svc = { name?: unknown; services?: Svc[] } & Record<string, unknown>;
    const unnamed = (s: Svc): Svc => {
      const { name: _name, services, ...rest } = s;
      return { ...rest, ...(services ? { services: services.map(unnamed) } : {}) };
    };
    const kept = (sp.statuspage.sections as Array<{ services: Svc[] }>).map((sec) => ({ ...sec, services: sec.services.map(unnamed) }));
    const sections = [...kept, { name: 'Extra', services: [{ monitor_uuid: m.uuid }] }];
    assert.equal((await f.p.api(`/v2/statuspages/${f.page.uuid}`, { method: 'PUT', json: { name: 'Acme Status', sections } })).status, 200);
    const status = (html: string, name: string) => new RegExp(`data-service="${name}"[\\s\\S]*?data-status="([a-z_]+)"`).exec(html)?.[1];
    // Its first check (unknown → up) shows too, with no outage involved.
    const fresh = await get(f, '/status/acme');
    assert.equal(status(fresh.body, 'Flipper'), 'unknown');
    const created = minuteOf(f);
    await f.p.advance(11_000);
    assert.equal(status((await get(f, '/status/acme')).body, 'Flipper'), 'operational', 'the first check shows');
    assert.equal(minuteOf(f), created, 'within the minute of the first render');
    await toNextMinute(f, MIN);
    const minute = minuteOf(f);

    let before = await cachedGet(f, '/status/acme');
    assert.equal(status(before.body, 'Flipper'), 'operational');
    const summary0 = await cachedGet(f, '/status/acme/summary.json');
    const badge0 = await cachedGet(f, '/status/acme/badge.svg');
    target.respond(503);
    for (let i = 0; i < 30 && !(await (await f.p.api('/v2/outages')).json()).outages.some((o: { monitor?: { uuid: string } }) => o.monitor?.uuid === m.uuid); i++) await f.p.advance(1_000);
    let next = await afterEvent(f, '/status/acme', before);
    assert.equal(status(next.body, 'Flipper'), 'major_outage', 'the flip shows');
    const summary1 = await afterEvent(f, '/status/acme/summary.json', summary0);
    assert.equal(JSON.parse(summary1.body).services.find((s: { name: string }) => s.name === 'Flipper').status, 'major_outage');
    await afterEvent(f, '/status/acme/badge.svg', badge0);
    assert.equal(minuteOf(f), minute, 'still the same minute: the event, not the clock, refreshed it');

    before = await cachedGet(f, '/status/acme');
    const inc = await (await f.p.api('/v3/incidents', { method: 'POST', json: { title: { en: 'Slow logins' }, type: 'incident', statuspages: [f.page.uuid], updates: [{ text: { en: 'Looking into it' }, type: 'investigating' }] } })).json();
    next = await afterEvent(f, '/status/acme', before);
    assert.match(next.body, /Slow logins[\s\S]*Looking into it/);

    before = await cachedGet(f, '/status/acme');
    const feed0 = await cachedGet(f, '/status/acme/feed.atom');
    assert.equal((await f.p.api(`/v3/incidents/${inc.uuid}/updates`, { method: 'POST', json: { text: { en: 'Found the cause' }, type: 'identified' } })).status, 200);
    next = await afterEvent(f, '/status/acme', before);
    assert.match(next.body, /Found the cause/);
    assert.match((await afterEvent(f, '/status/acme/feed.atom', feed0)).body, /Found the cause/);

    before = await cachedGet(f, '/status/acme');
    assert.equal((await f.p.api(`/v1/components/${f.ids.payments}`, { method: 'PUT', json: { name: 'Payments provider', status: 'major_outage' } })).status, 200);
    next = await afterEvent(f, '/status/acme', before);
    assert.equal(status(next.body, 'Payments provider'), 'major_outage');

    before = await cachedGet(f, '/status/acme');
    const web = await (await f.p.api(`/v1/monitors/${f.ids.web}`)).json();
    const renamed = await f.p.api(`/v1/monitors/${f.ids.web}`, { method: 'PUT', json: { name: 'Website', url: web.url } });
    assert.equal(renamed.status, 200, await renamed.clone().text());
    next = await afterEvent(f, '/status/acme', before);
    assert.match(next.body, /data-service="Website"/);
    assert.equal(minuteOf(f), minute, 'still the same minute');
  });

  test('a maintenance window starting and ending, a page edit, the minute, and the language', async () => {
    const f = await setup();
    await toNextMinute(f);
    const start = f.p.clock.now() + 10_000;
    const w = await f.p.api('/v1/maintenance-windows', {
      method: 'POST',
      json: { name: 'db', title: { en: 'Database upgrade' }, start_date: new Date(start).toISOString(), end_date: new Date(start + 20_000).toISOString(), monitors: [f.ids.web] },
    });
    assert.equal(w.status, 201, await w.clone().text());
    const scheduled = await cachedGet(f, '/status/acme');
    assert.match(scheduled.body, /Scheduled maintenance[\s\S]*Database upgrade/);
    assert.doesNotMatch(scheduled.body, /Maintenance in progress/);
    await f.p.advance(start - f.p.clock.now());
    const started = await get(f, '/status/acme');
    assert.match(started.body, /Maintenance in progress[\s\S]*Database upgrade/, 'shown when it starts, not at the next minute');
    assert.match(started.body, /data-service="Web"[\s\S]*?data-status="maintenance"/);
    await f.p.advance(20_000);
    const ended = await get(f, '/status/acme');
    assert.doesNotMatch(ended.body, /Maintenance in progress/, 'gone when it ends');
    assert.equal(Math.floor(f.p.clock.now() / MIN), Math.floor(start / MIN), 'all within one minute');

    const before = await cachedGet(f, '/status/acme');
    assert.equal((await f.p.api(`/v2/statuspages/${f.page.uuid}`, { method: 'PUT', json: { name: 'Acme Status', description: 'Edited description' } })).status, 200);
    const edited = await get(f, '/status/acme');
    assert.notEqual(edited.nonce, before.nonce);
    assert.match(edited.body, /Edited description/, 'a page edit shows at once');

    const en = await cachedGet(f, '/status/acme');
    const de = await get(f, '/status/acme?lang=de');
    assert.match(de.body, /<html lang="de"/, 'the German render is its own');
    assert.match(en.body, /<html lang="en"/);
    assert.match((await get(f, '/status/acme?lang=en')).body, /<html lang="en"/);
    assert.match((await get(f, '/status/acme/summary.json')).res.headers.get('content-type') ?? '', /json/);

    // A healthcheck's first ping (unknown → operational); later pings change nothing shown.
    const hcStatus = (html: string) => /data-service="Nightly backup"[\s\S]*?data-status="([a-z_]+)"/.exec(html)?.[1];
    const unpinged = await cachedGet(f, '/status/acme');
    assert.equal(hcStatus(unpinged.body), 'unknown');
    assert.equal((await fetch(`${f.p.url}/ping/${f.ids.backup}`)).status, 200);
    const pinged = await afterEvent(f, '/status/acme', unpinged);
    assert.equal(hcStatus(pinged.body), 'operational', 'the first ping shows');
    assert.equal((await fetch(`${f.p.url}/ping/${f.ids.backup}`)).status, 200);
    await f.p.advance(MIN_RENDER_INTERVAL_MS);
    assert.equal((await get(f, '/status/acme')).nonce, pinged.nonce, 'a second ping does not render the page again');
    assert.equal(minuteOf(f), Math.floor(start / MIN), 'all within one minute');

    await toNextMinute(f);
    const later = await get(f, '/status/acme');
    assert.notEqual(later.nonce, en.nonce, 'rendered again at the next minute with no event');
  });

  test('never one page’s content on another page, nor past a password wall; ETag/304 and compressed bodies', async () => {
    const f = await setup();
    const other = await f.p.api('/v2/statuspages', { method: 'POST', json: { name: 'Beta Status', subdomain: 'beta', languages: ['en'], sections: [{ name: 'Only', services: [{ monitor_uuid: f.ids.search }] }] } });
    assert.equal(other.status, 201, await other.clone().text());
    const acme = await cachedGet(f, '/status/acme');
    for (const path of ['', '/history', '/summary.json', '/feed.atom', '/badge.svg']) {
      await get(f, `/status/acme${path}`);
      const beta = await get(f, `/status/beta${path}`);
      assert.equal(beta.res.status, 200, path);
      assert.ok(!beta.body.includes('Acme'), `beta${path || '/'} shows nothing of acme`);
    }
    assert.match((await get(f, '/status/beta')).body, /Beta Status/);

    // A password set on acme: its cached render must not reach anonymous visitors.
    const put = await f.p.api(`/v2/statuspages/${f.page.uuid}`, { method: 'PUT', json: { name: 'Acme Status', password: 'correct horse battery', authentication: { password_protection: true } } });
    assert.equal(put.status, 200, await put.clone().text());
    for (const path of ['', '/history', '/summary.json', '/feed.atom', '/badge.svg']) {
      const r = await get(f, `/status/acme${path}`, { 'if-none-match': acme.res.headers.get('etag') ?? '' });
      assert.equal(r.res.status, 401, path);
      assert.ok(!r.body.includes('Acme') && !r.body.includes('Web'), `${path} leaks nothing past the wall`);
    }
    const login = await fetch(`${f.p.url}/status/acme/login`, { method: 'POST', body: new URLSearchParams({ password: 'correct horse battery', next: '/' }), redirect: 'manual' });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const inside = await get(f, '/status/acme', { cookie });
    assert.equal(inside.res.status, 200);
    assert.equal(inside.res.headers.get('cache-control'), 'private, no-store');

    // ETag and 304 (public page beta), then brotli and gzip bodies equal to the plain one.
    const plain = await get(f, '/status/beta', { 'accept-encoding': 'identity' });
    const etag = plain.res.headers.get('etag');
    assert.ok(etag);
    const notModified = await fetch(`${f.p.url}/status/beta`, { headers: { 'if-none-match': etag } });
    assert.equal(notModified.status, 304);
    assert.match(notModified.headers.get('content-security-policy') ?? '', /nonce-/);
    for (const enc of ['br', 'gzip'] as const) {
      const raw = await rawGet(`${f.p.url}/status/beta`, enc);
      assert.equal(raw.encoding, enc);
      assert.equal(raw.vary, 'Accept-Encoding');
      assert.equal((enc === 'br' ? brotliDecompressSync(raw.body) : gunzipSync(raw.body)).toString('utf8'), plain.body);
    }
  });
});

/** GET with Accept-Encoding through node:http (fetch would decode the body). */
async function rawGet(url: string, encoding: string): Promise<{ encoding: string | undefined; vary: string | undefined; body: Buffer }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'accept-encoding': encoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ encoding: res.headers['content-encoding'], vary: res.headers.vary, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}
