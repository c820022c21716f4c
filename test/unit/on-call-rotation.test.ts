import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gaps, nextHandoff, onCallAt, onCallWindow, timeline } from '../../src/domain/on-call/rotation.ts';
import { checkSchedule, type Layer, type OnCallOverride, type Restriction } from '../../src/domain/on-call/schedule.ts';
import { localToUtc } from '../../src/domain/on-call/zone.ts';

// Issue 34 point 2: rotation arithmetic against hand-computed tables. Every expected instant below
// is written in UTC and was worked out by hand from the zone's rules (2026):
//   Europe/Berlin: CET +01:00; CEST +02:00 from Sun 29 Mar 2026 01:00Z (02:00 → 03:00 local) to
//                  Sun 25 Oct 2026 01:00Z (03:00 → 02:00 local).
//   America/New_York: EST −05:00; EDT −04:00 from Sun 8 Mar 2026 07:00Z to Sun 1 Nov 2026 06:00Z.
// Calendar: 1 Jan 2026 is a Thursday, so 1 Mar is a Sunday, Mondays in March are 2, 9, 16, 23, 30;
// 1 Jun is a Monday; 1 Oct is a Thursday, so Oct 12, 19, 26 and Nov 2 are Mondays.

const Z = (s: string) => Date.parse(s);
const layer = (users: string[], type: 'daily' | 'weekly' | 'custom', handoffTime: string, startDate: string, extra: { length?: number; unit?: 'hours' | 'days'; restrictions?: Restriction[] } = {}): Layer => ({
  name: 'L',
  users,
  rotation: { type, length: extra.length ?? (type === 'weekly' ? 7 : 1), unit: extra.unit ?? 'days', handoffTime, startDate },
  restrictions: extra.restrictions ?? [],
});
const sched = (timeZone: string, layers: Layer[]) => ({ timeZone, layers });
/** [start ISO, end ISO, user] of each shift: what the tables compare. */
const rows = (shifts: Array<{ start: number; end: number; userUuid: string }>) => shifts.map((s) => [new Date(s.start).toISOString(), new Date(s.end).toISOString(), s.userUuid]);
const ovr = (uuid: string, userUuid: string, startsAt: string, endsAt: string, createdAt: number): OnCallOverride => ({ uuid, scheduleUuid: 'sched_x', userUuid, startsAt: Z(startsAt), endsAt: Z(endsAt), note: null, createdAt });

