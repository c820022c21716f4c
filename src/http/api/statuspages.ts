import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { StatuspageBody, StatuspagePatchBody, textMap, type PageService, type Statuspage } from '../../domain/statuspage.ts';
import { iso } from '../../domain/time.ts';
import type { SsoConnection } from '../../domain/sso-connection.ts';
import type { Config } from '../../config/schema.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { BODY_ERRORS, COMMON_ERRORS, CONFLICT, MessageSchema, NOT_FOUND, UuidParam, json, jsonBody } from './common.ts';
import { apiActor } from '../audit-actor.ts';
import { readAfterWrite } from './answer-reads.ts';
import { hostedDomain } from '../host.ts';

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
    settings: z.record(z.string(), z.unknown()).openapi({
      description: 'every setting of the create body (never the password), `name`, `default_language` (the first language), `description` and `footer_text` as localized maps, `custom_css` (null when none), authentication with sso_connection',
    }),
    sections: z.array(z.unknown()).openapi({ description: '[{name: {lang: text}, is_split, services: [{id, uuid, monitor_uuid, name: {lang: text}, name_shown, description: {lang: text} | null, is_group, show_uptime, show_response_times, services}]}]' }),
    createdAt: z.string(),
  })
  .openapi('Statuspage');

type Localized = Record<string, string>;
/** A section's service as the API shows it: the hosted service's fields (`uuid`, `name` and `description` as maps) beside API.md's. */
interface ServiceJson {
  id: string | null;
  uuid: string | null;
  monitor_uuid: string | null;
  name: Localized;
  name_shown: string | null;
  description: Localized | null;
  is_group: boolean;
  show_uptime: boolean;
  show_response_times: boolean;
  services: ServiceJson[];
}

/**
 * Domain status page → API shape. Texts come as localized maps (docs/api.md "Clients"); a string
 * given on input is the page's first language. `settings.authentication.sso_connection` is `{uuid,
 * name, provider}` of the page's SAML connection (looked up with `connection`), or null. `nameOf`
 * gives a service's own name (for `name`).
 */
export function toStatuspageJson(
  s: Statuspage,
  config: Pick<Config, 'status_pages' | 'public_url'>,
  connection: (uuid: string) => SsoConnection | undefined = () => undefined,
  nameOf: (uuid: string) => string | undefined = () => undefined,
): z.infer<typeof StatuspageSchema> {
  const conn = s.settings.authentication.sso_connection_uuid ? connection(s.settings.authentication.sso_connection_uuid) : undefined;
  const lang = s.settings.languages[0] ?? 'en';
  const service = (v: PageService): ServiceJson => ({
    id: v.monitor_uuid || null,
    uuid: v.monitor_uuid || null,
    monitor_uuid: v.monitor_uuid || null,
    name: textMap(v.name_shown ?? nameOf(v.monitor_uuid) ?? '', v.name_i18n, lang)!,
    name_shown: v.name_shown,
    description: textMap(v.description, v.description_i18n, lang),
    is_group: v.is_group,
    show_uptime: v.show_uptime,
    show_response_times: v.show_response_times,
    services: v.services.map(service),
  });
  const { description_i18n, footer_text_i18n, ...settings } = s.settings;
  return {
    uuid: s.uuid,
    name: s.name,
    subdomain: s.subdomain,
    hostname: s.hostname,
    hostedsubdomain: `${s.subdomain}.${hostedDomain(config)}`,
    url: s.hostname ? `https://${s.hostname}` : `${config.public_url.replace(/\/+$/, '')}/status/${s.subdomain}`,
    password_protected: s.settings.authentication.password_protection && s.passwordHash !== null,
    settings: {
      ...settings,
      name: s.name,
      default_language: lang,
      description: textMap(s.settings.description, description_i18n, lang),
      custom_css: s.settings.custom_css ?? null,
      footer_text: textMap(s.settings.footer_text ?? null, footer_text_i18n, lang),
      authentication: { ...s.settings.authentication, sso_connection: conn ? { uuid: conn.uuid, name: conn.name, provider: conn.provider } : null },
    },
    sections: s.sections.map((sec) => ({ name: textMap(sec.name, sec.name_i18n, lang)!, is_split: false, services: sec.services.map(service) })),
    createdAt: iso(s.createdAt),
  };
}

