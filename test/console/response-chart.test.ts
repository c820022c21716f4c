import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin, type ConsoleClient } from '../support/console.ts';
import type { CheckResult } from '../../src/domain/check.ts';

// Issue 33 point 2: the monitor page's response-time chart has axes (labelled time ticks in UTC, ms
// ticks), the ranges 1 h / 24 h / 7 d / 30 d as links, one line per region from the raw checks (1 h,
// 24 h) or the hourly means (7 d, 30 d), and works without script (server-rendered SVG).
const MIN = 60_000;
const HOUR = 60 * MIN;
let p: TestPharos;
let admin: ConsoleClient;
let uuid: string;
let empty: string;

before(async () => {
  p = await startTestPharos();
  admin = await setupAdmin(p);
  const mk = async (name: string) => (await p.api('/v1/monitors', { method: 'POST', json: { name, url: 'http://127.0.0.1:9/', check_frequency: 300, paused: true } })).json();
  const m = await mk('Shop');
  uuid = m.uuid;
  empty = (await mk('Quiet')).uuid;
  const now = p.clock.now();
  const r = (at: number, region: string, latencyMs: number): CheckResult => ({ monitorId: m.id, at, ok: true, latencyMs, statusCode: 200, reason: null, region, probe: 'local' });
  const results: CheckResult[] = [];
  // Ten days of hourly checks, then the last day every 5 minutes; frankfurt answers slower.
  for (let at = now - 10 * 24 * HOUR; at < now - 24 * HOUR; at += HOUR) results.push(r(at, 'london', 100), r(at + 1000, 'frankfurt', 300));
  for (let at = now - 24 * HOUR + 1; at < now; at += 5 * MIN) results.push(r(at, 'london', 100), r(at + 1000, 'frankfurt', 300));
  p.store.tx(() => p.store.checks.insertResults(results));
});
after(() => p.cleanup());

const texts = (html: string, axis: 'x' | 'y') => [...(new RegExp(`<g class="axis ${axis}">([\\s\\S]*?)</g>`).exec(html)?.[1] ?? '').matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);
const legend = (html: string) => [...(/<ul class="legend">([\s\S]*?)<\/ul>/.exec(html)?.[1] ?? '').matchAll(/<li(?: class="muted")?>(?:<i class="s\d"><\/i>)?([^<]*)<\/li>/g)].map((m) => m[1]!);

for (const [range, label, tick, lines] of [
  ['1h', '1 h', /^\d\d:\d\d$/, ['frankfurt', 'london']],
  ['24h', '24 h', /^\d\d:\d\d$/, ['frankfurt', 'london']],
  ['7d', '7 d', /^\d\d-\d\d$/, ['all regions (hourly means)']],
  ['30d', '30 d', /^\d\d-\d\d$/, ['all regions (hourly means)']],
] as const) {
  test(`?range=${range}: 200, axes with labelled ticks, a line per series with its legend`, async () => {
    const res = await admin.get(`/monitors/${uuid}?range=${range}`);
    assert.equal(res.status, 200);
    const html = res.html;
    assert.match(html, new RegExp(`<a href="/monitors/${uuid}\\?range=${range}" aria-current="page"`), 'the range is the current link');
    for (const other of ['1h', '24h', '7d', '30d']) assert.match(html, new RegExp(`href="/monitors/${uuid}\\?range=${other}"`));
    assert.match(html, new RegExp(`<svg viewBox="0 0 640 240" role="img" aria-label="Response time over ${label} \\(`));
    const xs = texts(html, 'x');
    assert.ok(xs.length >= 3, `time ticks: ${xs.join(', ')}`);
    for (const t of xs) assert.match(t, tick);
    const ys = texts(html, 'y');
    assert.ok(ys.length >= 3, `ms ticks: ${ys.join(', ')}`);
    for (const t of ys) assert.match(t, /^\d+ ms$/);
    assert.equal(ys[0], '0 ms', 'the y axis starts at 0');
    assert.ok(Number(ys.at(-1)!.split(' ')[0]) >= (lines.length > 1 ? 300 : 200), 'the y axis reaches the highest mean');
    assert.deepEqual(legend(html), [...lines, 'times UTC']);
    assert.equal([...html.matchAll(/<path class="ln s\d" d="M[^"]+"/g)].length, lines.length, 'one drawn line per series');
    assert.match(html, new RegExp(`Uptime ${label} \\(SLA\\)`));
  });
}

test('an unknown range answers the default 24 h (a console link is read leniently); a monitor without checks says so', async () => {
  const res = await admin.get(`/monitors/${uuid}?range=2y`);
  assert.equal(res.status, 200);
  assert.match(res.html, new RegExp(`<a href="/monitors/${uuid}\\?range=24h" aria-current="page"`));
  assert.match(res.html, /aria-label="Response time over 24 h \(/);
  const quiet = await admin.get(`/monitors/${empty}?range=1h`);
  assert.equal(quiet.status, 200);
  assert.match(quiet.html, /Not enough checks for a chart yet\./);
});
