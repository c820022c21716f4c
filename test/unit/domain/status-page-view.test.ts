import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reportSla } from '../../../src/domain/report.ts';
import { uptimeFigure } from '../../../src/domain/uptime.ts';
import { dailyUptime, overallStatus, uptimeLevel, worstStatus } from '../../../src/domain/status-page-view.ts';

const DAY = 86_400_000;
const H = 3_600_000;
const D0 = Date.UTC(2026, 10, 1); // a UTC midnight

test('daily uptime: exact per-day figures, outages split at midnight, maintenance excluded, no data before creation', () => {
  const now = D0 + 3 * DAY + 12 * H; // noon of the 4th day
  const outages = [
    { startAt: D0 + 23 * H, endAt: D0 + DAY + 2 * H }, // 1 h on day 1, 2 h on day 2
    { startAt: D0 + 2 * DAY + 10 * H, endAt: D0 + 2 * DAY + 10 * H + 30 * 60_000 }, // 30 min on day 3, inside maintenance
    { startAt: D0 + 3 * DAY + 11 * H, endAt: null }, // ongoing for 1 h today
  ];
  const maintenance = [{ startAt: D0 + 2 * DAY + 9 * H, endAt: D0 + 2 * DAY + 11 * H }];
  const days = dailyUptime(outages, maintenance, D0 + 12 * H, now, 5);
  assert.deepEqual(
    days.map((d) => [d.dayStart, d.uptime, d.downtimeMs]),
    [
      [D0 - DAY, null, 0], // before creation
      [D0, 91.66, H], // 1 h down in the 12 h since creation at noon: 100 × 11/12 = 91.666… → 91.66
      [D0 + DAY, 91.66, 2 * H], // 100 × 22/24
      [D0 + 2 * DAY, 100, 0], // the outage sits in maintenance
      [D0 + 3 * DAY, 91.66, H], // today counts to now: 1 h of 12
    ],
  );
  // The whole period: 4 h down of (3 days + 12 h − 12 h) = 72 h → 100 × 68/72 = 94.444… → 94.44
  assert.equal(uptimeFigure('90d', { outages, maintenance, createdAt: D0 + 12 * H, checked: true }, now).percent, 94.44, 'the 90 d figure: 4 h down in 72 h');
  assert.equal(reportSla(outages, maintenance, D0 + 12 * H, now, now), 94.44, 'the same as a report over the period');
  assert.equal(dailyUptime([], [], D0, now).length, 90);
});

test('colour levels, worst status of a group, and the banner', () => {
  assert.deepEqual([100, 99.95, 99.94, 99, 98.99, 95, 94.99, null].map(uptimeLevel), ['ok', 'ok', 'minor', 'minor', 'partial', 'partial', 'major', 'none']);
  assert.equal(worstStatus(['operational', 'unknown', 'degraded']), 'degraded');
  assert.equal(worstStatus([]), 'unknown');
  assert.equal(overallStatus(['major_outage', 'major_outage', 'paused']), 'major_outage');
  assert.equal(overallStatus(['major_outage', 'operational']), 'partial_outage');
  assert.equal(overallStatus(['degraded', 'maintenance']), 'degraded');
  assert.equal(overallStatus(['maintenance', 'operational', 'unknown']), 'maintenance');
  assert.equal(overallStatus(['unknown', 'paused']), 'operational');
});

test('daily uptime agrees with the report maths day by day (200 random histories)', () => {
  let seed = 42;
  const rnd = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n);
  for (let run = 0; run < 200; run++) {
    const now = D0 + 10 * DAY + rnd(DAY);
    const since = D0 + rnd(3 * DAY);
    const intervals = (n: number, open: boolean) =>
      Array.from({ length: n }, (_, i) => {
        const startAt = D0 - DAY + rnd(12 * DAY);
        return { startAt, endAt: open && i === 0 ? null : startAt + rnd(DAY) };
      });
    const outages = intervals(rnd(12), rnd(2) === 1);
    const maintenance = intervals(rnd(4), false);
    for (const d of dailyUptime(outages, maintenance, since, now, 12)) {
      const from = Math.max(d.dayStart, since);
      const to = Math.min(d.dayStart + DAY, now);
      if (to > from) assert.equal(d.uptime, reportSla(outages, maintenance, from, to, now), `run ${run} day ${new Date(d.dayStart).toISOString()}`);
    }
  }
});
