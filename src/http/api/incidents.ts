import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { COMPONENT_STATUSES, ComponentBody, IncidentBody, IncidentPatchBody, IncidentUpdateBody, INCIDENT_TYPES, UPDATE_TYPES, isIncidentResolved, type Component, type Incident } from '../../domain/incident.ts';
import { iso } from '../../domain/time.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { BODY_ERRORS, COMMON_ERRORS, MessageSchema, NOT_FOUND, UuidParam, json, jsonBody } from './common.ts';

const Localized = z.record(z.string(), z.string());
const UpdateSchema = z.object({ uuid: z.string(), date: z.string(), text: Localized, type: z.enum(UPDATE_TYPES) });

/** Incident as the API shows it (API.md §2.5 plus `isResolved`, `createdAt`, `updatedAt`). */
export const IncidentSchema = z
  .object({
    uuid: z.string(),
    date: z.string().openapi({ description: 'when it started: the date given, else its creation' }),
    title: Localized,
    text: Localized.nullable().openapi({ description: 'the text of the first update (the hosted service\'s initial message), or null' }),
    type: z.enum(INCIDENT_TYPES),
    affectedComponents: z.array(z.string()),
    statuspages: z.array(z.string()),
    updates: z.array(UpdateSchema).openapi({ description: 'sorted by date, oldest first' }),
    isResolved: z.boolean().openapi({ description: 'the newest update is `resolved`' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Incident');

/** Component (CONTRACT.md "Components"). */
export const ComponentSchema = z
  .object({ uuid: z.string(), name: z.string(), description: z.string().nullable(), status: z.enum(COMPONENT_STATUSES) })
  .openapi('Component');

const toIncidentJson = (i: Incident): z.infer<typeof IncidentSchema> => ({
  uuid: i.uuid,
  date: iso(i.startedAt ?? i.createdAt),
  title: i.title,
  text: i.updates[0]?.text ?? null,
  type: i.type,
  affectedComponents: i.affectedComponents,
  statuspages: i.statuspages,
  updates: i.updates.map((u) => ({ uuid: u.uuid, date: iso(u.at), text: u.text, type: u.type })),
  isResolved: isIncidentResolved(i.updates),
  createdAt: iso(i.createdAt),
  updatedAt: iso(i.updatedAt),
});
const toComponentJson = (c: Component): z.infer<typeof ComponentSchema> => ({ uuid: c.uuid, name: c.name, description: c.description, status: c.status });

/** /v3/incidents (API.md §4.3, CONTRACT.md "Incidents"). */
export function incidentsRouter(deps: Pick<HttpDeps, 'core'>) {
  const { core } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const tags = ['Incidents'];
  const item = { params: UuidParam };
  app.openapi(
    createRoute({ method: 'get', path: '/', tags, summary: 'List incidents, newest first', responses: { 200: json(z.array(IncidentSchema), 'All incidents'), ...COMMON_ERRORS } }),
    async (c) => c.json((await core.incidents.list()).map(toIncidentJson), 200),
  );
  app.openapi(
    createRoute({ method: 'post', path: '/', tags, summary: 'Create an incident', request: jsonBody(IncidentBody), responses: { 201: json(IncidentSchema.extend({ message: z.string() }), 'Created'), ...COMMON_ERRORS, ...BODY_ERRORS } }),
    // api.compatibility: hosted: the hosted service's recorded message (incident_crud.yaml).
    async (c) => c.json({ message: core.config.api.compatibility === 'hosted' ? 'Incident created successfully' : 'Incident created', ...toIncidentJson(await core.incidents.create(c.req.valid('json'))) }, 201),
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}', tags, summary: 'Get an incident', request: item, responses: { 200: json(IncidentSchema, 'The incident'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(toIncidentJson(await core.incidents.get(c.req.valid('param').uuid)), 200),
  );
  app.openapi(
    createRoute({ method: 'put', path: '/{uuid}', tags, summary: 'Update an incident (partial: fields left out keep their values; updates, when given, replace the timeline)', request: { ...item, ...jsonBody(IncidentPatchBody) }, responses: { 200: json(IncidentSchema, 'The incident'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(toIncidentJson(await core.incidents.update(c.req.valid('param').uuid, c.req.valid('json'))), 200),
  );
  app.openapi(
    createRoute({ method: 'delete', path: '/{uuid}', tags, summary: 'Delete an incident', request: item, responses: { 200: json(MessageSchema, 'Deleted'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => {
      await core.incidents.delete(c.req.valid('param').uuid);
      return c.json({ message: 'Incident deleted' }, 200);
    },
  );
  app.openapi(
    createRoute({ method: 'post', path: '/{uuid}/updates', tags, summary: 'Add an update (date defaults to now)', request: { ...item, ...jsonBody(IncidentUpdateBody) }, responses: { 200: json(IncidentSchema, 'The incident'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(toIncidentJson(await core.incidents.addUpdate(c.req.valid('param').uuid, c.req.valid('json'))), 200),
  );
  return app;
}

/** /v1/components (CONTRACT.md "Components"). */
export function componentsRouter(deps: Pick<HttpDeps, 'core'>) {
  const { core } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const tags = ['Components'];
  const item = { params: UuidParam };
  app.openapi(
    createRoute({ method: 'get', path: '/', tags, summary: 'List components', responses: { 200: json(z.array(ComponentSchema), 'All components'), ...COMMON_ERRORS } }),
    async (c) => c.json((await core.incidents.components.list()).map(toComponentJson), 200),
  );
  app.openapi(
    createRoute({ method: 'post', path: '/', tags, summary: 'Create a component', request: jsonBody(ComponentBody), responses: { 201: json(ComponentSchema, 'Created'), ...COMMON_ERRORS, ...BODY_ERRORS } }),
    async (c) => c.json(toComponentJson(await core.incidents.components.create(c.req.valid('json'))), 201),
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}', tags, summary: 'Get a component', request: item, responses: { 200: json(ComponentSchema, 'The component'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(toComponentJson(await core.incidents.components.get(c.req.valid('param').uuid)), 200),
  );
  app.openapi(
    createRoute({ method: 'put', path: '/{uuid}', tags, summary: 'Update a component (partial: fields left out keep their values)', request: { ...item, ...jsonBody(ComponentBody.partial()) }, responses: { 200: json(ComponentSchema, 'The component'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(toComponentJson(await core.incidents.components.update(c.req.valid('param').uuid, c.req.valid('json'))), 200),
  );
  app.openapi(
    createRoute({ method: 'delete', path: '/{uuid}', tags, summary: 'Delete a component', request: item, responses: { 200: json(MessageSchema, 'Deleted'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => {
      await core.incidents.components.delete(c.req.valid('param').uuid);
      return c.json({ message: 'Component deleted' }, 200);
    },
  );
  return app;
}
