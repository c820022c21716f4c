import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { statusFixture } from '../support/status-fixture.ts';
import { MIN_RENDER_INTERVAL_MS } from '../../src/http/pages/cache.ts';

// Issue #14 point 18: on a public status page, an ongoing maintenance window outranks "down" (the
// alerts are held; visitors should read "Under maintenance", not a red "Major outage"). Real Pharos,
// real failing target, page fetched over HTTP.
const MIN = 60_000;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

test('a down monitor inside an ongoing maintenance window shows "Under maintenance" on its status page, and again "Major outage" after it', async () => {
  const f = await statusFixture();
  cleanups.push(() => f.close());
  const { p } = f;
  const page = async () => {
    const html = await (await fetch(`${p.url}/status/acme`)).text();
    const status = (name: string) => new RegExp(`data-service="${name}"[\\s\\S]*?data-status="([a-z_]+)"`).exec(html)?.[1];
    return { html, api: status('API'), backend: status('Backend'), overall: /data-overall="([a-z_]+)"/.exec(html)?.[1] };
  };
  const before = await page();
  assert.equal(before.api, 'major_outage', 'the fixture\'s API monitor is down');

  const iso = (ms: number) => new Date(ms).toISOString();
  const now = p.clock.now();
  const w = await p.api('/v1/maintenance-windows', { method: 'POST', json: { name: 'db upgrade', start_date: iso(now - MIN), end_date: iso(now + 30 * MIN), monitors: [f.ids.api] } });
  assert.equal(w.status, 201);
  assert.equal((await (await p.api(`/v1/monitors/${f.ids.api}`)).json()).status, 'down', 'still down underneath');

  // A page renders again at most once a second after a change (the render cache, issue 21).
  await p.advance(MIN_RENDER_INTERVAL_MS);
  const during = await page();
  assert.equal(during.api, 'maintenance');
  assert.equal(during.backend, 'maintenance', 'its group too');
  assert.notEqual(during.overall, 'partial_outage', 'the banner no longer counts it as an outage');
  assert.match(during.html, /data-service="API"[\s\S]*?Under maintenance/);

  await p.advance(31 * MIN);
  assert.equal((await page()).api, 'major_outage', 'down again once the window is over');
});

test('a recurring window (issue 33 point 6): the page announces its next occurrence, shows "Under maintenance" during it, and down again after, with the next day\'s announced', async () => {
  const f = await statusFixture();
  cleanups.push(() => f.close());
  const { p } = f;
  const page = async () => {
    const html = await (await fetch(`${p.url}/status/acme`)).text();
    return { html, api: new RegExp('data-service="API"[\\s\\S]*?data-status="([a-z_]+)"').exec(html)?.[1] };
  };
  const start = new Date(p.clock.now() + 5 * MIN);
  const hhmm = start.toISOString().slice(11, 16);
  const w = await p.api('/v1/maintenance-windows', { method: 'POST', json: { name: 'nightly backup', monitors: [f.ids.api], recurrence: { strategy: 'daily', start_time: hhmm, duration_minutes: 10 } } });
  assert.equal(w.status, 201);
  const occurrence = Date.parse(`${start.toISOString().slice(0, 16)}:00Z`);
  await p.advance(MIN_RENDER_INTERVAL_MS);
  const before = await page();
  assert.equal(before.api, 'major_outage');
  assert.match(before.html, /nightly backup/, 'the upcoming occurrence is announced');

  await p.advance(occurrence + MIN - p.clock.now());
  assert.equal((await page()).api, 'maintenance', 'during the occurrence (the page renders again when it starts)');
  await p.advance(10 * MIN);
  const after = await page();
  assert.equal(after.api, 'major_outage', 'down again once the occurrence is over');
  assert.match(after.html, /nightly backup/, "tomorrow's occurrence is announced");
});
