import { cronTimesBetween, nextCronTime, previousCronTime } from '../lib/cron.ts';

/**
 * Recurring maintenance windows (issue 33 point 6), after Uptime Kuma's maintenance strategies
 * (server/model/maintenance.js: `recurring-interval`/`recurring-weekday`/`recurring-day-of-month`/`cron`,
 * each a cron pattern run by croner in the window's time zone, plus a duration). Every strategy here is
 * also a cron pattern handed to croner (src/lib/cron.ts): no calendar arithmetic of our own.
 *
 * An occurrence starts when the local wall clock of `timezone` reads the start time on a matching day
 * and lasts `durationMinutes` of elapsed time. DST (croner's rule, pinned by test/unit/domain/maintenance-recurrence.test.ts):
 * a start time that does not exist that day (spring forward: 02:00 Europe/Berlin on the last Sunday of
 * March) starts at the first valid instant after the gap (03:00 CEST) and still lasts its duration;
 * a start time that occurs twice (fall back: 02:00 on the last Sunday of October) starts once, at its
 * first occurrence (02:00 CEST), and lasts its duration (60 minutes end at 02:00 CET).
 */

/** How a window repeats; `once` (no recurrence) is the plain start/end window. */
export const RECURRENCE_STRATEGIES = ['daily', 'weekly', 'monthly', 'cron'] as const;
export type RecurrenceStrategy = (typeof RECURRENCE_STRATEGIES)[number];

/** A day of the month (1–31) or `last` (the month's last day). Months without the day skip it. */
export type DayOfMonth = number | 'last';

/** A window's repetition as stored (times are epoch ms; `startTime` is local `HH:MM`). */
export interface Recurrence {
  strategy: RecurrenceStrategy;
  /** Local time of day `HH:MM` in the window's zone (daily, weekly, monthly); null for cron. */
  startTime: string | null;
  /** Length of each occurrence in minutes of elapsed time. */
  durationMinutes: number;
  /** Weekly: days of the week, 0 = Sunday … 6 = Saturday. */
  daysOfWeek: number[];
  /** Monthly: days of the month. */
  daysOfMonth: DayOfMonth[];
  /** Cron strategy: a 5-field expression `min hour dom month dow`, read in the window's zone. */
  cron: string | null;
  /** Occurrences start at or after this (epoch ms); defaults to the window's creation. */
  validFrom: number;
  /** Occurrences start before this (epoch ms), or null: forever. */
  validUntil: number | null;
}

/** An occurrence: [startAt, endAt) in epoch ms. */
export interface Occurrence {
  startAt: number;
  endAt: number;
}

/** What expansion needs of a window. `cuts`: instants at which "end now" ended the occurrence running then. */
export interface WindowTimes {
  startAt: number;
  endAt: number;
  recurrence: Recurrence | null;
  timezone: string;
  cuts: readonly number[];
}

/** Occurrences expanded per read at most (a cron every minute over 30 days is 43,200; the rest are left out). */
export const MAX_OCCURRENCES = 50_000;

/** The cron pattern of a recurrence (croner's `min hour dom month dow`). */
export function recurrencePattern(r: Pick<Recurrence, 'strategy' | 'startTime' | 'daysOfWeek' | 'daysOfMonth' | 'cron'>): string {
  if (r.strategy === 'cron') return r.cron ?? '';
  const [h, m] = (r.startTime ?? '00:00').split(':').map(Number);
  const time = `${m} ${h}`;
  if (r.strategy === 'daily') return `${time} * * *`;
  if (r.strategy === 'weekly') return `${time} * * ${[...r.daysOfWeek].sort((a, b) => a - b).join(',')}`;
  return `${time} ${r.daysOfMonth.map((d) => (d === 'last' ? 'L' : String(d))).join(',')} * *`;
}

/** Applies the cuts ("ended now") to occurrences: one containing a cut ends there. */
function cut(o: Occurrence, cuts: readonly number[]): Occurrence {
  let endAt = o.endAt;
  for (const c of cuts) if (c >= o.startAt && c < endAt) endAt = c;
  return { startAt: o.startAt, endAt };
}

/** Merges overlapping or touching occurrences (a duration longer than the period), drops empty ones. */
function merged(list: Occurrence[]): Occurrence[] {
  const out: Occurrence[] = [];
  for (const o of list) {
    if (o.endAt <= o.startAt) continue;
    const last = out.at(-1);
    if (last && o.startAt <= last.endAt) last.endAt = Math.max(last.endAt, o.endAt);
    else out.push({ ...o });
  }
  return out;
}

