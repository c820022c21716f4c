import type { FeedKind, Layer, OnCallOverride, OnCallSchedule, OnCallScheduleWrite, RotationType, RotationUnit } from '../domain/on-call/schedule.ts';
import type { Db } from './db.ts';

interface ScheduleRow {
  uuid: string;
  name: string;
  team: string | null;
  description: string | null;
  time_zone: string;
  layers: string;
  created_at: number;
  updated_at: number;
}

interface OverrideRow {
  uuid: string;
  schedule_uuid: string;
  user_uuid: string;
  starts_at: number;
  ends_at: number;
  note: string | null;
  created_at: number;
}

/** Layers as stored: the API's snake_case shape (migration 0026). */
type StoredLayers = Array<{
  name: string;
  users: string[];
  rotation: { type: RotationType; length: number; unit: RotationUnit; handoff_time: string; start_date: string };
  restrictions: Array<{ days: number[]; start: string; end: string }>;
}>;

const toLayers = (json: string): Layer[] =>
  (JSON.parse(json) as StoredLayers).map((l) => ({
    name: l.name,
    users: l.users,
    rotation: { type: l.rotation.type, length: l.rotation.length, unit: l.rotation.unit, handoffTime: l.rotation.handoff_time, startDate: l.rotation.start_date },
    restrictions: l.restrictions.map((r) => ({ days: r.days, start: r.start, end: r.end })),
  }));

const layersJson = (layers: readonly Layer[]): string =>
  JSON.stringify(
    layers.map((l) => ({
      name: l.name,
      users: l.users,
      rotation: { type: l.rotation.type, length: l.rotation.length, unit: l.rotation.unit, handoff_time: l.rotation.handoffTime, start_date: l.rotation.startDate },
      restrictions: l.restrictions.map((r) => ({ days: r.days, start: r.start, end: r.end })),
    })) satisfies StoredLayers,
  );

