import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reportFigures, reportSla } from '../../../src/domain/report.ts';
import { maintenanceStatus, resolveMaintenance } from '../../../src/domain/maintenance.ts';
import { AppError } from '../../../src/lib/errors.ts';

const MIN = 60_000;
const H = 60 * MIN;
const from = Date.UTC(2026, 2, 1);
const to = from + 7 * 24 * H;

test('a 7-day report with outages of 30 min, 1 h 15 min and one straddling the window start', () => {
  const outages = [
    { startAt: from - H, endAt: from + 20 * MIN }, // 20 min inside the window
    { startAt: from + 24 * H, endAt: from + 24 * H + 30 * MIN },
    { startAt: from + 48 * H, endAt: from + 48 * H + 75 * MIN },
    { startAt: from + 72 * H, endAt: from + 72 * H + 10 * MIN }, // inside maintenance: not counted
    { startAt: to + H, endAt: to + 2 * H }, // after the window
  ];
  const maintenance = [{ startAt: from + 72 * H - MIN, endAt: from + 73 * H }];
  const r = reportFigures(outages, maintenance, from, to, to + 3 * H);
  // Downtime 20 + 30 + 75 = 125 min = 7500 s of 604800 s: 100 × (1 − 7500/604800) = 98.7599… → 98.75.
  assert.equal(r.sla, 98.75);
  assert.equal(reportSla(outages, maintenance, from, to, to + 3 * H), 98.75, 'the list endpoint computes the same SLA');
  assert.equal(r.count, 3);
  assert.equal(r.totalDowntime, 7500);
  assert.equal(r.totalDowntimeFormatted, '2hr 5min');
  assert.equal(r.longestOutage, 4500);
  assert.equal(r.longestOutageFormatted, '1hr 15min');
  assert.equal(r.mttr, 2500);
  assert.equal(r.mttrFormatted, '41min 40s');
  assert.deepEqual(r.details.map((d) => [d.duration, d.durationFormatted]), [[1200, '20min'], [1800, '30min'], [4500, '1hr 15min']]);
  assert.equal(r.details[0]!.startDate, new Date(from - H).toISOString(), 'details keep the real start');
});

test('SLA is rounded down: one second of downtime in a week is 99.99, never 100; no outages is 100 with mttr 0', () => {
  assert.equal(reportFigures([{ startAt: from, endAt: from + 1000 }], [], from, to, to).sla, 99.99);
  const none = reportFigures([], [], from, to, to);
  assert.deepEqual([none.sla, none.count, none.mttr, none.mttrFormatted, none.totalDowntimeFormatted], [100, 0, 0, '0s', '0s']);
});

test('an ongoing outage counts up to now; overlapping outages do not push the SLA below the union', () => {
  const now = from + 2 * H;
  const r = reportFigures([{ startAt: from + H, endAt: null }], [], from, to, now);
  assert.equal(r.totalDowntime, 3600);
  assert.equal(r.details[0]!.endDate, null);
  const both = reportFigures([{ startAt: from, endAt: from + H }, { startAt: from + 30 * MIN, endAt: from + 90 * MIN }], [], from, from + 2 * H, from + 2 * H);
  assert.equal(both.totalDowntime, 7200, 'each outage counts its own time');
  assert.equal(both.sla, 25, 'the SLA uses the union: 90 of 120 minutes down');
});

test('maintenance windows: end after start, monitors must exist, status by time', () => {
  const body = { name: 'DB upgrade', start_date: '2026-05-01T22:00:00Z', end_date: '2026-05-01T23:00:00Z', monitors: ['mon_a'] };
  const s = resolveMaintenance(body, (m) => m === 'mon_a', () => false, 0);
  assert.equal(s.endAt - s.startAt, H);
  assert.equal(s.notificationOption, 'none');
  assert.equal(s.notificationMinutes, 60);
  const field = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return (e as AppError).details![0]!.path;
    }
    return 'none';
  };
  assert.equal(field(() => resolveMaintenance({ ...body, end_date: body.start_date }, () => true, () => true, 0)), 'end_date');
  assert.equal(field(() => resolveMaintenance({ ...body, monitors: ['mon_x'] }, () => false, () => true, 0)), 'monitors');
  assert.equal(field(() => resolveMaintenance({ ...body, statuspages: ['sp_x'] }, () => true, () => false, 0)), 'statuspages');
  assert.equal(maintenanceStatus(s, s.startAt - 1), 'upcoming');
  assert.equal(maintenanceStatus(s, s.startAt), 'ongoing');
  assert.equal(maintenanceStatus(s, s.endAt), 'completed');
});
