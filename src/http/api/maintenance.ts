import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { MaintenanceBody, maintenanceStatus, type MaintenanceWindow } from '../../domain/maintenance.ts';
import { iso } from '../../domain/time.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { BODY_ERRORS, COMMON_ERRORS, MessageSchema, NOT_FOUND, UuidParam, json, jsonBody } from './common.ts';

const Localized = z.record(z.string(), z.string()).openapi('LocalizedText');

/** Maintenance window as the API shows it (API.md §2.7 plus CONTRACT.md's `status` and settings). */
export const MaintenanceSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    start_date: z.string(),
    end_date: z.string(),
    monitors: z.array(z.string()),
    statuspages: z.array(z.string()),
    title: Localized.nullable(),
    updates: z.array(z.object({ text: Localized, date: z.string() })),
    notificationOption: z.enum(['none', 'immediate', 'scheduled']),
    notificationMinutes: z.number().int(),
    status: z.enum(['upcoming', 'ongoing', 'completed']),
    timezone: z.string().openapi({ description: 'always UTC: dates carry their zone' }),
    createdAt: z.string(),
  })
  .openapi('MaintenanceWindow');

const tags = ['Maintenance windows'];

/** /v1/maintenance-windows (API.md §4.5). */
export function maintenanceRouter(deps: Pick<HttpDeps, 'core' | 'clock'>) {
  const { core, clock } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const out = (w: MaintenanceWindow): z.infer<typeof MaintenanceSchema> => ({
    uuid: w.uuid,
    name: w.name,
    start_date: iso(w.startAt),
    end_date: iso(w.endAt),
    monitors: [...w.monitors].sort(),
    statuspages: w.statuspages,
    title: w.title,
    updates: w.updates.map((u) => ({ text: u.text, date: iso(u.date) })),
    notificationOption: w.notificationOption,
    notificationMinutes: w.notificationMinutes,
    status: maintenanceStatus(w, clock.now()),
    timezone: 'UTC',
    createdAt: iso(w.createdAt),
  });
  const item = { params: UuidParam };

  app.openapi(
    createRoute({ method: 'get', path: '/', tags, summary: 'List maintenance windows', responses: { 200: json(z.array(MaintenanceSchema), 'All windows'), ...COMMON_ERRORS } }),
    async (c) => c.json((await core.maintenance.list()).map(out), 200),
  );
  app.openapi(
    createRoute({ method: 'post', path: '/', tags, summary: 'Create a maintenance window', request: jsonBody(MaintenanceBody), responses: { 201: json(MaintenanceSchema, 'The created window (with its uuid)'), ...COMMON_ERRORS, ...BODY_ERRORS } }),
    async (c) => c.json(out(await core.maintenance.create(c.req.valid('json'))), 201),
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}', tags, summary: 'Get a maintenance window', request: item, responses: { 200: json(MaintenanceSchema, 'The window'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(out(await core.maintenance.get(c.req.valid('param').uuid)), 200),
  );
  app.openapi(
    createRoute({ method: 'put', path: '/{uuid}', tags, summary: 'Update a maintenance window (partial: fields left out keep their values; the merged window is validated)', request: { ...item, ...jsonBody(MaintenanceBody.partial()) }, responses: { 200: json(MaintenanceSchema, 'The window'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(out(await core.maintenance.update(c.req.valid('param').uuid, c.req.valid('json'))), 200),
  );
  app.openapi(
    createRoute({ method: 'delete', path: '/{uuid}', tags, summary: 'Delete a maintenance window', request: item, responses: { 200: json(MessageSchema, 'Deleted'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => {
      await core.maintenance.delete(c.req.valid('param').uuid);
      return c.json({ message: 'Maintenance window deleted' }, 200);
    },
  );
  return app;
}
