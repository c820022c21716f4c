import { invalid } from '../../lib/errors.ts';
import { isIanaZone, parseLocalDate, parseTimeOfDay } from './zone.ts';

/**
 * On-call schedules (issue 34 point 2): a time zone and layers of rotations; overrides on top. The
 * hosted service's model (hyperping-go `mcp_models.go` `OnCallSchedule {uuid, name, team,
 * current_oncall, next_oncall, rotation_start, rotation_end}`) is what the API answers with, plus
 * the layers and overrides that say how those come about. The arithmetic is in rotation.ts.
 */

/** How long each person's turn is: one day, one week, or a custom number of hours or days. */
export const ROTATION_TYPES = ['daily', 'weekly', 'custom'] as const;
export type RotationType = (typeof ROTATION_TYPES)[number];
/** Units of a custom rotation's length. */
export const ROTATION_UNITS = ['hours', 'days'] as const;
export type RotationUnit = (typeof ROTATION_UNITS)[number];

/**
 * A rotation: people take turns of `length` `unit`s, the first turn (users[0]'s) starting on
 * `startDate` at `handoffTime`, local time in the schedule's zone. Daily is 1 day, weekly 7 days.
 * Days are calendar days (a turn across a DST change is 23 or 25 hours long and every hand-off stays
 * at `handoffTime` local); hours are elapsed hours (a 12-hour turn's hand-off moves by an hour in
 * local time across a DST change).
 */
export interface Rotation {
  type: RotationType;
  /** Turn length in `unit`s (daily: 1, weekly: 7 days). */
  length: number;
  unit: RotationUnit;
  /** `HH:MM`, local. */
  handoffTime: string;
  /** `YYYY-MM-DD`, local: the first turn starts on this day. */
  startDate: string;
}

/**
 * A weekly window in the schedule's zone when a layer is on call at all: on ISO weekdays `days`
 * (1 Monday … 7 Sunday) from `start` to `end` (`HH:MM`; `end` may be `24:00`; an `end` not after
 * `start` runs past midnight into the next day, so `18:00`–`09:00` is a night).
 */
export interface Restriction {
  days: number[];
  start: string;
  end: string;
}

/** One layer: a rotation of people, optionally only within restrictions. */
export interface Layer {
  name: string;
  /** Console users (`user_…`), in turn order; a user may appear more than once. */
  users: string[];
  rotation: Rotation;
  /** Empty: always. Otherwise the layer covers only the union of these windows. */
  restrictions: Restriction[];
}

/** A schedule as the store hands it out. Layers are bottom first: a later layer wins where it has someone. */
export interface OnCallSchedule {
  /** `sched_…` */
  uuid: string;
  name: string;
  /** The team it belongs to (a label, as escalation policies' `team`), or null. */
  team: string | null;
  description: string | null;
  /** IANA zone name: rotations, hand-offs and restrictions are wall-clock times here. */
  timeZone: string;
  layers: Layer[];
  createdAt: number;
  updatedAt: number;
}

/** What the store writes. */
export type OnCallScheduleWrite = Omit<OnCallSchedule, 'uuid' | 'createdAt' | 'updatedAt'>;

/** Someone covers [startsAt, endsAt) of a schedule, over every layer. */
export interface OnCallOverride {
  /** `ovr_…` */
  uuid: string;
  scheduleUuid: string;
  userUuid: string;
  /** Epoch ms, inclusive. */
  startsAt: number;
  /** Epoch ms, exclusive. */
  endsAt: number;
  note: string | null;
  /** Epoch ms; where overrides overlap, the one created last wins. */
  createdAt: number;
}

/** What an iCal feed token is for: one schedule, or one person across every schedule. */
export type FeedKind = 'schedule' | 'user';

/** Longest name, team, layer name; characters. */
export const SCHEDULE_NAME_MAX = 100;
/** Longest description, characters. */
export const SCHEDULE_DESCRIPTION_MAX = 1000;
/** Most layers in a schedule, users in a layer, restrictions in a layer. */
export const SCHEDULE_LIST_MAX = 50;
/** Longest custom turn: 365 days or 8760 hours. */
export const ROTATION_MAX = { days: 365, hours: 8760 } as const;

const wholeIn = (v: unknown, min: number, max: number) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** Turn length of a rotation type (daily 1 day, weekly 7 days; custom as given). */
export function rotationLength(type: RotationType, length: number | undefined, unit: RotationUnit | undefined): { length: number; unit: RotationUnit } {
  if (type === 'daily') return { length: 1, unit: 'days' };
  if (type === 'weekly') return { length: 7, unit: 'days' };
  return { length: length ?? Number.NaN, unit: unit ?? 'days' };
}

