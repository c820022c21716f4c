import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { StatuspageBody, type Statuspage } from '../../domain/statuspage.ts';
import { iso } from '../../domain/time.ts';
import type { SsoConnection } from '../../domain/sso-connection.ts';
import type { Config } from '../../config/schema.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { BODY_ERRORS, COMMON_ERRORS, CONFLICT, MessageSchema, NOT_FOUND, UuidParam, json, jsonBody } from './common.ts';

/** Status page as the API shows it, under `statuspage` (API.md §2.9, CONTRACT.md "Status pages (v2)"). */
export const StatuspageSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    subdomain: z.string(),
    hostname: z.string().nullable(),
    hostedsubdomain: z.string(),
    url: z.string(),
    password_protected: z.boolean(),
    settings: z.record(z.string(), z.unknown()).openapi({ description: 'every setting of the create body (never the password), authentication with sso_connection' }),
    sections: z.array(z.unknown()),
    createdAt: z.string(),
  })
  .openapi('Statuspage');

/** The hosted domain: config `status_pages.hosted_domain`, else the host of `public_url`. */
export function hostedDomain(config: Pick<Config, 'status_pages' | 'public_url'>): string {
  return config.status_pages.hosted_domain ?? new URL(config.public_url).hostname;
}

/**
 * Domain status page → API shape. `settings.authentication.sso_connection` is `{uuid, name, provider}`
 * of the page's SAML connection (looked up with `connection`), or null.
 */
export function toStatuspageJson(
  s: Statuspage,
  config: Pick<Config, 'status_pages' | 'public_url'>,
  connection: (uuid: string) => SsoConnection | undefined = () => undefined,
): z.infer<typeof StatuspageSchema> {
  const conn = s.settings.authentication.sso_connection_uuid ? connection(s.settings.authentication.sso_connection_uuid) : undefined;
  return {
    uuid: s.uuid,
    name: s.name,
    subdomain: s.subdomain,
    hostname: s.hostname,
    hostedsubdomain: `${s.subdomain}.${hostedDomain(config)}`,
    url: s.hostname ? `https://${s.hostname}` : `${config.public_url.replace(/\/+$/, '')}/status/${s.subdomain}`,
    password_protected: s.settings.authentication.password_protection && s.passwordHash !== null,
    settings: { ...s.settings, authentication: { ...s.settings.authentication, sso_connection: conn ? { uuid: conn.uuid, name: conn.name, provider: conn.provider } : null } },
    sections: s.sections,
    createdAt: iso(s.createdAt),
  };
}

const ListQuery = z.object({
  page: z.coerce.number({ error: 'must be a whole number ≥ 0' }).int('must be a whole number ≥ 0').min(0, 'must be a whole number ≥ 0').max(1_000_000).default(0),
});
const tags = ['Status pages'];
const Wrapped = z.object({ statuspage: StatuspageSchema });

/** /v2/statuspages (API.md §4.7, CONTRACT.md "Status pages (v2)"). */
export function statuspagesRouter(deps: Pick<HttpDeps, 'core'>) {
  const { core } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const out = (s: Statuspage) => toStatuspageJson(s, core.config, core.identity.connections.find);
  const item = { params: UuidParam };
  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags,
      summary: 'List status pages, 20 per page',
      request: { query: ListQuery },
      responses: { 200: json(z.object({ statuspages: z.array(StatuspageSchema), hasNextPage: z.boolean(), total: z.number(), page: z.number(), resultsPerPage: z.number() }), 'A page'), ...COMMON_ERRORS },
    }),
    (c) => {
      const r = core.statuspages.list(c.req.valid('query').page);
      return c.json({ ...r, statuspages: r.statuspages.map(out) }, 200);
    },
  );
  app.openapi(
    createRoute({ method: 'post', path: '/', tags, summary: 'Create a status page', request: jsonBody(StatuspageBody), responses: { 201: json(Wrapped.extend({ message: z.string() }), 'Created'), ...COMMON_ERRORS, ...BODY_ERRORS, ...CONFLICT } }),
    async (c) => c.json({ message: 'Status page created', statuspage: out(await core.statuspages.create(c.req.valid('json'))) }, 201),
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}', tags, summary: 'Get a status page', request: item, responses: { 200: json(Wrapped, 'The page'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    (c) => c.json({ statuspage: out(core.statuspages.get(c.req.valid('param').uuid)) }, 200),
  );
  app.openapi(
    createRoute({ method: 'put', path: '/{uuid}', tags, summary: 'Update a status page (fields left out keep their values; sections replace all)', request: { ...item, ...jsonBody(StatuspageBody) }, responses: { 200: json(Wrapped, 'The page'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND, ...CONFLICT } }),
    async (c) => c.json({ statuspage: out(await core.statuspages.update(c.req.valid('param').uuid, c.req.valid('json'))) }, 200),
  );
  app.openapi(
    createRoute({ method: 'delete', path: '/{uuid}', tags, summary: 'Delete a status page', request: item, responses: { 200: json(MessageSchema, 'Deleted'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    (c) => {
      core.statuspages.delete(c.req.valid('param').uuid);
      return c.json({ message: 'Status page deleted' }, 200);
    },
  );
  return app;
}
