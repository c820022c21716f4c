import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { apiActor } from '../audit-actor.ts';
import { readAfterWrite } from './answer-reads.ts';
import { BODY_ERRORS, COMMON_ERRORS, CONFLICT, MessageSchema, NOT_FOUND, UuidParam, json, jsonBody } from './common.ts';
import {
  CreateBody,
  FeedSchema,
  OnCallSchema,
  OverrideBody,
  OverrideSchema,
  ScheduleSchema,
  TimelineSchema,
  UpdateBody,
  bodyLayers,
  isoInstant,
  overrideJson,
  personJson,
  scheduleJson,
} from './on-call-schemas.ts';

const tags = ['On-call schedules'];
const DAY_MS = 86_400_000;

const AtQuery = z.object({ at: isoInstant.optional().openapi({ description: 'ISO 8601 date-time; default now' }) });
const RangeQuery = z.object({
  from: isoInstant.optional().openapi({ description: 'default now' }),
  to: isoInstant.optional().openapi({ description: 'default from + 7 days; at most 90 days after from' }),
});
const OverrideParams = z.object({
  uuid: z.string().min(1).max(100).openapi({ param: { name: 'uuid', in: 'path' } }),
  override: z.string().min(1).max(100).openapi({ param: { name: 'override', in: 'path' } }),
});
const UserParam = z.object({ user: z.string().min(1).max(100).openapi({ param: { name: 'user', in: 'path' } }) });

/** The secret feed URL of `token` under `publicUrl`. */
export const feedUrl = (publicUrl: string, token: string) => `${publicUrl.replace(/\/$/, '')}/ical/on-call/${token}.ics`;

/**
 * /v1/on-call-schedules (issue 34 point 2): schedules of layered rotations in a time zone, who is on
 * call at a time, the timeline of a range, overrides, and the secret iCal feed URLs (per schedule,
 * per person). Thin handlers: parse → core → JSON.
 */
