import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { MonitorBody, PROTOCOLS, protocolFieldsJson, type Monitor } from '../../domain/monitor.ts';
import { maskMonitor } from '../../protocols/secrets.ts';
import { formatTagRef } from '../../domain/tags.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { BODY_ERRORS, COMMON_ERRORS, MessageSchema, NOT_FOUND, UuidParam, json, jsonBody } from './common.ts';
import { apiActor } from '../audit-actor.ts';
import { writeWithPolicies } from './answer-reads.ts';

/**
 * Monitor as the API shows it (API.md §2.1 plus CONTRACT.md's request_headers, request_body,
 * timeout). The common fields always; then the fields of the monitor's protocol (src/protocols/):
 * http, port and icmp show exactly API.md's (http adds assertions, degraded_after_ms and
 * tls_expiry_days when set); the other protocols show their own instead.
 */
export const MonitorSchema = z
  .object({
    id: z.number().int().openapi({ description: 'numeric id (the hosted service\'s clients read it)' }),
    uuid: z.string(),
    projectUuid: z.string().openapi({ description: 'one project per installation: always `proj_pharos`' }),
    sort_order: z.number().int().openapi({ description: 'order of creation' }),
    name: z.string(),
    url: z.string().openapi({ description: 'as given, with the password of a URL shown as `***` (send it back to keep the stored one)' }),
    protocol: z.enum(PROTOCOLS),
    http_method: z.string().optional(),
    check_frequency: z.number().int().openapi({ description: 'seconds' }),
    regions: z.array(z.string()),
    status: z.enum(['up', 'down']),
    paused: z.boolean(),
    expected_status_code: z.string().optional(),
    required_keyword: z.string().nullable().optional(),
    follow_redirects: z.boolean().optional(),
    port: z.number().int().nullable(),
    ssl_expiration: z.number().int().nullable().openapi({ description: 'days until the served certificate expires (https only)' }),
    domain_expires_at: z.string().optional().openapi({ description: "when the registrable domain expires, from its registry's RDAP record (ISO 8601); present once read for a monitor with domain_expiry_days (issue 36)" }),
    alerts_wait: z.number().int().openapi({ description: 'minutes; -1 never alerts' }),
    escalation_policy: z.object({ uuid: z.string(), name: z.string() }).nullable(),
    request_headers: z.array(z.object({ name: z.string(), value: z.string().openapi({ description: 'always `***` on reads; send `***` back to keep the stored value' }) })).optional(),
    request_body: z.string().nullable().optional(),
    timeout: z.number().int().openapi({ description: 'seconds' }),
    public_badges: z.boolean().openapi({ description: 'its badges (`/badge/monitors/{uuid}/…`) are served to anyone; false: they answer 404' }),
    tags: z.array(z.string()).openapi({ description: 'its tags, each "name" or "name:value", in the order given (colours: /v1/tags)', example: ['prod', 'env:eu'] }),
    group: z.string().nullable().openapi({ description: 'the group it belongs to, or null' }),
    group_id: z.string().nullable().openapi({ description: 'the same as `group` (the hosted service\'s clients read `group_id`; Pharos names groups, it does not number them)' }),
    depends_on: z.array(z.string()).openapi({ description: 'uuids of the monitors it depends on: while one is down, its alerts are held (docs/api.md "Monitor dependencies")' }),
    show_url: z.boolean().openapi({ description: 'always false: public status pages never show a monitor\'s URL' }),
  })
  .catchall(z.unknown())
  .openapi('Monitor');

/**
 * Domain monitor → API shape (common fields, then the protocol's), its secrets masked for every
 * reader (src/protocols/secrets.ts: header values, the password of `url`; docs/api.md "Monitors").
 */
