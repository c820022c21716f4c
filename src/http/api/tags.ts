import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { TagColor, TagName, type Tag } from '../../domain/tags.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { apiActor } from '../audit-actor.ts';
import { BODY_ERRORS, COMMON_ERRORS, CONFLICT, MessageSchema, NOT_FOUND, UuidParam, json, jsonBody } from './common.ts';

const iso = (ms: number) => new Date(ms).toISOString();

const TagSchema = z
  .object({
    uuid: z.string().openapi({ example: 'tag_4mXbT0hUq3wRQyLk9eZ2Nc' }),
    name: z.string().openapi({ example: 'prod' }),
    color: z.string().openapi({ description: '#rrggbb', example: '#2563eb' }),
    monitors: z.number().int().optional().openapi({ description: 'how many monitors carry it (lists only)' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Tag');

/** Stored tag → API shape. */
export function toTagJson(t: Tag & { monitors?: number }): z.infer<typeof TagSchema> {
  return { uuid: t.uuid, name: t.name, color: t.color, ...(t.monitors !== undefined ? { monitors: t.monitors } : {}), created_at: iso(t.createdAt), updated_at: iso(t.updatedAt) };
}

const CreateBody = z.object({ name: TagName, color: TagColor.optional() }).openapi('TagCreate');
const UpdateBody = z.object({ name: TagName.optional(), color: TagColor.optional() }).openapi('TagUpdate');
const routeTags = ['Tags'];

/**
 * /v1/tags (issue 33 point 5): tags' names and colours. Monitors carry tags through their own `tags`
 * field (`/v1/monitors`); a name given there that is not stored yet makes a tag of a default colour.
 * Thin handlers: parse → core → JSON.
 */
export function tagsRouter(deps: Pick<HttpDeps, 'core'>) {
  const { core } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.openapi(
    createRoute({ method: 'get', path: '/', tags: routeTags, summary: 'List tags', responses: { 200: json(z.array(TagSchema), 'All tags, by name'), ...COMMON_ERRORS } }),
    async (c) => c.json((await core.tags.list()).map(toTagJson), 200),
  );
  app.openapi(
    createRoute({ method: 'post', path: '/', tags: routeTags, summary: 'Create a tag', request: jsonBody(CreateBody), responses: { 201: json(TagSchema, 'The created tag'), ...COMMON_ERRORS, ...BODY_ERRORS, ...CONFLICT } }),
    async (c) => c.json(toTagJson(await core.tags.create(c.req.valid('json'), apiActor(c.var.principal))), 201),
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}', tags: routeTags, summary: 'Get a tag', request: { params: UuidParam }, responses: { 200: json(TagSchema, 'The tag'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(toTagJson(await core.tags.get(c.req.valid('param').uuid)), 200),
  );
  for (const method of ['put', 'patch'] as const) {
    app.openapi(
      createRoute({
        method,
        path: '/{uuid}',
        tags: routeTags,
        summary: 'Rename or recolour a tag (fields left out keep their values; every monitor carrying it shows the new name)',
        request: { params: UuidParam, ...jsonBody(UpdateBody) },
        responses: { 200: json(TagSchema, 'The updated tag'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND, ...CONFLICT },
      }),
      async (c) => c.json(toTagJson(await core.tags.update(c.req.valid('param').uuid, c.req.valid('json'), apiActor(c.var.principal))), 200),
    );
  }
  app.openapi(
    createRoute({ method: 'delete', path: '/{uuid}', tags: routeTags, summary: 'Delete a tag (it leaves every monitor)', request: { params: UuidParam }, responses: { 200: json(MessageSchema, 'Deleted'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => {
      await core.tags.delete(c.req.valid('param').uuid, apiActor(c.var.principal));
      return c.json({ message: 'Tag deleted' }, 200);
    },
  );
  return app;
}
