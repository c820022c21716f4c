import type { Layer, OnCallOverride, OnCallSchedule } from './schedule.ts';
import { addDays, daysBetween, isoWeekday, localDateOf, localToUtc, parseLocalDate, parseTimeOfDay, type LocalDate } from './zone.ts';

/**
 * Rotation arithmetic of on-call schedules (issue 34 point 2): pure functions of a schedule, its
 * overrides and instants (epoch ms, UTC). Borrowed behaviour: layers and restrictions as in
 * PagerDuty's schedules (a restriction masks a layer's turns, it does not shift them; a higher layer
 * wins where it has someone; an override wins over every layer). DST: see zone.ts and
 * {@link Rotation} — hand-offs of day-based rotations happen at the local wall-clock time.
 */

/** One stretch of the timeline: `userUuid` is on call over [start, end). */
export interface Shift {
  /** Epoch ms, inclusive. */
  start: number;
  /** Epoch ms, exclusive. */
  end: number;
  userUuid: string;
  /** Index of the layer it comes from (0: bottom), or null for an override. */
  layer: number | null;
  /** The override's uuid, or null. */
  overrideUuid: string | null;
}

/** A stretch with nobody on call: [start, end). */
export interface Gap {
  start: number;
  end: number;
}

const HOUR_MS = 3_600_000;

/** Instants of a layer's turn `k` (k ≥ 0) start. */
function turnStart(zone: string, layer: Layer, start: LocalDate, k: number): number {
  const [h, m] = parseTimeOfDay(layer.rotation.handoffTime)!;
  if (layer.rotation.unit === 'days') return localToUtc(zone, addDays(start, k * layer.rotation.length), h, m);
  return localToUtc(zone, start, h, m) + k * layer.rotation.length * HOUR_MS;
}

/** The layer's turns overlapping [from, to), unclipped, before restrictions. */
function layerTurns(zone: string, layer: Layer, index: number, from: number, to: number): Shift[] {
  const start = parseLocalDate(layer.rotation.startDate)!;
  const len = layer.rotation.length;
  let k: number;
  if (layer.rotation.unit === 'days') k = Math.floor(daysBetween(start, localDateOf(zone, from)) / len) - 1;
  else k = Math.floor((from - turnStart(zone, layer, start, 0)) / (len * HOUR_MS)) - 1;
  k = Math.max(0, k);
  const out: Shift[] = [];
  let s = turnStart(zone, layer, start, k);
  while (s < to) {
    const e = turnStart(zone, layer, start, k + 1);
    if (e > from && e > s) out.push({ start: s, end: e, userUuid: layer.users[k % layer.users.length]!, layer: index, overrideUuid: null });
    k += 1;
    s = e;
  }
  return out;
}

/** The layer's restriction windows overlapping [from, to), merged and sorted; null when it has none (always on). */
function restrictionWindows(zone: string, layer: Layer, from: number, to: number): Gap[] | null {
  if (layer.restrictions.length === 0) return null;
  const first = addDays(localDateOf(zone, from), -1);
  const days = daysBetween(first, localDateOf(zone, to)) + 1;
  const windows: Gap[] = [];
  for (let i = 0; i <= days; i += 1) {
    const date = addDays(first, i);
    const wd = isoWeekday(date);
    for (const r of layer.restrictions) {
      if (!r.days.includes(wd)) continue;
      const [sh, sm] = parseTimeOfDay(r.start)!;
      const [eh, em] = parseTimeOfDay(r.end, true)!;
      const overnight = eh * 60 + em <= sh * 60 + sm;
      const ws = localToUtc(zone, date, sh, sm);
      const we = localToUtc(zone, overnight ? addDays(date, 1) : date, eh, em);
      if (we > from && ws < to && we > ws) windows.push({ start: ws, end: we });
    }
  }
  windows.sort((a, b) => a.start - b.start);
  const merged: Gap[] = [];
  for (const w of windows) {
    const last = merged.at(-1);
    if (last && w.start <= last.end) last.end = Math.max(last.end, w.end);
    else merged.push({ ...w });
  }
  return merged;
}

/**
 * One layer's shifts within [from, to), clipped to the range and to its restrictions, in order.
 * Before the rotation's start date nobody is on call in this layer.
 */
export function layerShifts(zone: string, layer: Layer, index: number, from: number, to: number): Shift[] {
  const turns = layerTurns(zone, layer, index, from, to).map((t) => ({ ...t, start: Math.max(t.start, from), end: Math.min(t.end, to) }));
  const windows = restrictionWindows(zone, layer, from, to);
  if (!windows) return turns.filter((t) => t.end > t.start);
  const out: Shift[] = [];
  for (const t of turns) {
    for (const w of windows) {
      const s = Math.max(t.start, w.start);
      const e = Math.min(t.end, w.end);
      if (e > s) out.push({ ...t, start: s, end: e });
    }
  }
  return out;
}

/**
 * Paints `tops` (sorted, non-overlapping) over `under` (likewise): what a top covers is the top's.
 * One pass per layer, so a year of hourly turns stays linear.
 */
