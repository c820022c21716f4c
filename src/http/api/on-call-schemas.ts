import { z } from '@hono/zod-openapi';
import type { Stretch } from '../../domain/on-call/rotation.ts';
import { ROTATION_TYPES, ROTATION_UNITS, rotationLength, type Layer, type OnCallOverride, type OnCallSchedule, type RotationType, type RotationUnit } from '../../domain/on-call/schedule.ts';
import type { User } from '../../domain/user.ts';

/**
 * Schemas of /v1/on-call-schedules (issue 34 point 2): the answers (hosted-service fields
 * `current_oncall`, `next_oncall`, `rotation_start`, `rotation_end`, `team` plus Pharos' layers) and
 * the bodies, and the mapping from stored values to them.
 */

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null | undefined) => (ms == null ? null : iso(ms));

/** A person as answers show them. */
export const PersonSchema = z.object({ uuid: z.string(), name: z.string(), email: z.string() }).openapi('OnCallPerson');

const RotationSchema = z.object({
  type: z.enum(ROTATION_TYPES).openapi({ description: 'daily (1 day), weekly (7 days) or custom (length × unit)' }),
  length: z.number().openapi({ description: 'turn length in unit (daily: 1, weekly: 7)' }),
  unit: z.enum(ROTATION_UNITS).openapi({ description: 'days count calendar days (hand-offs stay at handoff_time local across DST); hours count elapsed hours' }),
  handoff_time: z.string().openapi({ example: '09:00', description: 'HH:MM in the schedule time zone' }),
  start_date: z.string().openapi({ example: '2026-01-05', description: 'YYYY-MM-DD: the first turn (users[0]) starts that day at handoff_time' }),
});
const RestrictionSchema = z.object({
  days: z.array(z.number()).openapi({ description: 'ISO weekdays, 1 Monday … 7 Sunday' }),
  start: z.string().openapi({ example: '09:00' }),
  end: z.string().openapi({ example: '18:00', description: 'HH:MM or 24:00; not after start: runs past midnight' }),
});
const LayerSchema = z.object({ name: z.string(), users: z.array(z.string()).openapi({ description: 'user uuids in turn order' }), rotation: RotationSchema, restrictions: z.array(RestrictionSchema) });