const toSchedule = (r: ScheduleRow): OnCallSchedule => ({
  uuid: r.uuid,
  name: r.name,
  team: r.team,
  description: r.description,
  timeZone: r.time_zone,
  layers: toLayers(r.layers),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toOverride = (r: OverrideRow): OnCallOverride => ({
  uuid: r.uuid,
  scheduleUuid: r.schedule_uuid,
  userUuid: r.user_uuid,
  startsAt: r.starts_at,
  endsAt: r.ends_at,
  note: r.note,
  createdAt: r.created_at,
});

const S_COLUMNS = 'uuid, name, team, description, time_zone, layers, created_at, updated_at';
const O_COLUMNS = 'uuid, schedule_uuid, user_uuid, starts_at, ends_at, note, created_at';

/**
 * On-call schedules, their overrides and iCal feed tokens (issue 34 point 2; migration 0026).
 * Feed tokens are stored only as their SHA-256 hex. Times epoch ms.
 */
export function onCallStore(db: Db) {
  const all = db.prepare<[], ScheduleRow>(`SELECT ${S_COLUMNS} FROM on_call_schedules ORDER BY name, id`);
  const byUuid = db.prepare<[string], ScheduleRow>(`SELECT ${S_COLUMNS} FROM on_call_schedules WHERE uuid = ?`);
  const byName = db.prepare<[string], ScheduleRow>(`SELECT ${S_COLUMNS} FROM on_call_schedules WHERE name = ?`);
  const insert = db.prepare(
    `INSERT INTO on_call_schedules(uuid, name, team, description, time_zone, layers, created_at, updated_at)
     VALUES (@uuid, @name, @team, @description, @timeZone, @layers, @now, @now)`,
  );
  const update = db.prepare(`UPDATE on_call_schedules SET name=@name, team=@team, description=@description, time_zone=@timeZone, layers=@layers, updated_at=@now WHERE uuid=@uuid`);
  const del = db.prepare('DELETE FROM on_call_schedules WHERE uuid = ?');
  const overridesIn = db.prepare<[string, number, number], OverrideRow>(`SELECT ${O_COLUMNS} FROM on_call_overrides WHERE schedule_uuid = ? AND ends_at > ? AND starts_at < ? ORDER BY starts_at, id`);
  const overrideByUuid = db.prepare<[string], OverrideRow>(`SELECT ${O_COLUMNS} FROM on_call_overrides WHERE uuid = ?`);
  const overridesOfUser = db.prepare<[string], OverrideRow>(`SELECT ${O_COLUMNS} FROM on_call_overrides WHERE user_uuid = ? ORDER BY starts_at, id`);
  const insertOverride = db.prepare(
    `INSERT INTO on_call_overrides(uuid, schedule_uuid, user_uuid, starts_at, ends_at, note, created_at) VALUES (@uuid, @scheduleUuid, @userUuid, @startsAt, @endsAt, @note, @createdAt)`,
  );
  const delOverride = db.prepare('DELETE FROM on_call_overrides WHERE uuid = ?');
  const delOverridesOf = db.prepare('DELETE FROM on_call_overrides WHERE schedule_uuid = ?');
  const feedByHash = db.prepare<[string], { kind: string; subject_uuid: string }>('SELECT kind, subject_uuid FROM on_call_feeds WHERE token_hash = ?');
  const feedOf = db.prepare<[string, string], { created_at: number }>('SELECT created_at FROM on_call_feeds WHERE kind = ? AND subject_uuid = ?');
  const upsertFeed = db.prepare(
    `INSERT INTO on_call_feeds(kind, subject_uuid, token_hash, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(kind, subject_uuid) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at`,
  );
  const delFeed = db.prepare('DELETE FROM on_call_feeds WHERE kind = ? AND subject_uuid = ?');
  const claimHandoff = db.prepare(
    `INSERT INTO on_call_handoff_notices(schedule_uuid, handoff_at, user_uuid, notified_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(schedule_uuid) DO UPDATE SET handoff_at = excluded.handoff_at, user_uuid = excluded.user_uuid, notified_at = excluded.notified_at
     WHERE on_call_handoff_notices.handoff_at < excluded.handoff_at`,
  );
  const delNotice = db.prepare('DELETE FROM on_call_handoff_notices WHERE schedule_uuid = ?');
  const lastHandoff = db.prepare<[string], { handoff_at: number }>('SELECT handoff_at FROM on_call_handoff_notices WHERE schedule_uuid = ?');
  const params = (uuid: string, w: OnCallScheduleWrite, now: number) => ({ uuid, name: w.name, team: w.team, description: w.description, timeZone: w.timeZone, layers: layersJson(w.layers), now });
  const get = (uuid: string): OnCallSchedule | undefined => {
    const r = byUuid.get(uuid);
    return r && toSchedule(r);
  };
  const list = (): OnCallSchedule[] => all.all().map(toSchedule);
  return {
    /** Every schedule, by name. */
    list,
    /** One by uuid, or undefined. */
    get,
    /** One by name (names are unique), or undefined. */
    getByName: (name: string): OnCallSchedule | undefined => {
      const r = byName.get(name);
      return r && toSchedule(r);
    },
    /** Adds one; `now` epoch ms. @throws the driver's unique-constraint error for a taken uuid or name (check `getByName` first) */
    insert(uuid: string, w: OnCallScheduleWrite, now: number): OnCallSchedule {
      insert.run(params(uuid, w, now));
      return get(uuid)!;
    },
    /** Replaces one's fields; undefined when there is none. @throws as {@link insert} */
    update(uuid: string, w: OnCallScheduleWrite, now: number): OnCallSchedule | undefined {
      return update.run(params(uuid, w, now)).changes === 1 ? get(uuid) : undefined;
    },
    /** Removes one with its overrides and its feed token; false when there is none. */
    delete(uuid: string): boolean {
      delOverridesOf.run(uuid);
      delFeed.run('schedule', uuid);
      delNotice.run(uuid);
      return del.run(uuid).changes === 1;
    },
    /** Overrides of schedule `scheduleUuid` overlapping [from, to) epoch ms, by start. */
    overrides: (scheduleUuid: string, from: number, to: number): OnCallOverride[] => overridesIn.all(scheduleUuid, from, to).map(toOverride),
    /** One override by uuid, or undefined. */
    getOverride: (uuid: string): OnCallOverride | undefined => {
      const r = overrideByUuid.get(uuid);
      return r && toOverride(r);
    },
    /** Adds an override (checked by the core). */
    insertOverride(o: OnCallOverride): OnCallOverride {
      insertOverride.run({ ...o });
      return o;
    },
    /** Removes an override; false when there is none. */
    deleteOverride: (uuid: string): boolean => delOverride.run(uuid).changes === 1,
    /**
     * `{uuid, name}` of the schedules that name user `userUuid` in a layer or an override, by name:
     * what a refusal to remove that person names. Layers filtered in JS (a few dozen rows; the same on
     * both drivers, no JSON operators).
     */
    usingUser(userUuid: string): Array<{ uuid: string; name: string }> {
      const viaOverride = new Set(overridesOfUser.all(userUuid).map((r) => r.schedule_uuid));
      return list()
        .filter((s) => viaOverride.has(s.uuid) || s.layers.some((l) => l.users.includes(userUuid)))
        .map((s) => ({ uuid: s.uuid, name: s.name }));
    },
    /** What the feed token with SHA-256 hex `tokenHash` is for, or undefined. */
    feedByHash(tokenHash: string): { kind: FeedKind; subjectUuid: string } | undefined {
      const r = feedByHash.get(tokenHash);
      return r && { kind: r.kind as FeedKind, subjectUuid: r.subject_uuid };
    },
    /** When the feed of `kind`/`subjectUuid` was made (epoch ms), or undefined when it has none. */
    feedCreatedAt: (kind: FeedKind, subjectUuid: string): number | undefined => feedOf.get(kind, subjectUuid)?.created_at,
    /** Sets (or replaces: the old token stops working) the feed token hash of `kind`/`subjectUuid`. */
    setFeed(kind: FeedKind, subjectUuid: string, tokenHash: string, now: number): void {
      upsertFeed.run(kind, subjectUuid, tokenHash, now);
    },
    /**
     * Claims the notice of schedule `scheduleUuid`'s hand-off at `handoffAt` (epoch ms) to `userUuid`:
     * true when this call moved the schedule's last notified hand-off forward to it (send the notice),
     * false when that hand-off or a later one was claimed already (by this or another instance).
     */
    claimHandoff: (scheduleUuid: string, handoffAt: number, userUuid: string, now: number): boolean => claimHandoff.run(scheduleUuid, handoffAt, userUuid, now).changes === 1,
    /** The last hand-off (epoch ms) whose notice was claimed for a schedule, or undefined. */
    lastHandoff: (scheduleUuid: string): number | undefined => lastHandoff.get(scheduleUuid)?.handoff_at,
    /** Removes a feed token; false when there was none. */
    deleteFeed: (kind: FeedKind, subjectUuid: string): boolean => delFeed.run(kind, subjectUuid).changes === 1,
  };
}

/** The on-call store's interface. */
export type OnCallStore = ReturnType<typeof onCallStore>;