export function onCallSchedulesRouter(deps: Pick<HttpDeps, 'core' | 'clock'>) {
  const { core, clock } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const render = async (views: Awaited<ReturnType<typeof core.onCall.list>>) => {
    const people = await core.onCall.people(views.flatMap((v) => [v.current?.userUuid, v.next?.userUuid].filter((u): u is string => u !== undefined)));
    return views.map((v) => scheduleJson(v.schedule, v.current, v.next, people));
  };

  app.openapi(
    createRoute({ method: 'get', path: '/', tags, summary: 'List on-call schedules, with who is on call now and next', responses: { 200: json(z.array(ScheduleSchema), 'All schedules, by name'), ...COMMON_ERRORS } }),
    async (c) => c.json(await render(await core.onCall.list()), 200),
  );
  app.openapi(
    createRoute({ method: 'post', path: '/', tags, summary: 'Create an on-call schedule', request: jsonBody(CreateBody), responses: { 201: json(ScheduleSchema, 'The created schedule'), ...COMMON_ERRORS, ...BODY_ERRORS, ...CONFLICT } }),
    async (c) => {
      const b = c.req.valid('json');
      const s = await core.onCall.create({ name: b.name, team: b.team, description: b.description, timeZone: b.time_zone, layers: bodyLayers(b.layers) }, apiActor(c.var.principal));
      // Who is on call now and next is read after the write; without it when the database cannot answer by then (answer-reads.ts).
      return c.json(await readAfterWrite(async () => (await render([await core.onCall.get(s.uuid)]))[0]!, scheduleJson(s, null, null, new Map())), 201);
    },
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}', tags, summary: 'Get an on-call schedule', request: { params: UuidParam }, responses: { 200: json(ScheduleSchema, 'The schedule'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json((await render([await core.onCall.get(c.req.valid('param').uuid)]))[0]!, 200),
  );
  for (const method of ['put', 'patch'] as const) {
    app.openapi(
      createRoute({
        method,
        path: '/{uuid}',
        tags,
        summary: 'Update an on-call schedule (partial: fields left out keep their values; layers replaced whole)',
        request: { params: UuidParam, ...jsonBody(UpdateBody) },
        responses: { 200: json(ScheduleSchema, 'The updated schedule'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND, ...CONFLICT },
      }),
      async (c) => {
        const b = c.req.valid('json');
        const uuid = c.req.valid('param').uuid;
        await core.onCall.update(uuid, { name: b.name, team: b.team, description: b.description, timeZone: b.time_zone, layers: b.layers && bodyLayers(b.layers) }, apiActor(c.var.principal));
        return c.json((await render([await core.onCall.get(uuid)]))[0]!, 200);
      },
    );
  }
  app.openapi(
    createRoute({
      method: 'delete',
      path: '/{uuid}',
      tags,
      summary: 'Delete an on-call schedule with its overrides and feed (409 on_call_schedules.in_use when an escalation policy step targets it)',
      request: { params: UuidParam },
      responses: { 200: json(MessageSchema, 'Deleted'), ...COMMON_ERRORS, ...NOT_FOUND, ...CONFLICT },
    }),
    async (c) => {
      await core.onCall.delete(c.req.valid('param').uuid, apiActor(c.var.principal));
      return c.json({ message: 'On-call schedule deleted' }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/{uuid}/on-call',
      tags,
      summary: 'Who is on call at a time (default now), since when, until when, and who is next',
      request: { params: UuidParam, query: AtQuery },
      responses: { 200: json(OnCallSchema, 'Who is on call'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const v = await core.onCall.onCallAt(c.req.valid('param').uuid, q.at === undefined ? undefined : Date.parse(q.at));
      const people = await core.onCall.people([v.current?.userUuid, v.next?.userUuid].filter((u): u is string => u !== undefined));
      return c.json(
        {
          schedule_uuid: v.schedule.uuid,
          at: new Date(v.at).toISOString(),
          on_call: v.current ? personJson(people, v.current.userUuid) : null,
          since: v.current ? new Date(v.current.start).toISOString() : null,
          until: v.current ? new Date(v.current.end).toISOString() : null,
          next: v.next ? { user: personJson(people, v.next.userUuid), start: new Date(v.next.start).toISOString(), end: new Date(v.next.end).toISOString() } : null,
        },
        200,
      );
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/{uuid}/timeline',
      tags,
      summary: 'Shifts and gaps over a range (at most 90 days; default the next 7 days)',
      request: { params: UuidParam, query: RangeQuery },
      responses: { 200: json(TimelineSchema, 'The timeline'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const uuid = c.req.valid('param').uuid;
      const from = q.from === undefined ? clock.now() : Date.parse(q.from);
      const to = q.to === undefined ? from + 7 * DAY_MS : Date.parse(q.to);
      const t = await core.onCall.timeline(uuid, from, to);
      const people = await core.onCall.people(t.shifts.map((s) => s.userUuid));
      const iso = (ms: number) => new Date(ms).toISOString();
      return c.json(
        {
          schedule_uuid: uuid,
          from: iso(t.from),
          to: iso(t.to),
          shifts: t.shifts.map((s) => ({ start: iso(s.start), end: iso(s.end), user: personJson(people, s.userUuid), layer: s.layer, override_uuid: s.overrideUuid })),
          gaps: t.gaps.map((g) => ({ start: iso(g.start), end: iso(g.end) })),
        },
        200,
      );
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/{uuid}/overrides',
      tags,
      summary: 'Overrides overlapping a range (default: from now on)',
      request: { params: UuidParam, query: RangeQuery },
      responses: { 200: json(z.array(OverrideSchema), 'Overrides, by start'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const from = q.from === undefined ? clock.now() : Date.parse(q.from);
      const to = q.to === undefined ? 8.64e15 : Date.parse(q.to);
      return c.json((await core.onCall.overrides(c.req.valid('param').uuid, from, to)).map(overrideJson), 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/{uuid}/overrides',
      tags,
      summary: 'Add an override: a person covers [start, end) over every layer',
      request: { params: UuidParam, ...jsonBody(OverrideBody) },
      responses: { 201: json(OverrideSchema, 'The override'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const b = c.req.valid('json');
      const o = await core.onCall.createOverride(c.req.valid('param').uuid, { userUuid: b.user_uuid, startsAt: Date.parse(b.start), endsAt: Date.parse(b.end), note: b.note }, apiActor(c.var.principal));
      return c.json(overrideJson(o), 201);
    },
  );
  app.openapi(
    createRoute({ method: 'delete', path: '/{uuid}/overrides/{override}', tags, summary: 'Remove an override', request: { params: OverrideParams }, responses: { 200: json(MessageSchema, 'Removed'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => {
      const p = c.req.valid('param');
      await core.onCall.deleteOverride(p.uuid, p.override, apiActor(c.var.principal));
      return c.json({ message: 'Override removed' }, 200);
    },
  );
  const feedRoutes = (path: string, kind: 'schedule' | 'user', params: typeof UuidParam | typeof UserParam, subject: (p: Record<string, string>) => string, what: string) => {
    app.openapi(
      createRoute({
        method: 'post',
        path,
        tags,
        summary: `A new secret iCal feed URL for ${what} (shown once; an older URL stops working)`,
        request: { params },
        responses: { 201: json(FeedSchema, 'The feed URL'), ...COMMON_ERRORS, ...NOT_FOUND },
      }),
      async (c) => {
        const token = await core.onCallFeeds.rotate(kind, subject(c.req.valid('param') as Record<string, string>), apiActor(c.var.principal));
        return c.json({ url: feedUrl(core.config.public_url, token), token, message: 'Keep this URL secret: anyone with it can read the shifts. Making a new one turns this one off.' }, 201);
      },
    );
    app.openapi(
      createRoute({ method: 'delete', path, tags, summary: `Turn off the iCal feed of ${what}`, request: { params }, responses: { 200: json(MessageSchema, 'Turned off'), ...COMMON_ERRORS, ...NOT_FOUND } }),
      async (c) => {
        await core.onCallFeeds.remove(kind, subject(c.req.valid('param') as Record<string, string>), apiActor(c.var.principal));
        return c.json({ message: 'iCal feed turned off' }, 200);
      },
    );
  };
  feedRoutes('/people/{user}/ical-feed', 'user', UserParam, (p) => p.user!, "a person's shifts in every schedule");
  feedRoutes('/{uuid}/ical-feed', 'schedule', UuidParam, (p) => p.uuid!, 'a schedule');
  return app;
}
