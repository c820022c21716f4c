import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { MaintenanceBody, maintenanceStatus, type MaintenanceWindow } from '../../domain/maintenance.ts';
import { RECURRENCE_STRATEGIES } from '../../domain/maintenance-recurrence.ts';
import { iso } from '../../domain/time.ts';
import { recurrenceBody } from '../../core/maintenance.ts';
import { apiActor } from '../audit-actor.ts';
import { readAfterWrite } from './answer-reads.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { BODY_ERRORS, COMMON_ERRORS, CONFLICT, MessageSchema, NOT_FOUND, UuidParam, json, jsonBody } from './common.ts';

const Localized = z.record(z.string(), z.string()).openapi('LocalizedText');

const Occurrence = z.object({ start_date: z.string(), end_date: z.string() }).openapi('MaintenanceOccurrence');

/** A window's repetition as the API shows it (docs/api.md "Maintenance windows"). */
const RecurrenceOut = z
  .object({
    strategy: z.enum(RECURRENCE_STRATEGIES),
    start_time: z.string().optional().openapi({ description: 'local time of day HH:MM in `timezone` (daily, weekly, monthly)' }),
    duration_minutes: z.number().int(),
    days_of_week: z.array(z.number().int()).openapi({ description: 'weekly: 0 = Sunday … 6 = Saturday' }),
    days_of_month: z.array(z.union([z.number().int(), z.literal('last')])).openapi({ description: 'monthly: 1–31 or "last"; months without the day skip it' }),
    cron: z.string().optional().openapi({ description: 'cron strategy: 5 fields, read in `timezone`' }),
    valid_from: z.string(),
    valid_until: z.string().nullable(),
  })
  .openapi('MaintenanceRecurrence');

/** Maintenance window as the API shows it (API.md §2.7 plus CONTRACT.md's `status` and settings). */
export const MaintenanceSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    start_date: z.string().openapi({ description: 'one-off: the start; recurring: the ongoing occurrence\'s start, else the next, else the last' }),
    end_date: z.string(),
    recurrence: RecurrenceOut.nullable().openapi({ description: 'null: a one-off window' }),
    next_occurrences: z.array(Occurrence).openapi({ description: 'up to 5 occurrences from now on, the ongoing one first' }),
    monitors: z.array(z.string()),
    statuspages: z.array(z.string()),
    title: Localized.nullable(),
    updates: z.array(z.object({ text: Localized, date: z.string() })),
    notificationOption: z.enum(['none', 'immediate', 'scheduled']),
    notificationMinutes: z.number().int(),
    status: z.enum(['upcoming', 'ongoing', 'completed']),
    timezone: z.string().openapi({ description: 'IANA zone a recurrence\'s times of day are read in (dates carry their own offset)' }),
    createdAt: z.string(),
    createdBy: z.string().nullable().openapi({ description: 'who created it, as the audit log names them; null for windows older than the audit log' }),
  })
  .openapi('MaintenanceWindow');

const tags = ['Maintenance windows'];

