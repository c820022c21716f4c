import { auditDiff, type AuditActor } from '../domain/audit.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { LOOK_AHEAD_MS, LOOK_BACK_MS, gaps, onCallWindow, timeline, type Gap, type Shift, type Stretch } from '../domain/on-call/rotation.ts';
import { checkSchedule, scheduleUsers, type Layer, type OnCallOverride, type OnCallSchedule, type OnCallScheduleWrite } from '../domain/on-call/schedule.ts';
import type { User } from '../domain/user.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, conflict, invalid, notFound } from '../lib/errors.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import { recordAudit, type AuditStamp } from './audit-log.ts';

/**
 * On-call schedules (issue 34 point 2): what the API (and later the console) create, change and
 * delete, and the answers "who is on call at", "the timeline from … to …" computed from the stored
 * schedule and its overrides by domain/on-call/rotation.ts. Every write is one procedure with its
 * audit entry (resource type `on_call_schedule`; overrides are updates of their schedule).
 */

/** Longest range a timeline answers, ms (90 days). */
export const TIMELINE_MAX_MS = 90 * 86_400_000;
/** Longest override, ms (365 days). */
export const OVERRIDE_MAX_MS = 365 * 86_400_000;

/** What creating a schedule takes (camelCase; the API maps its snake_case body). */
export interface ScheduleInput {
  name: string;
  team?: string | null | undefined;
  description?: string | null | undefined;
  timeZone: string;
  layers: Layer[];
}

/** A partial update: fields left out keep their values (`layers` replaced whole when given). */
export type SchedulePatch = Partial<ScheduleInput>;

/** What creating an override takes: `userUuid` covers [startsAt, endsAt) epoch ms. */
export interface OverrideInput {
  userUuid: string;
  startsAt: number;
  endsAt: number;
  note?: string | null | undefined;
}

/** A schedule with who is on call now and next (the hosted service's `current_oncall`, `next_oncall`, `rotation_start`, `rotation_end`). */
export interface ScheduleView {
  schedule: OnCallSchedule;
  current: Stretch | null;
  next: Stretch | null;
}

/** The audit view of a schedule: the fields a person sets. */
const auditView = (s: OnCallScheduleWrite) => ({
  name: s.name,
  team: s.team,
  description: s.description,
  time_zone: s.timeZone,
  layers: s.layers.map((l) => ({ name: l.name, users: l.users, rotation: { type: l.rotation.type, length: l.rotation.length, unit: l.rotation.unit, handoff_time: l.rotation.handoffTime, start_date: l.rotation.startDate }, restrictions: l.restrictions })),
});

const audit = (tx: Store, a: AuditStamp, action: 'create' | 'update' | 'delete', s: { uuid: string; name: string }, diff: ReturnType<typeof auditDiff>) =>
  recordAudit(tx, a, { action, resourceType: 'on_call_schedule', resourceUuid: s.uuid, resourceName: s.name, diff });

function mustGet(tx: Store, uuid: string): OnCallSchedule {
  const s = tx.onCall.get(uuid);
  if (!s) throw notFound('on_call_schedules', 'On-call schedule');
  return s;
}

/** Checks in `tx` that every user a layer names exists. @throws AppError 400 naming `layers[i].users[j]` */
function checkUsers(tx: Store, w: OnCallScheduleWrite): void {
  w.layers.forEach((l, i) =>
    l.users.forEach((u, j) => {
      if (!tx.users.findUser(u)) throw invalid(`layers[${i}].users[${j}]`, `no user "${u}"`);
    }),
  );
}

function refuseTakenName(tx: Store, name: string, uuid: string | null): void {
  const other = tx.onCall.getByName(name);
  if (other && other.uuid !== uuid) throw new AppError(409, 'on_call_schedules.name_taken', `name: "${name}" is taken by another on-call schedule (${other.uuid})`, [{ path: 'name', message: 'is taken' }]);
}

/** Inserts a schedule (users checked) with its audit entry. @throws AppError 400 / 409 */
const createSchedule = procedure('onCall.create', (tx: Store, a: AuditStamp & { uuid: string; write: OnCallScheduleWrite }): OnCallSchedule => {
  refuseTakenName(tx, a.write.name, null);
  checkUsers(tx, a.write);
  const s = tx.onCall.insert(a.uuid, a.write, a.now);
  audit(tx, a, 'create', s, auditDiff(null, auditView(s)));
  return s;
});

