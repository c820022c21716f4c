import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { CHANNEL_TYPES } from '../../domain/channels/index.ts';
import type { Integration } from '../../domain/integration.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { invalid } from '../../lib/errors.ts';
import { apiActor } from '../audit-actor.ts';
import { BODY_ERRORS, COMMON_ERRORS, CONFLICT, MessageSchema, NOT_FOUND, UuidParam, json, jsonBody } from './common.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const IntegrationSchema = z
  .object({
    uuid: z.string().openapi({ example: 'int_4kTq0bS7nW1x' }),
    name: z.string(),
    type: z.enum(CHANNEL_TYPES as [string, ...string[]]).openapi({ description: 'the channel kind (docs/operations.md "Alert channels")' }),
    enabled: z.boolean(),
    settings: z.record(z.string(), z.unknown()).openapi({ description: 'the kind\'s fields; every secret that is set reads "***" (send "***" back to keep it)' }),
    provisioned: z.boolean().openapi({ description: 'declared in config.yaml: read-only here (409 integrations.provisioned)' }),
    last_test_at: z.string().nullable(),
    last_test_result: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Integration');

/** Stored integration → API shape (secrets are `***` already: the store hands out nothing else). */
export function toIntegrationJson(i: Integration): z.infer<typeof IntegrationSchema> {
  return {
    uuid: i.uuid,
    name: i.name,
    type: i.kind,
    enabled: i.enabled,
    settings: i.settings,
    provisioned: i.provisioned,
    last_test_at: iso(i.lastTestAt),
    last_test_result: i.lastTestResult,
    created_at: iso(i.createdAt)!,
    updated_at: iso(i.updatedAt)!,
  };
}

const Settings = z.record(z.string(), z.unknown(), { error: 'must be an object of the kind\'s fields' });
const CreateBody = z
  .strictObject({
    name: z.string({ error: 'is required and must be a string' }),
    type: z.string({ error: 'is required: one of ' + CHANNEL_TYPES.join(', ') }),
    enabled: z.boolean({ error: 'must be true or false' }).optional(),
    settings: Settings.optional(),
  })
  .openapi('IntegrationCreate');
const UpdateBody = z
  .strictObject({
    name: z.string({ error: 'must be a string' }).optional(),
    type: z.string().optional().openapi({ description: 'may be sent back as read; a different kind is refused (create a new integration)' }),
    enabled: z.boolean({ error: 'must be true or false' }).optional(),
    settings: Settings.optional(),
    // Read-only fields may be sent back as read (a client writing what it got); they are ignored.
    uuid: z.string().optional(),
    provisioned: z.boolean().optional(),
    last_test_at: z.string().nullable().optional(),
    last_test_result: z.string().nullable().optional(),
    created_at: z.string().optional(),
    updated_at: z.string().optional(),
  })
  .openapi('IntegrationUpdate');

const TestAnswer = z
  .object({
    uuid: z.string(),
    name: z.string(),
    type: z.string(),
    ok: z.boolean(),
    answers: z.array(z.object({ kind: z.enum(['alert', 'recovery']), status: z.number().nullable(), body: z.string() })),
    error: z.string().nullable(),
  })
  .openapi('IntegrationTest');

const tags = ['Integrations'];

/**
 * /v1/integrations (issue 32 point 1): stored alert channels. Thin handlers: parse → core → JSON;
 * secrets never leave (`***`), provisioned ones are read-only (409).
 */
export function integrationsRouter(deps: Pick<HttpDeps, 'core'>) {
  const { core } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.openapi(
    createRoute({ method: 'get', path: '/', tags, summary: 'List integrations (secrets "***")', responses: { 200: json(z.array(IntegrationSchema), 'All integrations, by name'), ...COMMON_ERRORS } }),
    async (c) => c.json((await core.integrations.list()).map(toIntegrationJson), 200),
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags,
      summary: 'Create an integration',
      request: jsonBody(CreateBody),
      responses: { 201: json(IntegrationSchema, 'The created integration'), ...COMMON_ERRORS, ...BODY_ERRORS, 409: json(z.object({ error: z.string(), message: z.string() }), 'Name taken (integrations.name_taken)') },
    }),
    async (c) => {
      const b = c.req.valid('json');
      const created = await core.integrations.create({ name: b.name, kind: b.type as Integration['kind'], enabled: b.enabled, settings: b.settings ?? {} }, apiActor(c.var.principal));
      return c.json(toIntegrationJson(created), 201);
    },
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}', tags, summary: 'Get an integration (secrets "***")', request: { params: UuidParam }, responses: { 200: json(IntegrationSchema, 'The integration'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(toIntegrationJson(await core.integrations.get(c.req.valid('param').uuid)), 200),
  );
  for (const method of ['put', 'patch'] as const) {
    app.openapi(
      createRoute({
        method,
        path: '/{uuid}',
        tags,
        summary: 'Update an integration (partial: settings merged key by key; "***" keeps a stored secret; the merged settings are validated)',
        request: { params: UuidParam, ...jsonBody(UpdateBody) },
        responses: { 200: json(IntegrationSchema, 'The updated integration'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND, ...CONFLICT },
      }),
      async (c) => {
        const { uuid } = c.req.valid('param');
        const b = c.req.valid('json');
        if (b.type !== undefined) {
          const current = await core.integrations.get(uuid);
          if (b.type !== current.kind) throw invalidType(current.kind);
        }
        return c.json(toIntegrationJson(await core.integrations.update(uuid, { name: b.name, enabled: b.enabled, settings: b.settings }, apiActor(c.var.principal))), 200);
      },
    );
  }
  app.openapi(
    createRoute({
      method: 'delete',
      path: '/{uuid}',
      tags,
      summary: 'Delete an integration (409 integrations.in_use naming the policies that alert it)',
      request: { params: UuidParam },
      responses: { 200: json(MessageSchema, 'Deleted'), ...COMMON_ERRORS, ...NOT_FOUND, ...CONFLICT },
    }),
    async (c) => {
      await core.integrations.delete(c.req.valid('param').uuid, apiActor(c.var.principal));
      return c.json({ message: 'Integration deleted' }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/{uuid}/test',
      tags,
      summary: 'Send a test alert through the integration and answer with the provider\'s answer',
      request: { params: UuidParam },
      responses: { 200: json(TestAnswer, 'What the provider answered (ok false: not delivered, error says why)'), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const { uuid } = c.req.valid('param');
      const r = await core.integrations.test(uuid, apiActor(c.var.principal));
      return c.json({ uuid, name: r.channel, type: r.type, ok: r.ok, answers: r.answers, error: r.error }, 200);
    },
  );
  return app;
}

/** 400 for a body changing an integration's kind: a kind is chosen at creation. */
function invalidType(kind: string) {
  return invalid('type', `is ${kind} and cannot change (create a new integration of the other kind)`);
}
