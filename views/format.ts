/**
 * Dates and durations in a page language, with Intl (formatters cached per language: building one
 * costs more than using it). Times are shown in UTC, the day boundary of the uptime bars.
 */
const dateFormats = new Map<string, Intl.DateTimeFormat>();
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();
const durationFormats = new Map<string, { format(d: Record<string, number>): string }>();

const cached = <T>(map: Map<string, T>, lang: string, make: () => T): T => {
  let f = map.get(lang);
  if (!f) map.set(lang, (f = make()));
  return f;
};

/** `23 Nov 2026` style date of an epoch-ms time, in UTC. */
export function formatDate(ms: number, lang: string): string {
  return cached(dateFormats, lang, () => new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeZone: 'UTC' })).format(ms);
}

/** `23 Nov 2026, 14:05 UTC` style date and time of an epoch-ms time. */
export function formatDateTime(ms: number, lang: string): string {
  return cached(dateTimeFormats, lang, () => new Intl.DateTimeFormat(lang, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC', timeZoneName: 'short' })).format(ms);
}

/** Formatted durations by language and rounded value: Intl.DurationFormat costs ~20 µs a call. Bounded: ≤ 60 + minutes-in-days keys. */
const durations = new Map<string, Map<number, string>>();

/** A duration in ms as `1 h 5 min` (Intl.DurationFormat, narrow), at minute precision (seconds under a minute). */
export function formatDuration(ms: number, lang: string): string {
  const total = Math.round(ms / 1000);
  const key = total < 60 ? total : 60 + Math.floor(total / 60);
  const memo = cached(durations, lang, () => new Map<number, string>());
  let text = memo.get(key);
  if (text === undefined) {
    text = formatDurationUncached(total, lang);
    if (key < 100_000) memo.set(key, text);
  }
  return text;
}

function formatDurationUncached(s: number, lang: string): string {
  const parts: Record<string, number> = s < 60 ? { seconds: s } : { days: Math.floor(s / 86_400), hours: Math.floor((s % 86_400) / 3600), minutes: Math.floor((s % 3600) / 60) };
  const f = cached(durationFormats, lang, () => {
    const DurationFormat = (Intl as unknown as { DurationFormat?: new (l: string, o: object) => { format(d: Record<string, number>): string } }).DurationFormat;
    return DurationFormat ? new DurationFormat(lang, { style: 'narrow' }) : { format: (d: Record<string, number>) => Object.entries(d).filter(([, v]) => v > 0).map(([k, v]) => `${v}${k[0]}`).join(' ') };
  });
  return f.format(parts);
}

/** Counted words ("1 monitor", "2 monitors"): src/domain/plural.ts, shared with operator notices. */
export { plural, pluralCategory } from '../src/domain/plural.ts';
