import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IANAZone } from 'luxon';
import { isIanaZone, offsetMinutes } from '../../src/domain/on-call/zone.ts';

// Issue 38 point 1: src/domain/on-call/zone.ts reads zone offsets the way luxon's IANAZone does
// (ported so a process does not load luxon to start). Both must agree on every zone Intl knows: at
// instants 173 days and 7 hours apart from 1900 to 2100, at each offset change from 2024 to 2028 (the
// millisecond before, at and after it), and at the edges (years 0–99 and BC, fractions of a
// millisecond, negative epochs, a date out of range).

const zones = [...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC', 'GMT', 'Etc/GMT+5', 'Etc/GMT-14', 'US/Pacific', 'Asia/Calcutta', 'europe/berlin', 'EUROPE/LONDON'];

test('isIanaZone: a zone luxon calls valid, other than ±offsets', () => {
  const names = [...zones, '', '+02:00', '-05:00', 'Mars/Olympus', 'Europe/Berlin ', ' UTC', 'Europe', 'utc', 'Z', 'EST', 'CET', 'Local', 'system', '0', 'constructor'];
  for (const name of names) assert.equal(isIanaZone(name), name.length > 0 && !/^[+-]/.test(name) && IANAZone.isValidZone(name), name);
});

test('offsetMinutes equals luxon IANAZone#offset for every zone, 1900–2100, and at every offset change of 2024–2027', () => {
  const WIDE = 173 * 86_400_000 + 7 * 3_600_000;
  const NARROW = 9 * 86_400_000 + 7 * 3_600_000;
  let changes = 0;
  for (const zone of zones) {
    const lux = IANAZone.create(zone);
    const same = (at: number) => assert.equal(offsetMinutes(zone, at), lux.offset(at), `${zone} at ${at} (${new Date(at).toISOString()})`);
    for (let at = Date.UTC(1900, 0, 1); at < Date.UTC(2100, 0, 1); at += WIDE) same(at);
    const from = Date.UTC(2024, 0, 1);
    const to = Date.UTC(2028, 0, 1);
    let prevAt = from;
    let prev = offsetMinutes(zone, from);
    same(from);
    for (let at = from + NARROW; at < to; at += NARROW) {
      const now = offsetMinutes(zone, at);
      same(at);
      if (now !== prev) {
        // Bisect to the first minute of the new offset (zones change on whole minutes).
        let lo = prevAt;
        let hi = at;
        while (hi - lo > 60_000) {
          const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
          if (offsetMinutes(zone, mid) === prev) lo = mid;
          else hi = mid;
        }
        for (const t of [hi - 1000, hi - 1, hi, hi + 1, hi + 999]) same(t);
        changes++;
      }
      prevAt = at;
      prev = now;
    }
  }
  assert.ok(changes > 500, `offset changes checked: ${changes}`);
});

test('offsetMinutes equals luxon at the edges: years 0–99 and BC, fractional and negative epochs, invalid dates and zones', () => {
  const instants = [Date.UTC(50, 5, 1) - 1_000 * 3600 * 24 * 365 * 1900, new Date('0050-06-01T12:00:00Z').getTime(), new Date('0000-01-01T00:00:00Z').getTime(), new Date('-000100-03-01T05:00:00Z').getTime(), new Date('0099-12-31T23:30:00Z').getTime(), -1.5, -1, -999.5, 0, 0.5, 1_700_000_000_123.7, 8.64e15, -8.64e15, 8.64e15 + 1, Number.NaN];
  for (const zone of ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham', 'UTC', 'Australia/Lord_Howe', 'Mars/Olympus', '']) {
    for (const at of instants) {
      const ours = offsetMinutes(zone, at);
      const theirs = IANAZone.create(zone).offset(at);
      assert.ok(Object.is(ours, theirs), `${zone} at ${at}: ${ours} vs luxon ${theirs}`);
    }
  }
});