describe('weekly hand-off at 09:00 local across DST', () => {
  test('Europe/Berlin, spring: Mon 23 Mar 09:00 CET = 08:00Z, Mon 30 Mar 09:00 CEST = 07:00Z (that turn is 167 h)', () => {
    const s = sched('Europe/Berlin', [layer(['A', 'B', 'C'], 'weekly', '09:00', '2026-03-16')]);
    assert.deepEqual(rows(timeline(s, [], Z('2026-03-16T00:00:00Z'), Z('2026-04-13T07:00:00Z'))), [
      ['2026-03-16T08:00:00.000Z', '2026-03-23T08:00:00.000Z', 'A'],
      ['2026-03-23T08:00:00.000Z', '2026-03-30T07:00:00.000Z', 'B'],
      ['2026-03-30T07:00:00.000Z', '2026-04-06T07:00:00.000Z', 'C'],
      ['2026-04-06T07:00:00.000Z', '2026-04-13T07:00:00.000Z', 'A'],
    ]);
    assert.equal(nextHandoff(s, [], Z('2026-03-24T00:00:00Z')), Z('2026-03-30T07:00:00Z'));
  });

  test('Europe/Berlin, autumn: Mon 19 Oct 09:00 CEST = 07:00Z, Mon 26 Oct 09:00 CET = 08:00Z (that turn is 169 h)', () => {
    const s = sched('Europe/Berlin', [layer(['A', 'B'], 'weekly', '09:00', '2026-10-12')]);
    assert.deepEqual(rows(timeline(s, [], Z('2026-10-12T07:00:00Z'), Z('2026-11-02T08:00:00Z'))), [
      ['2026-10-12T07:00:00.000Z', '2026-10-19T07:00:00.000Z', 'A'],
      ['2026-10-19T07:00:00.000Z', '2026-10-26T08:00:00.000Z', 'B'],
      ['2026-10-26T08:00:00.000Z', '2026-11-02T08:00:00.000Z', 'A'],
    ]);
    // 07:30Z on Mon 26 Oct is 08:30 CET: B's turn still runs until 09:00 local.
    assert.equal(onCallAt(s, [], Z('2026-10-26T07:30:00Z')), 'B');
    assert.equal(onCallAt(s, [], Z('2026-10-26T08:00:00Z')), 'A');
  });

  test('America/New_York, spring: Mon 2 Mar 09:00 EST = 14:00Z, Mon 9 Mar 09:00 EDT = 13:00Z', () => {
    const s = sched('America/New_York', [layer(['A', 'B'], 'weekly', '09:00', '2026-02-23')]);
    assert.deepEqual(rows(timeline(s, [], Z('2026-03-02T14:00:00Z'), Z('2026-03-16T13:00:00Z'))), [
      ['2026-03-02T14:00:00.000Z', '2026-03-09T13:00:00.000Z', 'B'],
      ['2026-03-09T13:00:00.000Z', '2026-03-16T13:00:00.000Z', 'A'],
    ]);
  });

  test('America/New_York, autumn: Mon 26 Oct 09:00 EDT = 13:00Z, Mon 2 Nov 09:00 EST = 14:00Z', () => {
    const s = sched('America/New_York', [layer(['A', 'B'], 'weekly', '09:00', '2026-10-26')]);
    assert.deepEqual(rows(timeline(s, [], Z('2026-10-20T00:00:00Z'), Z('2026-11-09T14:00:00Z'))), [
      ['2026-10-26T13:00:00.000Z', '2026-11-02T14:00:00.000Z', 'A'],
      ['2026-11-02T14:00:00.000Z', '2026-11-09T14:00:00.000Z', 'B'],
    ]);
    // Before the rotation's first turn nobody is on call: a gap.
    assert.deepEqual(gaps(s, [], Z('2026-10-20T00:00:00Z'), Z('2026-10-27T00:00:00Z')), [{ start: Z('2026-10-20T00:00:00Z'), end: Z('2026-10-26T13:00:00Z') }]);
  });
});

