import type { RecurrenceBodyInput } from '../maintenance.ts';
import { wallTimeToEpoch } from './map.ts';
import type { KumaMaintenance } from './types.ts';

/**
 * Uptime Kuma's recurring maintenance windows → Pharos recurrences (issue 33 point 6). Kuma's
 * strategies (server/model/maintenance.js) are cron patterns run by croner in the window's zone, as
 * ours are: `recurring-weekday` (weekdays 1 = Monday … 7 = Sunday, start and end time of day),
 * `recurring-day-of-month` (1–31 and `lastDay1` = the month's last day), `recurring-interval` (every
 * `interval_day` days: Kuma's own pattern `M H *\/N * *`, kept as a cron), `cron` (an expression and a
 * duration in seconds). The date range becomes the validity range; the duration of the time-of-day
 * strategies is end − start, plus 24 h across midnight (Kuma's calcDuration).
 */
export type KumaRecurringMapping = { kind: 'recurring'; recurrence: RecurrenceBodyInput; timezone: string; notes: string[] } | { kind: 'skipped'; reason: string };

/** `HH:MM[:SS]` → `HH:MM` and minutes since midnight, or null. */
function timeOfDay(s: string | null | undefined): { hhmm: string; minutes: number } | null {
  const m = s ? /^(\d{1,2}):(\d{2})/.exec(s) : null;
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59) return null;
  return { hhmm: `${m[1]!.padStart(2, '0')}:${m[2]}`, minutes: Number(m[1]) * 60 + Number(m[2]) };
}

/** Maps a recurring Kuma window (any strategy but `single` and `manual`). */
export function mapKumaRecurring(w: KumaMaintenance): KumaRecurringMapping {
  if (!w.active) return { kind: 'skipped', reason: 'inactive in Kuma' };
  const notes: string[] = [];
  let timezone = w.timezone ?? 'UTC';
  if (timezone === 'SAME_AS_SERVER' || timezone === '') {
    notes.push("Kuma's server time zone is unknown here: times read as UTC");
    timezone = 'UTC';
  }
  const validity: Pick<RecurrenceBodyInput, 'valid_from' | 'valid_until'> = {};
  for (const [key, value] of [
    ['valid_from', w.startDate],
    ['valid_until', w.endDate],
  ] as const) {
    if (!value) continue;
    const at = wallTimeToEpoch(value, timezone);
    if (at === null) return { kind: 'skipped', reason: `unreadable date "${value}" (${timezone})` };
    validity[key] = new Date(at).toISOString();
  }
  const start = timeOfDay(w.startTime);
  const end = timeOfDay(w.endTime);
  const byTimes = (): number | null => {
    if (!start || !end) return null;
    const d = end.minutes - start.minutes;
    return d < 0 ? d + 24 * 60 : d;
  };
  const done = (r: Omit<RecurrenceBodyInput, 'valid_from' | 'valid_until'>): KumaRecurringMapping => ({ kind: 'recurring', recurrence: { ...r, ...validity }, timezone, notes });

  if (w.strategy === 'cron') {
    const cron = (w.cron ?? '').trim();
    if (!cron) return { kind: 'skipped', reason: 'no cron expression' };
    if (!w.durationSeconds || w.durationSeconds <= 0) return { kind: 'skipped', reason: 'no duration' };
    const minutes = Math.ceil(w.durationSeconds / 60);
    if (minutes * 60 !== w.durationSeconds) notes.push(`duration ${w.durationSeconds} s → ${minutes} min`);
    return done({ strategy: 'cron', cron, duration_minutes: minutes });
  }
  const duration = byTimes();
  if (start === null || duration === null || duration === 0) return { kind: 'skipped', reason: 'no start and end time' };
  if (w.strategy === 'recurring-weekday') {
    const days = [...new Set((w.weekdays ?? []).map((d) => (d === 7 ? 0 : d)).filter((d) => Number.isInteger(d) && d >= 0 && d <= 6))].sort((a, b) => a - b);
    if (days.length === 0) return { kind: 'skipped', reason: 'no weekday' };
    return done({ strategy: 'weekly', start_time: start.hhmm, duration_minutes: duration, days_of_week: days });
  }
  if (w.strategy === 'recurring-day-of-month') {
    const days: Array<number | 'last'> = [];
    for (const d of w.daysOfMonth ?? []) {
      if (typeof d === 'number' && Number.isInteger(d) && d >= 1 && d <= 31) days.push(d);
      else if (d === 'lastDay1') days.push('last');
      else notes.push(`day "${String(d)}" has no Pharos equivalent: left out`);
    }
    if (days.length === 0) return { kind: 'skipped', reason: 'no day of the month Pharos can repeat on' };
    return done({ strategy: 'monthly', start_time: start.hhmm, duration_minutes: duration, days_of_month: days });
  }
  if (w.strategy === 'recurring-interval') {
    const n = w.intervalDay ?? 0;
    if (!Number.isInteger(n) || n < 1) return { kind: 'skipped', reason: 'no day interval' };
    if (n === 1) return done({ strategy: 'daily', start_time: start.hhmm, duration_minutes: duration });
    const [h, m] = start.hhmm.split(':').map(Number);
    notes.push(`every ${n} days → cron "${m} ${h} */${n} * *" (Kuma's own pattern: day-of-month steps restart each month)`);
    return done({ strategy: 'cron', cron: `${m} ${h} */${n} * *`, duration_minutes: duration });
  }
  return { kind: 'skipped', reason: `strategy "${w.strategy}" has no Pharos equivalent` };
}