/** /v1/maintenance-windows (API.md §4.5). */
export function maintenanceRouter(deps: Pick<HttpDeps, 'core' | 'clock'>) {
  const { core, clock } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  /** `by`: who created each window (core.maintenance.createdBy), read for the windows answered. */
  const out = (w: MaintenanceWindow, by: Readonly<Record<string, string>>): z.infer<typeof MaintenanceSchema> => ({
    uuid: w.uuid,
    name: w.name,
    start_date: iso(w.startAt),
    end_date: iso(w.endAt),
    recurrence: w.recurrence && (recurrenceBody(w.recurrence) as z.infer<typeof RecurrenceOut>),
    next_occurrences: w.upcoming.map((o) => ({ start_date: iso(o.startAt), end_date: iso(o.endAt) })),
    monitors: [...w.monitors].sort(),
    statuspages: w.statuspages,
    title: w.title,
    updates: w.updates.map((u) => ({ text: u.text, date: iso(u.date) })),
    notificationOption: w.notificationOption,
    notificationMinutes: w.notificationMinutes,
    status: maintenanceStatus(w, clock.now()),
    timezone: w.timezone,
    createdAt: iso(w.createdAt),
    createdBy: by[w.uuid] ?? null,
  });
  const one = async (w: MaintenanceWindow) => out(w, await core.maintenance.createdBy([w.uuid]));
  /** A write's answer: its creator read after it, null when the database cannot answer by then (answer-reads.ts). */
  const written = async (w: MaintenanceWindow) => out(w, await readAfterWrite(() => core.maintenance.createdBy([w.uuid]), {}));
  const item = { params: UuidParam };

  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags,
      summary: 'List maintenance windows: an array; with api.compatibility: hosted, {maintenanceWindows, hasNextPage, total} (all on page 0)',
      request: { query: z.object({ page: z.string().optional().openapi({ description: 'api.compatibility: hosted only: 0 holds every window, later pages none' }) }) },
      responses: { 200: json(z.union([z.array(MaintenanceSchema), z.object({ maintenanceWindows: z.array(MaintenanceSchema), hasNextPage: z.boolean(), total: z.number() })]), 'All windows'), ...COMMON_ERRORS },
    }),
    async (c) => {
      const windows = await core.maintenance.list();
      const by = await core.maintenance.createdBy(windows.map((w) => w.uuid));
      const all = windows.map((w) => out(w, by));
      if (core.config.api.compatibility !== 'hosted') return c.json(all, 200);
      // The hosted service's list (maintenance_list.yaml); hyperping-go's ListMaintenance asks ?page=N until hasNextPage is false.
      const first = (c.req.valid('query').page ?? '0') === '0';
      return c.json({ maintenanceWindows: first ? all : [], hasNextPage: false, total: all.length }, 200);
    },
  );
  app.openapi(
    createRoute({ method: 'post', path: '/', tags, summary: 'Create a maintenance window', request: jsonBody(MaintenanceBody), responses: { 201: json(MaintenanceSchema, 'The created window (with its uuid)'), ...COMMON_ERRORS, ...BODY_ERRORS } }),
    async (c) => c.json(await written(await core.maintenance.create(c.req.valid('json'), apiActor(c.var.principal))), 201),
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}', tags, summary: 'Get a maintenance window', request: item, responses: { 200: json(MaintenanceSchema, 'The window'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(await one(await core.maintenance.get(c.req.valid('param').uuid)), 200),
  );
  app.openapi(
    createRoute({ method: 'put', path: '/{uuid}', tags, summary: 'Update a maintenance window (partial: fields left out keep their values; the merged window is validated)', request: { ...item, ...jsonBody(MaintenanceBody.partial()) }, responses: { 200: json(MaintenanceSchema, 'The window'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(await written(await core.maintenance.update(c.req.valid('param').uuid, c.req.valid('json'), apiActor(c.var.principal))), 200),
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/{uuid}/end',
      tags,
      summary: 'End the ongoing occurrence now (a one-off window ends now; a recurring one keeps its later occurrences); alerts held by it flow again',
      request: item,
      responses: { 200: json(MaintenanceSchema, 'The window'), ...COMMON_ERRORS, ...NOT_FOUND, ...CONFLICT },
    }),
    async (c) => c.json(await one(await core.maintenance.endNow(c.req.valid('param').uuid, apiActor(c.var.principal))), 200),
  );
  app.openapi(
    createRoute({ method: 'delete', path: '/{uuid}', tags, summary: 'Delete a maintenance window', request: item, responses: { 200: json(MessageSchema, 'Deleted'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => {
      await core.maintenance.delete(c.req.valid('param').uuid, apiActor(c.var.principal));
      return c.json({ message: 'Maintenance window deleted' }, 200);
    },
  );
  return app;
}