function checkLayer(l: Layer, i: number): Layer {
  const at = `layers[${i}]`;
  const name = l.name.trim();
  if (name.length === 0 || name.length > SCHEDULE_NAME_MAX) throw invalid(`${at}.name`, `must be 1 to ${SCHEDULE_NAME_MAX} characters`);
  if (l.users.length === 0) throw invalid(`${at}.users`, 'must name at least one user');
  if (l.users.length > SCHEDULE_LIST_MAX) throw invalid(`${at}.users`, `must name at most ${SCHEDULE_LIST_MAX} users`);
  const r = l.rotation;
  if (!(ROTATION_TYPES as readonly string[]).includes(r.type)) throw invalid(`${at}.rotation.type`, `must be one of ${ROTATION_TYPES.join(', ')}`);
  if (!(ROTATION_UNITS as readonly string[]).includes(r.unit)) throw invalid(`${at}.rotation.unit`, `must be one of ${ROTATION_UNITS.join(', ')}`);
  if (!wholeIn(r.length, 1, ROTATION_MAX[r.unit])) throw invalid(`${at}.rotation.length`, `must be a whole number of ${r.unit} from 1 to ${ROTATION_MAX[r.unit]}`);
  if (!parseTimeOfDay(r.handoffTime)) throw invalid(`${at}.rotation.handoff_time`, 'must be a time of day HH:MM (00:00 to 23:59)');
  if (!parseLocalDate(r.startDate)) throw invalid(`${at}.rotation.start_date`, 'must be a date YYYY-MM-DD');
  if (l.restrictions.length > SCHEDULE_LIST_MAX) throw invalid(`${at}.restrictions`, `must have at most ${SCHEDULE_LIST_MAX} windows`);
  l.restrictions.forEach((w, j) => {
    const wat = `${at}.restrictions[${j}]`;
    if (w.days.length === 0 || w.days.some((d) => !wholeIn(d, 1, 7))) throw invalid(`${wat}.days`, 'must be ISO weekdays 1 (Monday) to 7 (Sunday), at least one');
    if (!parseTimeOfDay(w.start)) throw invalid(`${wat}.start`, 'must be a time of day HH:MM (00:00 to 23:59)');
    if (!parseTimeOfDay(w.end, true)) throw invalid(`${wat}.end`, 'must be a time of day HH:MM (00:00 to 24:00)');
    if (w.start === w.end) throw invalid(`${wat}.end`, 'must differ from start (leave restrictions empty for always)');
  });
  return { ...l, name, restrictions: l.restrictions.map((w) => ({ ...w, days: [...new Set(w.days)].sort((a, b) => a - b) })) };
}

/**
 * Checks a schedule's fields (shape and ranges; each 400 names the field as the API spells it) and
 * returns it trimmed. Whether the users exist is the core's check (it needs the store).
 * @throws AppError 400 `validation.invalid`
 */
export function checkSchedule(w: OnCallScheduleWrite): OnCallScheduleWrite {
  const name = w.name.trim();
  if (name.length === 0) throw invalid('name', 'must not be empty');
  if (name.length > SCHEDULE_NAME_MAX) throw invalid('name', `must be at most ${SCHEDULE_NAME_MAX} characters`);
  const team = w.team === null ? null : w.team.trim() || null;
  if (team !== null && team.length > SCHEDULE_NAME_MAX) throw invalid('team', `must be at most ${SCHEDULE_NAME_MAX} characters`);
  const description = w.description === null ? null : w.description.trim() || null;
  if (description !== null && description.length > SCHEDULE_DESCRIPTION_MAX) throw invalid('description', `must be at most ${SCHEDULE_DESCRIPTION_MAX} characters`);
  if (!isIanaZone(w.timeZone)) throw invalid('time_zone', 'must be an IANA time zone name such as Europe/Berlin or UTC');
  if (w.layers.length === 0) throw invalid('layers', 'must have at least one layer');
  if (w.layers.length > SCHEDULE_LIST_MAX) throw invalid('layers', `must have at most ${SCHEDULE_LIST_MAX} layers`);
  return { name, team, description, timeZone: w.timeZone, layers: w.layers.map(checkLayer) };
}

/** The distinct users a schedule's layers name, in first-seen order. */
export function scheduleUsers(s: Pick<OnCallSchedule, 'layers'>): string[] {
  return [...new Set(s.layers.flatMap((l) => l.users))];
}
