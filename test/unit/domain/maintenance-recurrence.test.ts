import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  inOccurrence,
  nextBoundary,
  nextOccurrences,
  occurrenceAt,
  occurrencesBetween,
  wallClockToUtc,
  type Recurrence,
  type WindowTimes,
} from '../../../src/domain/maintenance-recurrence.ts';

const T = (s: string) => Date.parse(s);
const iso = (list: Array<{ startAt: number; endAt: number }>) => list.map((o) => `${new Date(o.startAt).toISOString().slice(0, 16)}–${new Date(o.endAt).toISOString().slice(11, 16)}`);

function win(r: Partial<Recurrence> & Pick<Recurrence, 'strategy'>, timezone: string, cuts: number[] = []): WindowTimes {
  return {
    startAt: r.validFrom ?? 0,
    endAt: Number.MAX_SAFE_INTEGER,
    timezone,
    cuts,
    recurrence: { startTime: '02:00', durationMinutes: 60, daysOfWeek: [], daysOfMonth: [], cron: null, validFrom: T('2026-01-01T00:00:00Z'), validUntil: null, ...r },
  };
}

// Hand-computed: Berlin is UTC+1 (CET) until 2026-03-29 02:00, when clocks jump to 03:00 (UTC+2, CEST),
// and back from 03:00 CEST to 02:00 CET on 2026-10-25. 02:00 on 29 March does not exist: the occurrence
// starts when the clock jumps (03:00 CEST = 01:00Z) and lasts its 60 minutes. 02:00 on 25 October happens
// twice: once, at the first (02:00 CEST = 00:00Z).
test('weekly on Sunday 02:00–03:00 Europe/Berlin across both DST changes', () => {
  const w = win({ strategy: 'weekly', daysOfWeek: [0] }, 'Europe/Berlin');
  assert.deepEqual(iso(occurrencesBetween(w, T('2026-03-15T12:00:00Z'), T('2026-04-12T00:00:00Z'))), [
    '2026-03-22T01:00–02:00',
    '2026-03-29T01:00–02:00',
    '2026-04-05T00:00–01:00',
  ]);
  assert.deepEqual(iso(occurrencesBetween(w, T('2026-10-12T00:00:00Z'), T('2026-11-05T00:00:00Z'))), [
    '2026-10-18T00:00–01:00',
    '2026-10-25T00:00–01:00',
    '2026-11-01T01:00–02:00',
  ]);
});

// New York: EST (UTC−5) until 2026-03-08 02:00 → 03:00 EDT (UTC−4); back on 2026-11-01 02:00 EDT → 01:00 EST.
test('weekly on Sunday 02:00 and 01:30 America/New_York across both DST changes', () => {
  const w = win({ strategy: 'weekly', daysOfWeek: [0] }, 'America/New_York');
  assert.deepEqual(iso(occurrencesBetween(w, T('2026-02-28T00:00:00Z'), T('2026-03-16T00:00:00Z'))), [
    '2026-03-01T07:00–08:00',
    '2026-03-08T07:00–08:00', // 02:00 does not exist: 03:00 EDT
    '2026-03-15T06:00–07:00',
  ]);
  assert.deepEqual(iso(occurrencesBetween(w, T('2026-10-24T00:00:00Z'), T('2026-11-09T00:00:00Z'))), [
    '2026-10-25T06:00–07:00',
    '2026-11-01T07:00–08:00', // 02:00 EST: after the clock went back
    '2026-11-08T07:00–08:00',
  ]);
  const early = win({ strategy: 'weekly', daysOfWeek: [0, 6], startTime: '01:30', durationMinutes: 30 }, 'America/New_York');
  assert.deepEqual(iso(occurrencesBetween(early, T('2026-10-31T00:00:00Z'), T('2026-11-02T00:00:00Z'))), [
    '2026-10-31T05:30–06:00',
    '2026-11-01T05:30–06:00', // 01:30 happens twice: the first (EDT)
  ]);
});

test('monthly on the 31st skips the months without one; `last` is every month', () => {
  const w = win({ strategy: 'monthly', daysOfMonth: [31], startTime: '03:00', durationMinutes: 120 }, 'UTC');
  assert.deepEqual(iso(occurrencesBetween(w, T('2026-01-01T00:00:00Z'), T('2027-01-01T00:00:00Z'))), [
    '2026-01-31T03:00–05:00',
    '2026-03-31T03:00–05:00',
    '2026-05-31T03:00–05:00',
    '2026-07-31T03:00–05:00',
    '2026-08-31T03:00–05:00',
    '2026-10-31T03:00–05:00',
    '2026-12-31T03:00–05:00',
  ]);
  const last = win({ strategy: 'monthly', daysOfMonth: ['last', 15], startTime: '03:00', durationMinutes: 60 }, 'UTC');
  assert.deepEqual(iso(occurrencesBetween(last, T('2026-02-01T00:00:00Z'), T('2026-03-20T00:00:00Z'))), ['2026-02-15T03:00–04:00', '2026-02-28T03:00–04:00', '2026-03-15T03:00–04:00']);
});

test('daily in a zone; validity range bounds the starts', () => {
  const w = win({ strategy: 'daily', startTime: '23:30', durationMinutes: 60, validFrom: T('2026-06-02T00:00:00Z'), validUntil: T('2026-06-04T00:00:00Z') }, 'Europe/Berlin');
  // 23:30 CEST = 21:30Z; runs past midnight local; the occurrence starting before the end of validity counts whole.
  assert.deepEqual(iso(occurrencesBetween(w, T('2026-05-30T00:00:00Z'), T('2026-06-10T00:00:00Z'))), ['2026-06-02T21:30–22:30', '2026-06-03T21:30–22:30']);
});