const ListQuery = z.object({
  page: z.coerce.number({ error: 'must be a whole number ≥ 0' }).int('must be a whole number ≥ 0').min(0, 'must be a whole number ≥ 0').max(1_000_000).default(0),
  search: z.string().max(200, 'must be at most 200 characters').optional().openapi({ description: 'keeps pages whose name, subdomain or hostname contains it' }),
});
const tags = ['Status pages'];
/** One page: its fields at the top level (the Python SDK reads them) and under `statuspage` (API.md, the Go client). */
const Wrapped = StatuspageSchema.extend({ statuspage: StatuspageSchema, message: z.string().optional() });

/** /v2/statuspages (API.md §4.7, CONTRACT.md "Status pages (v2)"). */
export function statuspagesRouter(deps: Pick<HttpDeps, 'core'>) {
  const { core } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  /** The pages as the API shows them: their services' names and SSO connections read first, in one asynchronous transaction. */
  const out = async (pages: Statuspage[]) => {
    const shown = await core.statuspages.shown(pages);
    return pages.map((s) => toStatuspageJson(s, core.config, shown.connection, shown.nameOf));
  };
  /** Nothing known of services' names and SSO connections (the page's own fields still answer). */
  const unknownShown = { nameOf: () => undefined, connection: () => undefined };
  /**
   * One page's answer. After a write (`message` given) the names and connections are read after it and
   * left out when the database cannot answer by then (answer-reads.ts); a read answers 503 then.
   */
  const both = async (s: Statuspage, message?: string) => {
    const shown = message === undefined ? await core.statuspages.shown([s]) : await readAfterWrite(() => core.statuspages.shown([s]), unknownShown);
    const o = toStatuspageJson(s, core.config, shown.connection, shown.nameOf);
    return message === undefined ? { ...o, statuspage: o } : { ...o, statuspage: o, message };
  };
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
    async (c) => {
      const q = c.req.valid('query');
      const r = await core.statuspages.list(q.page, q.search);
      return c.json({ ...r, statuspages: await out(r.statuspages) }, 200);
    },
  );
  app.openapi(
    createRoute({ method: 'post', path: '/', tags, summary: 'Create a status page', request: jsonBody(StatuspageBody), responses: { 201: json(Wrapped, 'Created'), ...COMMON_ERRORS, ...BODY_ERRORS, ...CONFLICT } }),
    async (c) => c.json(await both(await core.statuspages.create(c.req.valid('json'), apiActor(c.var.principal)), 'Status page created'), 201),
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}', tags, summary: 'Get a status page', request: item, responses: { 200: json(Wrapped, 'The page'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(await both(await core.statuspages.get(c.req.valid('param').uuid)), 200),
  );
  app.openapi(
    createRoute({ method: 'put', path: '/{uuid}', tags, summary: 'Update a status page (partial: fields left out keep their values; sections replace all)', request: { ...item, ...jsonBody(StatuspagePatchBody) }, responses: { 200: json(Wrapped, 'The page'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND, ...CONFLICT } }),
    async (c) => c.json(await both(await core.statuspages.update(c.req.valid('param').uuid, c.req.valid('json'), apiActor(c.var.principal)), 'Status page updated'), 200),
  );
  app.openapi(
    createRoute({ method: 'delete', path: '/{uuid}', tags, summary: 'Delete a status page', request: item, responses: { 200: json(MessageSchema, 'Deleted'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => {
      await core.statuspages.delete(c.req.valid('param').uuid, apiActor(c.var.principal));
      return c.json({ message: 'Status page deleted' }, 200);
    },
  );
  return app;
}
