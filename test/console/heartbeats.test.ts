import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin, type ConsoleClient } from '../support/console.ts';
import type { CheckResult } from '../../src/domain/check.ts';
import { beatState } from '../../src/domain/heartbeat.ts';

// Issue 33 point 2: heartbeat bars on the overview and the monitor page, server-rendered.
const MIN = 60_000;
let p: TestPharos;
let admin: ConsoleClient;
let checked: { uuid: string; id: number };
let fresh: { uuid: string };
// The test clock starts at 2026-01-01 12:00 UTC; the checks ran from 80 min before.
const t0 = Date.UTC(2026, 0, 1, 10, 40, 0);

before(async () => {
  p = await startTestPharos();
  admin = await setupAdmin(p);
  const mk = async (name: string, extra: Record<string, unknown> = {}) =>
    (await p.api('/v1/monitors', { method: 'POST', json: { name, url: 'http://127.0.0.1:9/', check_frequency: 3600, paused: true, ...extra } })).json();
  checked = await mk('Checked', { degraded_after_ms: 100 });
  fresh = await mk('Fresh');
  // 70 checks a minute apart from t0 (over two hours' tables): every 10th down, every 7th slow (150 ms), the rest 20 ms.
  const results: CheckResult[] = Array.from({ length: 70 }, (_, i) => ({
    monitorId: checked.id,
    at: t0 + i * MIN,
    ok: i % 10 !== 9,
    latencyMs: i % 7 === 6 ? 150 : 20,
    statusCode: i % 10 !== 9 ? 200 : 503,
    reason: i % 10 !== 9 ? null : 'Expected 2xx, got 503',
    region: 'london',
    probe: 'local',
  }));
  p.store.tx(() => p.store.checks.insertResults(results));
});
after(() => p.cleanup());

const barsOf = (html: string, uuid: string) => {
  const m = new RegExp(`<span class="hb( big)?" data-beats="${uuid}" data-last="(\\d+)" data-max="50" role="group" aria-label="([^"]*)">((?:<i [^>]*></i>)*)</span>`).exec(html);
  if (!m) return null;
  const bars = [...m[4]!.matchAll(/<i class="(\w)" role="img" title="([^"]*)"><\/i>/g)].map((b) => ({ cls: b[1]!, title: b[2]! }));
  return { big: m[1] === ' big', last: Number(m[2]), label: m[3]!, bars };
};

test('the overview shows the newest 50 checks of each monitor as bars, oldest left, with state, response time and time in each title', async () => {
  const html = (await admin.get('/')).html;
  assert.match(html, /<th title="The newest 50 checks[^"]*">Last checks<\/th>/);
  const row = barsOf(html, checked.uuid);
  assert.ok(row, 'the checked monitor has its bars');
  assert.equal(row.bars.length, 50);
  assert.equal(row.last, t0 + 69 * MIN, 'data-last is the newest check');
  // Checks 20…69: the expected state of each.
  const want = Array.from({ length: 50 }, (_, k) => {
    const i = k + 20;
    return !(i % 10 !== 9) ? 'd' : i % 7 === 6 ? 'g' : 'u';
  });
  assert.deepEqual(row.bars.map((b) => b.cls), want);
  assert.equal(row.bars[0]!.title, 'degraded · 150 ms · 01-01 11:00:00 UTC · london');
  assert.equal(row.bars[49]!.title, 'down · 150 ms · 01-01 11:49:00 UTC · london');
  const n = (c: string) => want.filter((x) => x === c).length;
  assert.equal(row.label, `Last 50 checks: ${n('u')} up, ${n('g')} degraded, ${n('d')} down`);
  const none = barsOf(html, fresh.uuid);
  assert.ok(none, 'a monitor never checked has an empty row to fill live');
  assert.equal(none.bars.length, 0);
  assert.equal(none.label, 'No check yet');
});

test('the monitor page shows the same bars, taller', async () => {
  const html = (await admin.get(`/monitors/${checked.uuid}`)).html;
  const row = barsOf(html, checked.uuid);
  assert.ok(row?.big);
  assert.equal(row.bars.length, 50);
  assert.match(html, /id="heartbeats"/);
});

test('a check inside a maintenance window is a maintenance bar, whatever its outcome', async () => {
  const w = [{ startAt: 100, endAt: 200 }];
  assert.equal(beatState(false, 10, 150, null, w), 'maintenance');
  assert.equal(beatState(false, 10, 200, null, w), 'down', 'the window’s end is outside it');
  assert.equal(beatState(true, 101, 250, 100, w), 'degraded');
  assert.equal(beatState(true, 100, 250, 100, w), 'up', 'slower than the threshold, not as slow');
  assert.equal(beatState(true, 5, 150, null, [{ startAt: 100, endAt: null }]), 'maintenance', 'an open window is ongoing');
  const start = new Date(t0 + 65 * MIN).toISOString();
  const end = new Date(t0 + 68 * MIN).toISOString();
  const res = await p.api('/v1/maintenance-windows', { method: 'POST', json: { name: 'upgrade', start_date: start, end_date: end, monitors: [checked.uuid] } });
  assert.equal(res.status, 201, await res.clone().text());
  const row = barsOf((await admin.get('/')).html, checked.uuid)!;
  // Checks 65, 66, 67 ran in the window: bars 45…47.
  assert.deepEqual(row.bars.slice(44, 49).map((b) => b.cls), ['u', 'm', 'm', 'm', 'u'].map((c, k) => (k === 0 ? (64 % 7 === 6 ? 'g' : 'u') : k === 4 ? (68 % 7 === 6 ? 'g' : 'u') : c)));
  assert.match(row.label, /3 maintenance$/);
});