// Weekdays 09:00–10:45 every 15 minutes, 10 minutes long, Berlin in summer (UTC+2): 07:00Z … 08:45Z.
test('cron: a 5-field expression in a zone, each run lasting the duration; overlapping runs merge', () => {
  const w = win({ strategy: 'cron', cron: '*/15 9-10 * * 1-5', startTime: null, durationMinutes: 10 }, 'Europe/Berlin');
  assert.deepEqual(iso(occurrencesBetween(w, T('2026-03-30T00:00:00Z'), T('2026-03-31T00:00:00Z'))), [
    '2026-03-30T07:00–07:10',
    '2026-03-30T07:15–07:25',
    '2026-03-30T07:30–07:40',
    '2026-03-30T07:45–07:55',
    '2026-03-30T08:00–08:10',
    '2026-03-30T08:15–08:25',
    '2026-03-30T08:30–08:40',
    '2026-03-30T08:45–08:55',
  ]);
  const long = win({ strategy: 'cron', cron: '0 * * * *', startTime: null, durationMinutes: 90 }, 'UTC');
  // Runs at 23:00, 00:00 and 01:00 start in or before the range and overlap: one merged span.
  assert.deepEqual(iso(occurrencesBetween(long, T('2026-03-30T00:00:00Z'), T('2026-03-30T02:00:00Z'))), ['2026-03-29T23:00–02:30']);
});

test('an occurrence that started before the range is seen; in maintenance only inside one', () => {
  const w = win({ strategy: 'daily', startTime: '22:00', durationMinutes: 180 }, 'UTC');
  assert.deepEqual(iso(occurrencesBetween(w, T('2026-05-02T00:30:00Z'), T('2026-05-02T01:00:00Z'))), ['2026-05-01T22:00–01:00']);
  assert.equal(inOccurrence(w, T('2026-05-02T00:59:59Z')), true);
  assert.equal(inOccurrence(w, T('2026-05-02T01:00:00Z')), false);
  assert.equal(inOccurrence(w, T('2026-05-01T22:00:00Z')), true);
});

test('end now cuts the occurrence running then, not the next ones', () => {
  const w = win({ strategy: 'daily', startTime: '02:00', durationMinutes: 60 }, 'UTC', [T('2026-05-02T02:20:00Z')]);
  assert.deepEqual(iso(occurrencesBetween(w, T('2026-05-02T00:00:00Z'), T('2026-05-04T00:00:00Z'))), ['2026-05-02T02:00–02:20', '2026-05-03T02:00–03:00']);
  assert.equal(inOccurrence(w, T('2026-05-02T02:30:00Z')), false);
});

test('next occurrences, the occurrence at a time and the next boundary', () => {
  const w = win({ strategy: 'weekly', daysOfWeek: [1, 3], startTime: '02:00', durationMinutes: 60, validUntil: T('2026-05-14T00:00:00Z') }, 'UTC');
  // 2026-05-04 is a Monday.
  assert.deepEqual(iso(nextOccurrences(w, T('2026-05-04T02:30:00Z'), 3)), ['2026-05-04T02:00–03:00', '2026-05-06T02:00–03:00', '2026-05-11T02:00–03:00']);
  assert.deepEqual(iso(nextOccurrences(w, T('2026-05-12T00:00:00Z'), 5)), ['2026-05-13T02:00–03:00']);
  assert.deepEqual(iso([occurrenceAt(w, T('2026-06-01T00:00:00Z'))!]), ['2026-05-13T02:00–03:00']);
  assert.equal(nextBoundary(w, T('2026-05-04T02:30:00Z')), T('2026-05-04T03:00:00Z'));
  assert.equal(nextBoundary(w, T('2026-05-04T03:00:00Z')), T('2026-05-06T02:00:00Z'));
  assert.equal(nextBoundary(w, T('2026-05-13T03:00:00Z')), null);
  const once: WindowTimes = { startAt: T('2026-05-01T10:00:00Z'), endAt: T('2026-05-01T11:00:00Z'), recurrence: null, timezone: 'UTC', cuts: [] };
  assert.deepEqual(iso([occurrenceAt(once, T('2026-06-01T00:00:00Z'))!]), ['2026-05-01T10:00–11:00']);
  assert.deepEqual(iso(nextOccurrences(once, T('2026-04-01T00:00:00Z'), 5)), ['2026-05-01T10:00–11:00']);
});

test('wall clock to UTC in a zone, gaps and doubled hours as croner runs them', () => {
  assert.equal(wallClockToUtc('2026-07-01', '09:00', 'Europe/Berlin'), T('2026-07-01T07:00:00Z'));
  assert.equal(wallClockToUtc('2026-01-01', '00:30', 'America/New_York'), T('2026-01-01T05:30:00Z'));
  assert.equal(wallClockToUtc('2026-03-29', '02:30', 'Europe/Berlin'), T('2026-03-29T01:00:00Z'));
  assert.equal(wallClockToUtc('2026-10-25', '02:30', 'Europe/Berlin'), T('2026-10-25T00:30:00Z'));
  assert.equal(wallClockToUtc('2026-02-30', '02:30', 'UTC'), null);
  assert.equal(wallClockToUtc('2026-02-03', '2:30', 'UTC'), null);
});