export function toMonitorJson(stored: Monitor, policies: ReadonlyArray<{ uuid: string; name: string }>): z.infer<typeof MonitorSchema> {
  const m = maskMonitor(stored);
  const policy = m.escalationPolicyUuid ? policies.find((p) => p.uuid === m.escalationPolicyUuid) : undefined;
  return {
    id: m.id,
    uuid: m.uuid,
    projectUuid: PROJECT_UUID,
    sort_order: m.id,
    name: m.name,
    url: m.url,
    protocol: m.protocol,
    check_frequency: m.checkFrequencySeconds,
    regions: m.regions,
    status: m.status,
    paused: m.paused,
    port: m.port,
    ssl_expiration: m.sslExpirationDays,
    ...(m.domainExpiresAt != null ? { domain_expires_at: new Date(m.domainExpiresAt).toISOString() } : {}),
    alerts_wait: m.alertsWaitMinutes,
    escalation_policy: policy ? { uuid: policy.uuid, name: policy.name } : null,
    timeout: m.timeoutSeconds,
    public_badges: m.publicBadges,
    tags: m.tags.map(formatTagRef),
    group: m.group,
    group_id: m.group,
    depends_on: m.dependsOn ?? [],
    show_url: false,
    ...protocolFieldsJson(m),
  };
}

/** The one project of an installation (the hosted service's monitors carry their project's uuid). */
export const PROJECT_UUID = 'proj_pharos';

const Body = MonitorBody;
/** PUT body: every field optional; merged into the stored monitor and validated as a whole (CONTRACT.md). */
const UpdateBody = MonitorBody.partial({ name: true, url: true });
const tags = ['Monitors'];

/** /v1/monitors (API.md §4.1): thin handlers, parse → core → JSON. */
export function monitorsRouter(deps: Pick<HttpDeps, 'core'>) {
  const { core } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  // Policy names are read from the store at answer time (issue 32: policies are stored objects).
  const out = async (m: Monitor) => toMonitorJson(m, await core.escalationPolicies.list());
  /** A write's answer: policy names read before it, again after it only when needed (answer-reads.ts). */
  const written = async (write: () => Promise<Monitor>) => toMonitorJson(...(await writeWithPolicies(() => core.escalationPolicies.list(), write)));

  app.openapi(
    createRoute({ method: 'get', path: '/', tags, summary: 'List monitors', responses: { 200: json(z.array(MonitorSchema), 'All monitors'), ...COMMON_ERRORS } }),
    async (c) => {
      const [monitors, policies] = await Promise.all([core.monitors.list(), core.escalationPolicies.list()]);
      return c.json(monitors.map((m) => toMonitorJson(m, policies)), 200);
    },
  );
  app.openapi(
    createRoute({ method: 'post', path: '/', tags, summary: 'Create a monitor', request: jsonBody(Body), responses: { 201: json(MonitorSchema, 'The created monitor'), ...COMMON_ERRORS, ...BODY_ERRORS } }),
    async (c) => c.json(await written(() => core.monitors.create(c.req.valid('json'), apiActor(c.var.principal))), 201),
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}', tags, summary: 'Get a monitor', request: { params: UuidParam }, responses: { 200: json(MonitorSchema, 'The monitor'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(await out(await core.monitors.get(c.req.valid('param').uuid)), 200),
  );
  app.openapi(
    createRoute({
      method: 'put',
      path: '/{uuid}',
      tags,
      summary: 'Update a monitor (partial: fields left out keep their values; the merged monitor is validated)',
      request: { params: UuidParam, ...jsonBody(UpdateBody) },
      responses: { 200: json(MonitorSchema, 'The updated monitor'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND },
    }),
    async (c) => c.json(await written(() => core.monitors.update(c.req.valid('param').uuid, c.req.valid('json'), apiActor(c.var.principal))), 200),
  );
  app.openapi(
    createRoute({
      method: 'delete',
      path: '/{uuid}',
      tags,
      summary: 'Delete a monitor with its history and outages',
      request: { params: UuidParam },
      responses: { 200: json(MessageSchema, 'Deleted'), 204: { description: 'Deleted (api.compatibility: hosted, as the hosted service answers): no body' }, ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      await core.monitors.delete(c.req.valid('param').uuid, apiActor(c.var.principal));
      if (core.config.api.compatibility === 'hosted') return c.body(null, 204);
      return c.json({ message: 'Monitor deleted' }, 200);
    },
  );
  return app;
}