/** Reads, merges, checks and replaces a schedule, with its audit entry. @throws AppError 404 / 400 / 409 */
const updateSchedule = procedure('onCall.update', (tx: Store, a: AuditStamp & { uuid: string; patch: SchedulePatch }): OnCallSchedule => {
  const current = mustGet(tx, a.uuid);
  const write = checkSchedule({
    name: a.patch.name ?? current.name,
    team: a.patch.team === undefined ? current.team : a.patch.team,
    description: a.patch.description === undefined ? current.description : a.patch.description,
    timeZone: a.patch.timeZone ?? current.timeZone,
    layers: a.patch.layers ?? current.layers,
  });
  refuseTakenName(tx, write.name, a.uuid);
  checkUsers(tx, write);
  const diff = auditDiff(auditView(current), auditView(write));
  if (Object.keys(diff).length === 0) return current;
  const s = tx.onCall.update(a.uuid, write, Math.max(a.now, current.updatedAt + 1))!;
  audit(tx, a, 'update', s, diff);
  return s;
});

/**
 * Deletes a schedule (its overrides and feed go with it) that no escalation policy step targets.
 * @throws AppError 404; 409 `on_call_schedules.in_use` naming the policies
 */
const deleteSchedule = procedure('onCall.delete', (tx: Store, a: AuditStamp & { uuid: string }): OnCallSchedule => {
  const current = mustGet(tx, a.uuid);
  const policies = tx.escalationPolicies.usingTarget('schedule', a.uuid);
  if (policies.length > 0) throw conflict('on_call_schedules.in_use', `on-call schedule "${current.name}" is a target of ${policies.map((p) => `escalation policy "${p.name}" (${p.uuid})`).join(', ')}: change those steps first`);
  tx.onCall.delete(a.uuid);
  audit(tx, a, 'delete', current, auditDiff(auditView(current), null));
  return current;
});

/** Adds an override to a schedule, audited as an update of it. @throws AppError 404 / 400 */
const createOverride = procedure('onCall.createOverride', (tx: Store, a: AuditStamp & { override: OnCallOverride }): OnCallOverride => {
  const s = mustGet(tx, a.override.scheduleUuid);
  if (!tx.users.findUser(a.override.userUuid)) throw invalid('user_uuid', `no user "${a.override.userUuid}"`);
  const o = tx.onCall.insertOverride(a.override);
  audit(tx, a, 'update', s, { [`overrides.${o.uuid}`]: { after: { user_uuid: o.userUuid, start: new Date(o.startsAt).toISOString(), end: new Date(o.endsAt).toISOString(), note: o.note } } });
  return o;
});

/** Removes an override of a schedule, audited as an update of it. @throws AppError 404 (schedule or override) */
const deleteOverride = procedure('onCall.deleteOverride', (tx: Store, a: AuditStamp & { scheduleUuid: string; uuid: string }): OnCallOverride => {
  const s = mustGet(tx, a.scheduleUuid);
  const o = tx.onCall.getOverride(a.uuid);
  if (!o || o.scheduleUuid !== s.uuid) throw notFound('on_call_overrides', 'Override');
  tx.onCall.deleteOverride(o.uuid);
  audit(tx, a, 'update', s, { [`overrides.${o.uuid}`]: { before: { user_uuid: o.userUuid, start: new Date(o.startsAt).toISOString(), end: new Date(o.endsAt).toISOString(), note: o.note } } });
  return o;
});

/** A timeline answer: shifts and gaps of [from, to). */
export interface TimelineView {
  from: number;
  to: number;
  shifts: Shift[];
  gaps: Gap[];
}