function paint(under: Shift[], tops: Shift[]): Shift[] {
  if (tops.length === 0) return under;
  const out: Shift[] = [...tops];
  let j = 0;
  for (const s of under) {
    let start = s.start;
    while (j < tops.length && tops[j]!.end <= start) j += 1;
    let k = j;
    while (start < s.end) {
      const t = tops[k];
      if (!t || t.start >= s.end) {
        out.push({ ...s, start });
        break;
      }
      if (t.start > start) out.push({ ...s, start, end: t.start });
      start = Math.max(start, t.end);
      k += 1;
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/**
 * Who is on call over [from, to): sorted, non-overlapping shifts, layers stacked (a later layer wins
 * where it has someone), then overrides over everything (where overrides overlap, the one created
 * last wins). Adjacent shifts of the same person from the same source are joined. Stretches with
 * nobody are absent (see {@link gaps}).
 */
export function timeline(schedule: Pick<OnCallSchedule, 'timeZone' | 'layers'>, overrides: readonly OnCallOverride[], from: number, to: number): Shift[] {
  if (to <= from) return [];
  let acc: Shift[] = [];
  schedule.layers.forEach((layer, i) => {
    acc = paint(acc, layerShifts(schedule.timeZone, layer, i, from, to));
  });
  const ordered = [...overrides].sort((a, b) => a.createdAt - b.createdAt || a.startsAt - b.startsAt);
  for (const o of ordered) {
    const start = Math.max(o.startsAt, from);
    const end = Math.min(o.endsAt, to);
    if (end > start) acc = paint(acc, [{ start, end, userUuid: o.userUuid, layer: null, overrideUuid: o.uuid }]);
  }
  const joined: Shift[] = [];
  for (const s of acc) {
    const last = joined.at(-1);
    if (last && last.end === s.start && last.userUuid === s.userUuid && last.layer === s.layer && last.overrideUuid === s.overrideUuid) last.end = s.end;
    else joined.push({ ...s });
  }
  return joined;
}

/** The stretches of [from, to) with nobody on call, in order. */
export function gaps(schedule: Pick<OnCallSchedule, 'timeZone' | 'layers'>, overrides: readonly OnCallOverride[], from: number, to: number): Gap[] {
  const out: Gap[] = [];
  let at = from;
  for (const s of timeline(schedule, overrides, from, to)) {
    if (s.start > at) out.push({ start: at, end: s.start });
    at = Math.max(at, s.end);
  }
  if (at < to) out.push({ start: at, end: to });
  return out;
}

/** Who is on call at instant `at` (user uuid), or null when nobody is. What a `schedule` target of an escalation step pages. */
export function onCallAt(schedule: Pick<OnCallSchedule, 'timeZone' | 'layers'>, overrides: readonly OnCallOverride[], at: number): string | null {
  return timeline(schedule, overrides, at, at + 1)[0]?.userUuid ?? null;
}

/** How far {@link onCallWindow} looks back for the current turn's start: 35 days, ms. */
export const LOOK_BACK_MS = 35 * 86_400_000;
/** How far {@link onCallWindow} looks ahead for the next hand-off: 90 days, ms. */
export const LOOK_AHEAD_MS = 90 * 86_400_000;

/** One person's unbroken stretch on call (sources joined): [start, end). */
export interface Stretch {
  userUuid: string;
  start: number;
  end: number;
}

/**
 * The person on call at `at` and the one after them, each as an unbroken stretch (a person whose
 * turn is continued by an override or another layer is one stretch). `current.start` is at most
 * {@link LOOK_BACK_MS} back and a stretch's end at most {@link LOOK_AHEAD_MS} ahead (clipped there).
 * `next` is who takes over at the next hand-off (`current.end`, or the end of the gap at `at`);
 * null when nobody is on call within the look-ahead.
 */
export function onCallWindow(schedule: Pick<OnCallSchedule, 'timeZone' | 'layers'>, overrides: readonly OnCallOverride[], at: number): { current: Stretch | null; next: Stretch | null } {
  const stretches: Stretch[] = [];
  for (const s of timeline(schedule, overrides, at - LOOK_BACK_MS, at + LOOK_AHEAD_MS)) {
    const last = stretches.at(-1);
    if (last && last.end === s.start && last.userUuid === s.userUuid) last.end = s.end;
    else stretches.push({ userUuid: s.userUuid, start: s.start, end: s.end });
  }
  const i = stretches.findIndex((s) => s.end > at);
  if (i < 0) return { current: null, next: null };
  const here = stretches[i]!;
  if (here.start <= at) return { current: here, next: stretches[i + 1] ?? null };
  return { current: null, next: here };
}

/** The next instant after `at` when who is on call changes (a hand-off, or a gap starting or ending), within {@link LOOK_AHEAD_MS}; null when none. */
export function nextHandoff(schedule: Pick<OnCallSchedule, 'timeZone' | 'layers'>, overrides: readonly OnCallOverride[], at: number): number | null {
  const { current, next } = onCallWindow(schedule, overrides, at);
  if (current) return current.end < at + LOOK_AHEAD_MS ? current.end : null;
  return next ? next.start : null;
}