describe('hand-off times that do not exist or exist twice', () => {
  test('02:30 Berlin on 29 Mar does not exist: moved forward by the gap to 03:30 CEST = 01:30Z', () => {
    assert.equal(localToUtc('Europe/Berlin', { year: 2026, month: 3, day: 29 }, 2, 30), Z('2026-03-29T01:30:00Z'));
    const s = sched('Europe/Berlin', [layer(['A', 'B', 'C'], 'daily', '02:30', '2026-03-28')]);
    assert.deepEqual(rows(timeline(s, [], Z('2026-03-28T01:30:00Z'), Z('2026-03-31T00:30:00Z'))), [
      ['2026-03-28T01:30:00.000Z', '2026-03-29T01:30:00.000Z', 'A'],
      ['2026-03-29T01:30:00.000Z', '2026-03-30T00:30:00.000Z', 'B'],
      ['2026-03-30T00:30:00.000Z', '2026-03-31T00:30:00.000Z', 'C'],
    ]);
  });

  test('02:30 Berlin on 25 Oct exists twice: the first one (CEST, 00:30Z) is the hand-off', () => {
    assert.equal(localToUtc('Europe/Berlin', { year: 2026, month: 10, day: 25 }, 2, 30), Z('2026-10-25T00:30:00Z'));
    const s = sched('Europe/Berlin', [layer(['A', 'B'], 'daily', '02:30', '2026-10-24')]);
    assert.deepEqual(rows(timeline(s, [], Z('2026-10-24T00:30:00Z'), Z('2026-10-26T01:30:00Z'))), [
      ['2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z', 'A'],
      ['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z', 'B'],
    ]);
  });

  test('a custom rotation in hours counts elapsed hours: 12 h from Sat 28 Mar 09:00 CET hands off at 10:00 CEST on Sunday', () => {
    const s = sched('Europe/Berlin', [layer(['A', 'B'], 'custom', '09:00', '2026-03-28', { length: 12, unit: 'hours' })]);
    assert.deepEqual(rows(timeline(s, [], Z('2026-03-28T08:00:00Z'), Z('2026-03-29T20:00:00Z'))), [
      ['2026-03-28T08:00:00.000Z', '2026-03-28T20:00:00.000Z', 'A'],
      ['2026-03-28T20:00:00.000Z', '2026-03-29T08:00:00.000Z', 'B'],
      ['2026-03-29T08:00:00.000Z', '2026-03-29T20:00:00.000Z', 'A'],
    ]);
  });

  test('a custom rotation of 2 days counts calendar days: 48 h, then 47 h across the spring change', () => {
    const s = sched('Europe/Berlin', [layer(['A', 'B'], 'custom', '09:00', '2026-03-26', { length: 2, unit: 'days' })]);
    assert.deepEqual(rows(timeline(s, [], Z('2026-03-26T08:00:00Z'), Z('2026-03-30T07:00:00Z'))), [
      ['2026-03-26T08:00:00.000Z', '2026-03-28T08:00:00.000Z', 'A'],
      ['2026-03-28T08:00:00.000Z', '2026-03-30T07:00:00.000Z', 'B'],
    ]);
  });
});

