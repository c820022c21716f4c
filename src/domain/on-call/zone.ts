/**
 * Wall-clock arithmetic in an IANA time zone for on-call rotations (issue 34 point 2). Offsets come
 * from the platform's tz database through Intl, read the way luxon 3's IANAZone reads them (its
 * `isValidZone` and `offset`, ported below so a process does not load luxon to start: issue 38
 * point 1; test/unit/on-call-zone.test.ts compares both for every zone Intl knows); the choice made for
 * wall times that do not exist or exist twice is ours, and documented in docs/api.md "On-call schedules":
 *
 * - a wall time in a spring-forward gap (02:30 in Europe/Berlin on the last Sunday of March) is
 *   moved forward by the length of the gap (→ 03:30 local), as luxon and most calendars do;
 * - a wall time that exists twice (02:30 on the last Sunday of October) is its FIRST occurrence
 *   (the earlier instant, still in summer time), so a hand-off never happens an hour late.
 */

/** A calendar date without a zone. */
export interface LocalDate {
  year: number;
  /** 1–12 */
  month: number;
  /** 1–31 */
  day: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Whether Intl knows the zone `name` (luxon's `IANAZone.isValidZone`). */
function intlKnowsZone(name: string): boolean {
  if (!name) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name }).format();
    return true;
  } catch {
    return false;
  }
}

/** True when `name` is an IANA zone name this platform knows (`Europe/Berlin`, `UTC`); offsets such as `+02:00` are refused. */
export function isIanaZone(name: string): boolean {
  return typeof name === 'string' && name.length > 0 && !/^[+-]/.test(name) && intlKnowsZone(name);
}

/** Formatters by zone name (luxon's `makeDTF`); bounded: emptied past {@link DTF_CACHE_MAX} names (names differing in case are distinct). */
const dtfs = new Map<string, Intl.DateTimeFormat | null>();
const DTF_CACHE_MAX = 1000;
/** The formatter luxon's IANAZone reads wall times with, or null for a zone Intl does not know. */
function wallClock(zone: string): Intl.DateTimeFormat | null {
  let dtf = dtfs.get(zone);
  if (dtf === undefined) {
    dtf = intlKnowsZone(zone)
      ? new Intl.DateTimeFormat('en-US', { hour12: false, timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', era: 'short' })
      : null;
    if (dtfs.size >= DTF_CACHE_MAX) dtfs.clear();
    dtfs.set(zone, dtf);
  }
  return dtf;
}

/**
 * The zone's offset from UTC at epoch ms `at`, in minutes (Berlin summer: 120); NaN for a zone Intl
 * does not know or an instant that is not a date. luxon 3.7's `IANAZone#offset`: the wall time Intl
 * shows at `at` (whole seconds; era BC as a negative year; hour 24 as 0) read as UTC, minus `at`.
 */
export function offsetMinutes(zone: string, at: number): number {
  const dtf = wallClock(zone);
  const date = new Date(at);
  if (!dtf || Number.isNaN(date.getTime())) return NaN;
  const f: Record<string, string> = {};
  for (const { type, value } of dtf.formatToParts(date)) f[type] = value;
  let year = parseInt(f.year!, 10);
  if (f.era === 'BC') year = -Math.abs(year) + 1;
  const hour = parseInt(f.hour!, 10);
  const month = parseInt(f.month!, 10) - 1;
  const day = parseInt(f.day!, 10);
  let asUtc = Date.UTC(year, month, day, hour === 24 ? 0 : hour, parseInt(f.minute!, 10), parseInt(f.second!, 10), 0);
  // Date.UTC reads years 0–99 as 19xx (luxon's objToLocalTS puts them back).
  if (year >= 0 && year < 100) {
    const d = new Date(asUtc);
    d.setUTCFullYear(year, month, day);
    asUtc = d.getTime();
  }
  let asTs = date.getTime();
  const over = asTs % 1000;
  asTs -= over >= 0 ? over : 1000 + over;
  return (asUtc - asTs) / 60_000;
}

/**
 * The instant (epoch ms) of wall time `date` `hour`:`minute` in `zone`. `hour` may be 24 (midnight
 * at the end of `date`). Gaps and repeats as the module's docstring says.
 */
export function localToUtc(zone: string, date: LocalDate, hour: number, minute: number): number {
  const naive = Date.UTC(date.year, date.month - 1, date.day, hour, minute);
  const offsets = [...new Set([offsetMinutes(zone, naive - 26 * HOUR_MS), offsetMinutes(zone, naive + 26 * HOUR_MS), offsetMinutes(zone, naive)])];
  const valid = offsets.map((o) => naive - o * 60_000).filter((t) => naive - offsetMinutes(zone, t) * 60_000 === t);
  if (valid.length > 0) return Math.min(...valid);
  // In a gap: read the wall time with the offset in force before the change, which lands as far
  // past the change as the wall time was past its start (02:30 → 03:30 in a one-hour gap).
  const before = offsetMinutes(zone, naive - 26 * HOUR_MS);
  return naive - before * 60_000;
}

/** The local calendar date of instant `at` in `zone`. */
export function localDateOf(zone: string, at: number): LocalDate {
  const d = new Date(at + offsetMinutes(zone, at) * 60_000);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** `date` plus `days` calendar days (negative allowed). */
export function addDays(date: LocalDate, days: number): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** Calendar days from `a` to `b` (b − a). */
export function daysBetween(a: LocalDate, b: LocalDate): number {
  return Math.round((Date.UTC(b.year, b.month - 1, b.day) - Date.UTC(a.year, a.month - 1, a.day)) / DAY_MS);
}

/** ISO weekday of `date`: 1 Monday … 7 Sunday. */
export function isoWeekday(date: LocalDate): number {
  const wd = new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay();
  return wd === 0 ? 7 : wd;
}

/** `YYYY-MM-DD` → a date, or null when it is not a real calendar date. */
export function parseLocalDate(s: string): LocalDate | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return null;
  const date = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  const back = addDays(date, 0);
  return back.year === date.year && back.month === date.month && back.day === date.day ? date : null;
}

/** `HH:MM` (00:00–23:59, or 24:00 when `allow24`) → `[hour, minute]`, or null. */
export function parseTimeOfDay(s: string, allow24 = false): [number, number] | null {
  const m = /^(\d{2}):(\d{2})$/.exec(s);
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (allow24 && h === 24 && min === 0) return [24, 0];
  return h <= 23 && min <= 59 ? [h, min] : null;
}
