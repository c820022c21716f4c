import { z } from 'zod';
import { invalid } from '../lib/errors.ts';
import { LocalizedTextSchema, type LocalizedText } from './localized.ts';

/** Notification options of a maintenance window (API.md §2.7). */
export const NOTIFICATION_OPTIONS = ['none', 'immediate', 'scheduled'] as const;
export type NotificationOption = (typeof NOTIFICATION_OPTIONS)[number];

/** A window's state at a time: before its start, between start (inclusive) and end, after its end (inclusive). */
export type MaintenanceStatus = 'upcoming' | 'ongoing' | 'completed';

/** A maintenance window as the core and store see it. Times are UTC epoch ms. */
export interface MaintenanceWindow {
  id: number;
  uuid: string;
  name: string;
  startAt: number;
  endAt: number;
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

/** What a client sets. */
export type MaintenanceSettings = Omit<MaintenanceWindow, 'id' | 'uuid' | 'notifiedAt' | 'createdAt' | 'updatedAt'>;

const isoDate = z
  .string({ error: 'must be an ISO 8601 date-time such as 2026-05-01T22:00:00Z' })
  .refine((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date-time with a time zone, such as 2026-05-01T22:00:00Z');

/** Body of POST/PUT /v1/maintenance-windows (API.md §2.7). */
export const MaintenanceBody = z.object({
  name: z.string({ error: 'is required and must be a string' }).trim().min(1, 'must not be empty').max(255, 'must be at most 255 characters'),
  start_date: isoDate,
  end_date: isoDate,
  monitors: z.array(z.string({ error: 'must be monitor uuids' }), { error: 'is required: an array of monitor uuids' }).max(10_000, 'must list at most 10000 monitors'),
  statuspages: z.array(z.string({ error: 'must be status page uuids' }), { error: 'must be an array of status page uuids' }).optional(),
  title: LocalizedTextSchema.nullable().optional(),
  updates: z.array(z.object({ text: LocalizedTextSchema, date: isoDate }, { error: 'must be {text, date}' }), { error: 'must be an array of {text, date}' }).max(100, 'must have at most 100 updates').optional(),
  notificationOption: z.enum(NOTIFICATION_OPTIONS, { error: `must be one of ${NOTIFICATION_OPTIONS.join(', ')}` }).optional(),
  notificationMinutes: z.number({ error: 'must be a whole number of minutes' }).int('must be a whole number of minutes').min(1, 'must be at least 1').max(10_080, 'must be at most 10080 (a week)').optional(),
});
export type MaintenanceBodyInput = z.infer<typeof MaintenanceBody>;

/**
 * Body → settings, checking the rules across fields.
 * @param knownMonitor true when a monitor uuid exists
 * @param knownStatuspage true when a status page uuid exists
 * @throws AppError 400 naming the field: `end_date` not after `start_date`, unknown monitors or status pages
 */
export function resolveMaintenance(body: MaintenanceBodyInput, knownMonitor: (uuid: string) => boolean, knownStatuspage: (uuid: string) => boolean): MaintenanceSettings {
  const startAt = Date.parse(body.start_date);
  const endAt = Date.parse(body.end_date);
  if (endAt <= startAt) throw invalid('end_date', 'must be after start_date');
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
    monitors,
    statuspages,
    title: body.title ?? null,
    updates: (body.updates ?? []).map((u) => ({ text: u.text, date: Date.parse(u.date) })).sort((a, b) => a.date - b.date),
    notificationOption: body.notificationOption ?? 'none',
    notificationMinutes: body.notificationMinutes ?? 60,
  };
}

/** The window's status at `now` (epoch ms): ongoing on [start, end). */
export function maintenanceStatus(w: Pick<MaintenanceWindow, 'startAt' | 'endAt'>, now: number): MaintenanceStatus {
  if (now < w.startAt) return 'upcoming';
  return now < w.endAt ? 'ongoing' : 'completed';
}