describe('layers with restrictions', () => {
  // Europe/Berlin in June is CEST (+02:00): 09:00 local = 07:00Z, 18:00 local = 16:00Z.
  // Layer 0: A and B weekly from Mon 1 Jun 09:00. Layer 1: C and D daily at 09:00, weekdays 09–18 only.
  const business: Restriction = { days: [1, 2, 3, 4, 5], start: '09:00', end: '18:00' };
  const s = sched('Europe/Berlin', [layer(['A', 'B'], 'weekly', '09:00', '2026-06-01'), layer(['C', 'D'], 'daily', '09:00', '2026-06-01', { restrictions: [business] })]);

  test('the higher layer wins in its windows, the lower one covers the rest (table of one week)', () => {
    assert.deepEqual(rows(timeline(s, [], Z('2026-06-01T07:00:00Z'), Z('2026-06-08T07:00:00Z'))), [
      ['2026-06-01T07:00:00.000Z', '2026-06-01T16:00:00.000Z', 'C'],
      ['2026-06-01T16:00:00.000Z', '2026-06-02T07:00:00.000Z', 'A'],
      ['2026-06-02T07:00:00.000Z', '2026-06-02T16:00:00.000Z', 'D'],
      ['2026-06-02T16:00:00.000Z', '2026-06-03T07:00:00.000Z', 'A'],
      ['2026-06-03T07:00:00.000Z', '2026-06-03T16:00:00.000Z', 'C'],
      ['2026-06-03T16:00:00.000Z', '2026-06-04T07:00:00.000Z', 'A'],
      ['2026-06-04T07:00:00.000Z', '2026-06-04T16:00:00.000Z', 'D'],
      ['2026-06-04T16:00:00.000Z', '2026-06-05T07:00:00.000Z', 'A'],
      ['2026-06-05T07:00:00.000Z', '2026-06-05T16:00:00.000Z', 'C'],
      // Sat 6 and Sun 7 Jun: layer 1 is restricted away (its turns D, C are masked, not shifted).
      ['2026-06-05T16:00:00.000Z', '2026-06-08T07:00:00.000Z', 'A'],
    ]);
    assert.deepEqual(onCallWindow(s, [], Z('2026-06-01T10:00:00Z')), {
      current: { userUuid: 'C', start: Z('2026-06-01T07:00:00Z'), end: Z('2026-06-01T16:00:00Z') },
      next: { userUuid: 'A', start: Z('2026-06-01T16:00:00Z'), end: Z('2026-06-02T07:00:00Z') },
    });
    assert.equal(nextHandoff(s, [], Z('2026-06-01T10:00:00Z')), Z('2026-06-01T16:00:00Z'));
  });

  test('a restriction whose end is not after its start runs past midnight; alone, it leaves gaps', () => {
    const nights = sched('Europe/Berlin', [layer(['N'], 'weekly', '09:00', '2026-06-01', { restrictions: [{ days: [5], start: '18:00', end: '09:00' }] })]);
    assert.deepEqual(rows(timeline(nights, [], Z('2026-06-01T07:00:00Z'), Z('2026-06-08T07:00:00Z'))), [['2026-06-05T16:00:00.000Z', '2026-06-06T07:00:00.000Z', 'N']]);
    assert.deepEqual(gaps(nights, [], Z('2026-06-05T00:00:00Z'), Z('2026-06-07T00:00:00Z')), [
      { start: Z('2026-06-05T00:00:00Z'), end: Z('2026-06-05T16:00:00Z') },
      { start: Z('2026-06-06T07:00:00Z'), end: Z('2026-06-07T00:00:00Z') },
    ]);
    assert.equal(onCallAt(nights, [], Z('2026-06-05T15:59:59Z')), null);
  });

  test('overrides win over every layer; of two overlapping overrides the one created last wins', () => {
    const o = [ovr('o1', 'E', '2026-06-02T12:00:00Z', '2026-06-03T12:00:00Z', 1), ovr('o2', 'F', '2026-06-02T18:00:00Z', '2026-06-02T20:00:00Z', 2)];
    assert.deepEqual(rows(timeline(s, o, Z('2026-06-02T07:00:00Z'), Z('2026-06-04T07:00:00Z'))), [
      ['2026-06-02T07:00:00.000Z', '2026-06-02T12:00:00.000Z', 'D'],
      ['2026-06-02T12:00:00.000Z', '2026-06-02T18:00:00.000Z', 'E'],
      ['2026-06-02T18:00:00.000Z', '2026-06-02T20:00:00.000Z', 'F'],
      ['2026-06-02T20:00:00.000Z', '2026-06-03T12:00:00.000Z', 'E'],
      ['2026-06-03T12:00:00.000Z', '2026-06-03T16:00:00.000Z', 'C'],
      ['2026-06-03T16:00:00.000Z', '2026-06-04T07:00:00.000Z', 'A'],
    ]);
    assert.equal(onCallAt(s, o, Z('2026-06-02T19:00:00Z')), 'F');
    assert.equal(timeline(s, o, Z('2026-06-02T13:00:00Z'), Z('2026-06-02T13:00:01Z'))[0]!.overrideUuid, 'o1');
    // An override fills a gap too: before the rotations start (Mon 1 Jun 07:00Z) nobody else is on call.
    const early = [ovr('o3', 'E', '2026-05-31T00:00:00Z', '2026-06-01T07:00:00Z', 3)];
    assert.deepEqual(gaps(s, early, Z('2026-05-30T00:00:00Z'), Z('2026-06-02T00:00:00Z')), [{ start: Z('2026-05-30T00:00:00Z'), end: Z('2026-05-31T00:00:00Z') }]);
  });
});

