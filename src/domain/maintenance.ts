import { z } from 'zod';
import { invalid } from '../lib/errors.ts';
import { cronProblem, isIanaTimeZone } from '../lib/cron.ts';
import { LocalizedTextSchema, type LocalizedText } from './localized.ts';
import { RECURRENCE_STRATEGIES, type DayOfMonth, type Occurrence, type Recurrence } from './maintenance-recurrence.ts';

/** Notification options of a maintenance window (API.md §2.7). */
export const NOTIFICATION_OPTIONS = ['none', 'immediate', 'scheduled'] as const;
export type NotificationOption = (typeof NOTIFICATION_OPTIONS)[number];

/** A window's state at a time: before its start, between start (inclusive) and end, after its end (inclusive). */
export type MaintenanceStatus = 'upcoming' | 'ongoing' | 'completed';

/** The end of "forever" for a recurring window without `validUntil` (the largest Date, epoch ms). */
export const FOREVER_MS = 8_640_000_000_000_000;

/**
 * A maintenance window as the core and store see it. Times are UTC epoch ms.
 * `startAt`/`endAt` are the occurrence that describes the window at the time of the read (the store
 * expands recurring windows, src/domain/maintenance-recurrence.ts `occurrenceAt`): the ongoing one,
 * else the next, else the last; a one-off window's own start and end.
 */