/** On-call schedules service (issue 34 point 2). */
export function onCallService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  const mustRead = async (uuid: string): Promise<OnCallSchedule> => {
    const s = await store.async.onCall.get(uuid);
    if (!s) throw notFound('on_call_schedules', 'On-call schedule');
    return s;
  };
  const windowOf = async (s: OnCallSchedule, at: number): Promise<ScheduleView> => {
    const overrides = await store.async.onCall.overrides(s.uuid, at - LOOK_BACK_MS, at + LOOK_AHEAD_MS);
    return { schedule: s, ...onCallWindow(s, overrides, at) };
  };
  return {
    /** Every schedule with who is on call now and next, by name. */
    async list(): Promise<ScheduleView[]> {
      const now = clock.now();
      return Promise.all((await store.async.onCall.list()).map((s) => windowOf(s, now)));
    },
    /** One with who is on call now and next. @throws (rejects) AppError 404 `on_call_schedules.not_found` */
    get: async (uuid: string): Promise<ScheduleView> => windowOf(await mustRead(uuid), clock.now()),
    /**
     * Who is on call at `at` (epoch ms; default now) and who is next: what an escalation step whose
     * target is a `schedule` pages. @throws (rejects) AppError 404
     */
    onCallAt: async (uuid: string, at?: number): Promise<ScheduleView & { at: number }> => {
      const when = at ?? clock.now();
      return { ...(await windowOf(await mustRead(uuid), when)), at: when };
    },
    /**
     * The shifts and gaps of [from, to) (epoch ms; at most {@link TIMELINE_MAX_MS}).
     * @throws (rejects) AppError 404; 400 naming `to` for an empty or too long range
     */
    async timeline(uuid: string, from: number, to: number): Promise<TimelineView> {
      if (to <= from) throw invalid('to', 'must be after from');
      if (to - from > TIMELINE_MAX_MS) throw invalid('to', 'must be at most 90 days after from');
      const s = await mustRead(uuid);
      const overrides = await store.async.onCall.overrides(uuid, from, to);
      return { from, to, shifts: timeline(s, overrides, from, to), gaps: gaps(s, overrides, from, to) };
    },
    /**
     * Creates a schedule; its users must exist.
     * @throws (rejects) AppError 400 naming the field; 409 `on_call_schedules.name_taken`
     */
    async create(input: ScheduleInput, actor: AuditActor): Promise<OnCallSchedule> {
      const write = checkSchedule({ name: input.name, team: input.team ?? null, description: input.description ?? null, timeZone: input.timeZone, layers: input.layers });
      return store.async.tx(createSchedule, { uuid: newId(ID_PREFIX.onCallSchedule), write, actor, now: clock.now() });
    },
    /** Partial update, checked as a whole. @throws (rejects) AppError 404; 400; 409 `on_call_schedules.name_taken` */
    update: (uuid: string, patch: SchedulePatch, actor: AuditActor): Promise<OnCallSchedule> => store.async.tx(updateSchedule, { uuid, patch, actor, now: clock.now() }),
    /** Deletes a schedule with its overrides and feed. @throws (rejects) AppError 404; 409 `on_call_schedules.in_use` */
    delete: (uuid: string, actor: AuditActor): Promise<OnCallSchedule> => store.async.tx(deleteSchedule, { uuid, actor, now: clock.now() }),
    /** Overrides of a schedule overlapping [from, to) epoch ms, by start. @throws (rejects) AppError 404 */
    async overrides(uuid: string, from: number, to: number): Promise<OnCallOverride[]> {
      await mustRead(uuid);
      return store.async.onCall.overrides(uuid, from, to);
    },
    /**
     * Adds an override: `userUuid` covers [startsAt, endsAt) over every layer.
     * @throws (rejects) AppError 404; 400 naming `user_uuid`, `end` (not after start, longer than 365 days) or `note`
     */
    createOverride(scheduleUuid: string, input: OverrideInput, actor: AuditActor): Promise<OnCallOverride> {
      if (!(input.endsAt > input.startsAt)) throw invalid('end', 'must be after start');
      if (input.endsAt - input.startsAt > OVERRIDE_MAX_MS) throw invalid('end', 'must be at most 365 days after start');
      const note = input.note?.trim() || null;
      if (note !== null && note.length > 500) throw invalid('note', 'must be at most 500 characters');
      const now = clock.now();
      const override: OnCallOverride = { uuid: newId(ID_PREFIX.onCallOverride), scheduleUuid, userUuid: input.userUuid, startsAt: input.startsAt, endsAt: input.endsAt, note, createdAt: now };
      return store.async.tx(createOverride, { override, actor, now });
    },
    /** Removes an override. @throws (rejects) AppError 404 */
    deleteOverride: (scheduleUuid: string, uuid: string, actor: AuditActor): Promise<OnCallOverride> => store.async.tx(deleteOverride, { scheduleUuid, uuid, actor, now: clock.now() }),
    /** The users named by uuid, as found (missing ones left out): for answers that show names. */
    async people(uuids: Iterable<string>): Promise<Map<string, User>> {
      const out = new Map<string, User>();
      for (const u of new Set(uuids)) {
        const found = await store.async.users.findUser(u);
        if (found) out.set(u, found);
      }
      return out;
    },
    /** `{uuid, name}` of the schedules naming `userUuid` in a layer or an override (what removing that person would break). */
    schedulesOf: (userUuid: string): Promise<Array<{ uuid: string; name: string }>> => store.async.onCall.usingUser(userUuid),
    /** Distinct users of a schedule's layers. */
    usersOf: (s: OnCallSchedule): string[] => scheduleUsers(s),
  };
}

/** The on-call schedules service's interface. */
export type OnCallService = ReturnType<typeof onCallService>;