describe('a 3-person daily rotation over 90 days', () => {
  // Europe/Berlin, hand-off 08:00 local, first turn Thu 1 Jan 2026 (A). Turn n (n days after 1 Jan)
  // is users[n mod 3]. 08:00 CET = 07:00Z until 28 Mar; 08:00 CEST = 06:00Z from 29 Mar.
  const s = sched('Europe/Berlin', [layer(['A', 'B', 'C'], 'daily', '08:00', '2026-01-01')]);
  const from = Z('2026-01-01T07:00:00Z');
  const to = Z('2026-04-01T06:00:00Z');

  test('90 turns, 30 each, hand-offs at 08:00 local all along', () => {
    const t = timeline(s, [], from, to);
    assert.equal(t.length, 90);
    for (const u of ['A', 'B', 'C']) assert.equal(t.filter((x) => x.userUuid === u).length, 30, u);
    for (const x of t) {
      const local = new Date(x.start).toLocaleTimeString('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' });
      assert.equal(local, '08:00', new Date(x.start).toISOString());
    }
  });

  test('spot checks computed by hand', () => {
    const cases: Array<[string, string, string]> = [
      // [instant, why, who]
      ['2026-01-01T11:00:00Z', 'n=0 → A', 'A'],
      ['2026-01-02T06:59:00Z', '07:59 CET on 2 Jan: turn 0 still runs → A', 'A'],
      ['2026-01-02T07:00:00Z', '08:00 CET on 2 Jan: n=1 → B', 'B'],
      ['2026-02-01T09:00:00Z', 'n=31, 31 mod 3 = 1 → B', 'B'],
      ['2026-03-01T09:00:00Z', 'n=31+28=59, 59 mod 3 = 2 → C', 'C'],
      ['2026-03-29T05:30:00Z', '07:30 CEST on 29 Mar: turn 86 (86 mod 3 = 2) still runs → C', 'C'],
      ['2026-03-29T06:00:00Z', '08:00 CEST on 29 Mar: n=87, 87 mod 3 = 0 → A', 'A'],
      ['2026-03-31T08:00:00Z', 'n=89, 89 mod 3 = 2 → C', 'C'],
    ];
    for (const [at, why, who] of cases) assert.equal(onCallAt(s, [], Z(at)), who, `${at}: ${why}`);
    // Turn 86 (28 Mar 08:00 CET = 07:00Z → 29 Mar 08:00 CEST = 06:00Z) is 23 hours long.
    const t86 = timeline(s, [], Z('2026-03-28T12:00:00Z'), Z('2026-03-28T12:00:01Z'));
    assert.equal(onCallWindow(s, [], Z('2026-03-28T12:00:00Z')).current!.end - Z('2026-03-28T07:00:00Z'), 23 * 3_600_000);
    assert.equal(t86[0]!.userUuid, 'C');
  });
});

describe('checkSchedule', () => {
  const ok = { name: ' Ops ', team: null, description: null, timeZone: 'Europe/Berlin', layers: [layer(['A'], 'weekly', '09:00', '2026-01-05')] };
  test('trims and accepts a good schedule', () => assert.equal(checkSchedule(ok).name, 'Ops'));
  test('each bad field is named', () => {
    const bad: Array<[object, RegExp]> = [
      [{ timeZone: '+02:00' }, /time_zone/],
      [{ timeZone: 'Mars/Olympus' }, /time_zone/],
      [{ layers: [] }, /layers/],
      [{ layers: [layer([], 'daily', '09:00', '2026-01-05')] }, /layers\[0\]\.users/],
      [{ layers: [layer(['A'], 'daily', '9:00', '2026-01-05')] }, /handoff_time/],
      [{ layers: [layer(['A'], 'daily', '09:00', '2026-02-30')] }, /start_date/],
      [{ layers: [layer(['A'], 'custom', '09:00', '2026-01-05', { length: 0 })] }, /rotation\.length/],
      [{ layers: [layer(['A'], 'daily', '09:00', '2026-01-05', { restrictions: [{ days: [8], start: '09:00', end: '18:00' }] })] }, /restrictions\[0\]\.days/],
      [{ layers: [layer(['A'], 'daily', '09:00', '2026-01-05', { restrictions: [{ days: [1], start: '09:00', end: '09:00' }] })] }, /restrictions\[0\]\.end/],
    ];
    for (const [patch, re] of bad) assert.throws(() => checkSchedule({ ...ok, ...patch }), (e: Error) => re.test(e.message), JSON.stringify(patch));
  });
});