/**
 * The window's occurrences overlapping [from, to) (epoch ms), in order, merged where they overlap,
 * cut where "end now" ended them. A one-off window is its single [startAt, endAt).
 */
export function occurrencesBetween(w: WindowTimes, from: number, to: number): Occurrence[] {
  const r = w.recurrence;
  if (!r) {
    const o = cut({ startAt: w.startAt, endAt: w.endAt }, w.cuts);
    return o.endAt > from && o.startAt < to && o.endAt > o.startAt ? [o] : [];
  }
  const durationMs = r.durationMinutes * 60_000;
  const lo = Math.max(r.validFrom, from - durationMs + 1);
  const hi = Math.min(to, r.validUntil ?? Number.MAX_SAFE_INTEGER);
  if (hi <= lo) return [];
  const starts = cronTimesBetween(recurrencePattern(r), w.timezone, lo, hi, MAX_OCCURRENCES);
  return merged(starts.map((s) => cut({ startAt: s, endAt: s + durationMs }, w.cuts))).filter((o) => o.endAt > from && o.startAt < to);
}

/** True when `at` (epoch ms) falls in one of the window's occurrences. */
export function inOccurrence(w: WindowTimes, at: number): boolean {
  return occurrencesBetween(w, at, at + 1).length > 0;
}

/** The next `n` occurrences from `now` on (the ongoing one first), merged and cut. */
export function nextOccurrences(w: WindowTimes, now: number, n: number): Occurrence[] {
  const r = w.recurrence;
  if (!r) return occurrencesBetween(w, now, Number.MAX_SAFE_INTEGER);
  const out: Occurrence[] = [];
  let from = now;
  // Widening steps: a cron every minute finds 5 in a day, a daily window in a week, a yearly one needs years.
  for (const stepMs of [86_400_000, 8 * 86_400_000, 63 * 86_400_000, 400 * 86_400_000, 5 * 366 * 86_400_000]) {
    const to = from + stepMs;
    for (const o of occurrencesBetween(w, from, to)) if (!out.some((p) => p.startAt === o.startAt)) out.push(o);
    if (out.length >= n || (r.validUntil !== null && to >= r.validUntil)) break;
    from = to;
  }
  return out.slice(0, n);
}

/**
 * The occurrence that describes the window at `now`: the ongoing one, else the next, else the last one
 * (validity over; a one-off window's own), else null (the pattern never matched in the validity range).
 */
export function occurrenceAt(w: WindowTimes, now: number): Occurrence | null {
  const next = nextOccurrences(w, now, 1)[0];
  if (next) return next;
  const r = w.recurrence;
  if (!r) return cut({ startAt: w.startAt, endAt: w.endAt }, w.cuts);
  const before = Math.min(now, r.validUntil ?? now);
  const last = previousCronTime(recurrencePattern(r), w.timezone, before);
  if (last === null || last < r.validFrom) return null;
  return cut({ startAt: last, endAt: last + r.durationMinutes * 60_000 }, w.cuts);
}

/** The first time after `afterMs` at which the window starts or ends an occurrence, or null (gate timers). */
export function nextBoundary(w: WindowTimes, afterMs: number): number | null {
  const o = nextOccurrences(w, afterMs + 1, 1)[0];
  if (!o) return null;
  return o.startAt > afterMs ? o.startAt : o.endAt;
}

/**
 * The instant the wall clock of `timezone` reads `date` (`YYYY-MM-DD`) `time` (`HH:MM`): croner finds
 * it (a time in a spring-forward gap gives the first instant after the gap; a doubled one its first).
 * @returns epoch ms, or null for a malformed date or time
 */
export function wallClockToUtc(date: string, time: string, timezone: string): number | null {
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const t = /^(\d{2}):(\d{2})$/.exec(time);
  if (!d || !t) return null;
  const midnightUtc = Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]));
  if (Number.isNaN(midnightUtc) || Number(t[1]) > 23 || Number(t[2]) > 59) return null;
  // Zones are within ±14 h of UTC: start the search two days early, in the same year's calendar.
  const found = nextCronTime(`0 ${Number(t[2])} ${Number(t[1])} ${Number(d[3])} ${Number(d[2])} *`, timezone, midnightUtc - 2 * 86_400_000);
  return found !== null && found < midnightUtc + 2 * 86_400_000 ? found : null;
}