export interface MaintenanceWindow {
  id: number;
  uuid: string;
  name: string;
  startAt: number;
  endAt: number;
  /** How the window repeats, or null: a one-off window (its start and end). */
  recurrence: Recurrence | null;
  /** IANA zone the recurrence's times of day are read in (`UTC` for one-off windows unless set). */
  timezone: string;
  /** Instants at which "end now" cut the occurrence running then (epoch ms, oldest first). */
  cuts: number[];
  /** The next occurrences at the time of the read, the ongoing one first (at most 5). */
  upcoming: Occurrence[];
  /** Monitor uuids the window covers. */
  monitors: string[];
  statuspages: string[];
  title: LocalizedText | null;
  updates: Array<{ text: LocalizedText; date: number }>;
  notificationOption: NotificationOption;
  notificationMinutes: number;
  /** When the pages' subscribers were told about the window (epoch ms), or null: they are told once. */
  notifiedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * What a client sets. For a recurring window `startAt`/`endAt` are the bounds of every occurrence
 * (`validFrom`, and `validUntil` plus the duration or {@link FOREVER_MS}): the store's index range.
 */
export type MaintenanceSettings = Omit<MaintenanceWindow, 'id' | 'uuid' | 'notifiedAt' | 'createdAt' | 'updatedAt' | 'upcoming' | 'cuts'>;

const isoDate = z
  .string({ error: 'must be an ISO 8601 date-time such as 2026-05-01T22:00:00Z' })
  .refine((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date-time with a time zone, such as 2026-05-01T22:00:00Z');

const DAY_OF_MONTH = z.union([z.number().int().min(1).max(31), z.literal('last')], { error: 'must be days of the month 1–31 or "last"' });

/** A window's repetition in a body (docs/api.md "Maintenance windows"); `once` is a one-off window. */
export const RecurrenceBody = z.object(
  {
    strategy: z.enum(['once', ...RECURRENCE_STRATEGIES], { error: `must be one of once, ${RECURRENCE_STRATEGIES.join(', ')}` }),
    start_time: z.string({ error: 'must be a time of day HH:MM' }).regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day HH:MM (00:00–23:59)').optional(),
    duration_minutes: z.number({ error: 'must be a whole number of minutes' }).int('must be a whole number of minutes').min(1, 'must be at least 1').max(44_640, 'must be at most 44640 (31 days)').optional(),
    days_of_week: z.array(z.number().int().min(0).max(6), { error: 'must be days of the week 0 (Sunday) … 6 (Saturday)' }).max(7).optional(),
    days_of_month: z.array(DAY_OF_MONTH, { error: 'must be days of the month 1–31 or "last"' }).max(32).optional(),
    cron: z.string({ error: 'must be a 5-field cron expression' }).trim().max(255).optional(),
    valid_from: isoDate.nullable().optional(),
    valid_until: isoDate.nullable().optional(),
  },
  { error: 'must be {strategy, start_time, duration_minutes, …}' },
);
export type RecurrenceBodyInput = z.infer<typeof RecurrenceBody>;

/** Body of POST/PUT /v1/maintenance-windows (API.md §2.7; `recurrence` and `timezone`: issue 33 point 6). */
export const MaintenanceBody = z.object({
  name: z.string({ error: 'is required and must be a string' }).trim().min(1, 'must not be empty').max(255, 'must be at most 255 characters'),
  start_date: isoDate.optional(),
  end_date: isoDate.optional(),
  recurrence: RecurrenceBody.nullable().optional(),
  timezone: z.string({ error: 'must be an IANA time zone such as Europe/Berlin' }).max(64).optional(),
  monitors: z.array(z.string({ error: 'must be monitor uuids' }), { error: 'is required: an array of monitor uuids' }).max(10_000, 'must list at most 10000 monitors'),
  statuspages: z.array(z.string({ error: 'must be status page uuids' }), { error: 'must be an array of status page uuids' }).optional(),
  title: LocalizedTextSchema.nullable().optional(),
  updates: z.array(z.object({ text: LocalizedTextSchema, date: isoDate }, { error: 'must be {text, date}' }), { error: 'must be an array of {text, date}' }).max(100, 'must have at most 100 updates').optional(),
  notificationOption: z.enum(NOTIFICATION_OPTIONS, { error: `must be one of ${NOTIFICATION_OPTIONS.join(', ')}` }).optional(),
  notificationMinutes: z.number({ error: 'must be a whole number of minutes' }).int('must be a whole number of minutes').min(1, 'must be at least 1').max(10_080, 'must be at most 10080 (a week)').optional(),
});
export type MaintenanceBodyInput = z.infer<typeof MaintenanceBody>;

/** A body's recurrence → the stored one, or null for `once`/none. @throws AppError 400 naming the field (`recurrence.<field>`) */
function resolveRecurrence(r: RecurrenceBodyInput | null | undefined, timezone: string, now: number): Recurrence | null {
  if (!r || r.strategy === 'once') return null;
  const field = (f: string) => `recurrence.${f}`;
  if (r.duration_minutes === undefined) throw invalid(field('duration_minutes'), 'is required for a recurring window');
  if (r.strategy !== 'cron' && r.start_time === undefined) throw invalid(field('start_time'), 'is required for a daily, weekly or monthly window');
  const daysOfWeek = [...new Set(r.days_of_week ?? [])].sort((a, b) => a - b);
  if (r.strategy === 'weekly' && daysOfWeek.length === 0) throw invalid(field('days_of_week'), 'must name at least one day for a weekly window');
  const daysOfMonth = [...new Set<DayOfMonth>(r.days_of_month ?? [])];
  if (r.strategy === 'monthly' && daysOfMonth.length === 0) throw invalid(field('days_of_month'), 'must name at least one day for a monthly window');
  let cron: string | null = null;
  if (r.strategy === 'cron') {
    cron = (r.cron ?? '').replace(/\s+/g, ' ');
    if (cron.split(' ').length !== 5) throw invalid(field('cron'), 'must be a 5-field cron expression: minute hour day-of-month month day-of-week');
    const problem = cronProblem(cron, timezone);
    if (problem) throw invalid(field('cron'), problem);
  }
  const validFrom = r.valid_from ? Date.parse(r.valid_from) : now;
  const validUntil = r.valid_until ? Date.parse(r.valid_until) : null;
  if (validUntil !== null && validUntil <= validFrom) throw invalid(field('valid_until'), 'must be after valid_from');
  return {
    strategy: r.strategy,
    startTime: r.strategy === 'cron' ? null : r.start_time!,
    durationMinutes: r.duration_minutes,
    daysOfWeek: r.strategy === 'weekly' ? daysOfWeek : [],
    daysOfMonth: r.strategy === 'monthly' ? daysOfMonth : [],
    cron,
    validFrom,
    validUntil,
  };
}

/**
 * Body → settings, checking the rules across fields.
 * @param knownMonitor true when a monitor uuid exists
 * @param knownStatuspage true when a status page uuid exists
 * @param now epoch ms: a recurrence without `valid_from` is valid from now
 * @throws AppError 400 naming the field: `end_date` not after `start_date` (or missing on a one-off
 *   window), an unknown time zone, a recurrence's rules, unknown monitors or status pages
 */
export function resolveMaintenance(body: MaintenanceBodyInput, knownMonitor: (uuid: string) => boolean, knownStatuspage: (uuid: string) => boolean, now: number): MaintenanceSettings {
  const timezone = body.timezone ?? 'UTC';
  if (!isIanaTimeZone(timezone)) throw invalid('timezone', 'must be an IANA time zone such as Europe/Berlin');
  const recurrence = resolveRecurrence(body.recurrence, timezone, now);
  let startAt: number;
  let endAt: number;
  if (recurrence) {
    startAt = recurrence.validFrom;
    endAt = recurrence.validUntil === null ? FOREVER_MS : recurrence.validUntil + recurrence.durationMinutes * 60_000;
  } else {
    if (body.start_date === undefined) throw invalid('start_date', 'is required for a one-off window');
    if (body.end_date === undefined) throw invalid('end_date', 'is required for a one-off window');
    startAt = Date.parse(body.start_date);
    endAt = Date.parse(body.end_date);
    if (endAt <= startAt) throw invalid('end_date', 'must be after start_date');
  }
  const monitors = [...new Set(body.monitors)];
  const unknown = monitors.filter((m) => !knownMonitor(m));
  if (unknown.length > 0) throw invalid('monitors', `unknown monitor ${unknown.slice(0, 3).map((u) => `"${u}"`).join(', ')}`);
  const statuspages = [...new Set(body.statuspages ?? [])];
  const unknownPages = statuspages.filter((s) => !knownStatuspage(s));
  if (unknownPages.length > 0) throw invalid('statuspages', `unknown status page ${unknownPages.slice(0, 3).map((u) => `"${u}"`).join(', ')}`);
  return {
    name: body.name,
    startAt,
    endAt,
    recurrence,
    timezone,
    monitors,
    statuspages,
    title: body.title ?? null,
    updates: (body.updates ?? []).map((u) => ({ text: u.text, date: Date.parse(u.date) })).sort((a, b) => a.date - b.date),
    notificationOption: body.notificationOption ?? 'none',
    notificationMinutes: body.notificationMinutes ?? 60,
  };
}

/** The window's status at `now` (epoch ms): ongoing on [start, end) of the occurrence the store gave it. */
export function maintenanceStatus(w: Pick<MaintenanceWindow, 'startAt' | 'endAt'>, now: number): MaintenanceStatus {
  if (now < w.startAt) return 'upcoming';
  return now < w.endAt ? 'ongoing' : 'completed';
}