/** A schedule as the API answers it. */
export const ScheduleSchema = z
  .object({
    uuid: z.string().openapi({ example: 'sched_3bWv1Zs9Qk2pL0aXy7TfNc' }),
    name: z.string(),
    team: z.string().nullable(),
    description: z.string().nullable(),
    time_zone: z.string().openapi({ example: 'Europe/Berlin' }),
    layers: z.array(LayerSchema).openapi({ description: 'bottom layer first: a later layer wins where it has someone; overrides win over all' }),
    current_oncall: z.string().nullable().openapi({ description: 'uuid of who is on call now (hosted-service field), or null' }),
    next_oncall: z.string().nullable().openapi({ description: 'uuid of who takes over at rotation_end, or null' }),
    rotation_start: z.string().nullable().openapi({ description: 'when the current person came on call (looked back at most 35 days)' }),
    rotation_end: z.string().nullable().openapi({ description: 'the next hand-off (looked ahead at most 90 days)' }),
    current_oncall_user: PersonSchema.nullable(),
    next_oncall_user: PersonSchema.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('OnCallSchedule');

/** Who is on call at a time. */
export const OnCallSchema = z
  .object({
    schedule_uuid: z.string(),
    at: z.string(),
    on_call: PersonSchema.nullable().openapi({ description: 'null: nobody (a gap)' }),
    since: z.string().nullable(),
    until: z.string().nullable(),
    next: z.object({ user: PersonSchema, start: z.string(), end: z.string() }).nullable(),
  })
  .openapi('OnCallAt');

/** A timeline of shifts and gaps. */
export const TimelineSchema = z
  .object({
    schedule_uuid: z.string(),
    from: z.string(),
    to: z.string(),
    shifts: z.array(z.object({ start: z.string(), end: z.string(), user: PersonSchema, layer: z.number().nullable().openapi({ description: 'layer index, null for an override' }), override_uuid: z.string().nullable() })),
    gaps: z.array(z.object({ start: z.string(), end: z.string() })),
  })
  .openapi('OnCallTimeline');

/** An override as the API answers it. */
export const OverrideSchema = z
  .object({ uuid: z.string(), schedule_uuid: z.string(), user_uuid: z.string(), start: z.string(), end: z.string(), note: z.string().nullable(), created_at: z.string() })
  .openapi('OnCallOverride');

/** A feed URL, shown once. */
export const FeedSchema = z.object({ url: z.string(), token: z.string(), message: z.string() }).openapi('OnCallFeed');

const person = (people: Map<string, User>, uuid: string) => {
  const u = people.get(uuid);
  return { uuid, name: u?.name ?? uuid, email: u?.email ?? '' };
};
/** The person for `uuid` as answers show them ({uuid} alone when unknown). */
export const personJson = person;

/** Stored layers → API shape. */
export const layersJson = (layers: Layer[]) =>
  layers.map((l) => ({
    name: l.name,
    users: l.users,
    rotation: { type: l.rotation.type, length: l.rotation.length, unit: l.rotation.unit, handoff_time: l.rotation.handoffTime, start_date: l.rotation.startDate },
    restrictions: l.restrictions.map((r) => ({ days: r.days, start: r.start, end: r.end })),
  }));

/** A schedule with who is on call now and next → API shape. */
export function scheduleJson(s: OnCallSchedule, current: Stretch | null, next: Stretch | null, people: Map<string, User>): z.infer<typeof ScheduleSchema> {
  return {
    uuid: s.uuid,
    name: s.name,
    team: s.team,
    description: s.description,
    time_zone: s.timeZone,
    layers: layersJson(s.layers),
    current_oncall: current?.userUuid ?? null,
    next_oncall: next?.userUuid ?? null,
    rotation_start: isoOrNull(current?.start),
    rotation_end: isoOrNull(current ? current.end : next?.start),
    current_oncall_user: current ? person(people, current.userUuid) : null,
    next_oncall_user: next ? person(people, next.userUuid) : null,
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
  };
}

/** Stored override → API shape. */
export const overrideJson = (o: OnCallOverride): z.infer<typeof OverrideSchema> => ({
  uuid: o.uuid,
  schedule_uuid: o.scheduleUuid,
  user_uuid: o.userUuid,
  start: iso(o.startsAt),
  end: iso(o.endsAt),
  note: o.note,
  created_at: iso(o.createdAt),
});

/** An ISO 8601 date-time with a zone (`Z` or an offset). */
export const isoInstant = z
  .string({ error: 'must be an ISO 8601 date-time with a zone, e.g. 2026-06-01T09:00:00Z' })
  .max(40, 'must be an ISO 8601 date-time')
  .refine((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date-time with a zone, e.g. 2026-06-01T09:00:00Z');

const BodyRotation = z.strictObject({
  type: z.string({ error: `is required: one of ${ROTATION_TYPES.join(', ')}` }),
  length: z.number({ error: 'must be a whole number' }).optional().openapi({ description: 'custom only' }),
  unit: z.string({ error: `must be one of ${ROTATION_UNITS.join(', ')}` }).optional().openapi({ description: 'custom only; default days' }),
  handoff_time: z.string({ error: 'is required: HH:MM' }),
  start_date: z.string({ error: 'is required: YYYY-MM-DD' }),
});
const BodyRestriction = z.strictObject({
  days: z.array(z.number({ error: 'must be ISO weekdays 1 to 7' }), { error: 'is required: ISO weekdays 1 (Monday) to 7 (Sunday)' }),
  start: z.string({ error: 'is required: HH:MM' }),
  end: z.string({ error: 'is required: HH:MM' }),
});
const BodyLayer = z.strictObject({
  name: z.string({ error: 'must be a string' }).optional().openapi({ description: 'default "Layer n"' }),
  users: z.array(z.string({ error: 'must be a user uuid' }), { error: 'is required: user uuids in turn order' }),
  rotation: BodyRotation,
  restrictions: z.array(BodyRestriction, { error: 'must be an array of {days, start, end}' }).optional(),
});
const fields = {
  name: z.string({ error: 'is required and must be a string' }),
  team: z.string({ error: 'must be a string or null' }).nullable().optional(),
  description: z.string({ error: 'must be a string or null' }).nullable().optional(),
  time_zone: z.string({ error: 'is required: an IANA time zone name such as Europe/Berlin' }),
  layers: z.array(BodyLayer, { error: 'is required: an array of {name, users, rotation, restrictions}' }),
};
/** Create body. */
export const CreateBody = z.strictObject(fields).openapi('OnCallScheduleCreate');
/** Partial update body: fields left out keep their values (`layers` replaced whole); read-only fields may be sent back as read. */
export const UpdateBody = z
  .strictObject({
    ...fields,
    name: fields.name.optional(),
    time_zone: fields.time_zone.optional(),
    layers: fields.layers.optional(),
    uuid: z.string().optional(),
    current_oncall: z.unknown().optional(),
    next_oncall: z.unknown().optional(),
    rotation_start: z.unknown().optional(),
    rotation_end: z.unknown().optional(),
    current_oncall_user: z.unknown().optional(),
    next_oncall_user: z.unknown().optional(),
    created_at: z.string().optional(),
    updated_at: z.string().optional(),
  })
  .openapi('OnCallScheduleUpdate');
/** Override create body. */
export const OverrideBody = z
  .strictObject({ user_uuid: z.string({ error: 'is required: a user uuid' }), start: isoInstant, end: isoInstant, note: z.string({ error: 'must be a string or null' }).nullable().optional() })
  .openapi('OnCallOverrideCreate');

/** Body layers → domain layers (shape only; checkSchedule checks the values). */
export const bodyLayers = (layers: z.infer<typeof BodyLayer>[]): Layer[] =>
  layers.map((l, i) => {
    const len = rotationLength(l.rotation.type as RotationType, l.rotation.length, l.rotation.unit as RotationUnit | undefined);
    return {
      name: l.name ?? `Layer ${i + 1}`,
      users: l.users,
      rotation: { type: l.rotation.type as RotationType, length: len.length, unit: len.unit, handoffTime: l.rotation.handoff_time, startDate: l.rotation.start_date },
      restrictions: (l.restrictions ?? []).map((r) => ({ days: r.days, start: r.start, end: r.end })),
    };
  });
