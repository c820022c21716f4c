import { z } from 'zod';
import { MonitorBody, PROTOCOLS, type Monitor } from '../../domain/monitor.ts';
import { prepareAssertions } from '../../protocols/http/index.ts';
import { iso } from '../../domain/time.ts';
import { apiActor } from '../audit-actor.ts';
import { toMonitorJson } from '../api/monitors.ts';
import { writeWithPolicies } from '../api/answer-reads.ts';
import { tool, type ToolContext, type ToolDef } from './tool.ts';

/** Days of certificate left at or below which a monitor counts as `ssl_expiring` (the first default alert threshold, TLS_EXPIRY_DAYS). */
export const SSL_EXPIRING_DAYS = 30;

type Policies = ReadonlyArray<{ uuid: string; name: string }>;

/** `expected_status_code` ("200", "2xx", "200-299") → the number hyperping-go's `expected_status` reads: the first code, a class as its x00. */
export function expectedStatusNumber(code: unknown): number {
  const s = typeof code === 'string' ? code : '';
  const exact = /\d{3}/.exec(s);
  if (exact) return Number(exact[0]);
  const cls = /([1-5])xx/i.exec(s);
  return cls ? Number(cls[1]) * 100 : 0;
}

/**
 * Monitor → hyperping-go `MonitorDetails` (mcp_models.go): `status` up/down/paused, `method`,
 * `frequency` (seconds), `expected_status` (a number), `custom_headers` as a map (values `***`),
 * `escalation_policy` the policy uuid or null; plus `protocol` and `paused`.
 */
export function monitorDetails(m: Monitor, policies: Policies): Record<string, unknown> {
  const j = toMonitorJson(m, policies);
  const headers = (j.request_headers ?? []) as Array<{ name: string; value: string }>;
  return {
    uuid: m.uuid,
    name: m.name,
    url: j.url,
    status: m.paused ? 'paused' : m.status,
    method: j.http_method ?? '',
    frequency: m.checkFrequencySeconds,
    expected_status: expectedStatusNumber(j.expected_status_code),
    regions: m.regions,
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
    tags: j.tags,
    escalation_policy: m.escalationPolicyUuid,
    custom_headers: Object.fromEntries(headers.map((h) => [h.name, h.value])),
    protocol: m.protocol,
    paused: m.paused,
  };
}

/** The monitor's state as `list_monitors` filters it: paused, ssl_expiring (and up), up or down. */
const matches = (m: Monitor, status: string | undefined): boolean => {
  if (status === undefined) return true;
  if (status === 'paused') return m.paused;
  if (m.paused) return false;
  if (status === 'ssl_expiring') return m.sslExpirationDays !== null && m.sslExpirationDays <= SSL_EXPIRING_DAYS;
  return m.status === status;
};

const Header = z.object({ name: z.string(), value: z.string() });
/** The monitor fields of create_monitor and update_monitor, as the hosted service declares them. */
const fields = {
  name: z.string().optional(),
  url: z.string().optional(),
  protocol: z.enum(PROTOCOLS).optional().describe('http, icmp, port, dns (and Pharos\'s grpc, mysql, postgres, redis, tls)'),
  port: z.number().int().optional(),
  http_method: z.string().optional(),
  regions: z.array(z.string()).optional(),
  check_frequency: z.number().optional().describe('seconds'),
  follow_redirects: z.boolean().optional(),
  timeout: z.number().int().optional().describe('seconds, 1-60'),
  expected_status_code: z.union([z.string(), z.number()]).optional().describe('"200", "2xx", "1xx-3xx"'),
  request_body: z.string().optional(),
  request_headers: z.array(Header).optional(),
  required_keyword: z.string().optional(),
  paused: z.boolean().optional(),
  alerts_wait: z.number().optional().describe('minutes; -1 never alerts'),
  dns_record_type: z.string().optional(),
  dns_nameserver: z.string().optional(),
  dns_expected_answer: z.string().optional(),
  escalation_policy: z.string().optional().describe('a policy uuid, or "none"'),
  group_id: z.union([z.string(), z.number()]).optional().describe('the group (Pharos names groups: a number is taken as its name)'),
};
type Fields = { [K in keyof typeof fields]?: z.infer<(typeof fields)[K]> };

/**
 * MCP arguments → the REST monitor body (MonitorBody), validated there: `dns_nameserver` is
 * `dns_resolver`, `dns_expected_answer` is `dns_expected`, `group_id` is `group`. Async: a json_query
 * assertion's expression needs `jsonata`, loaded on first use (prepareAssertions) before the synchronous parse.
 * @throws Error `field: message` (a rejection) when the body breaks a rule
 */
async function body(a: Fields, partial: boolean) {
  const raw: Record<string, unknown> = { ...a };
  delete raw.uuid;
  delete raw.dns_nameserver;
  delete raw.dns_expected_answer;
  delete raw.group_id;
  if (a.dns_nameserver !== undefined) raw.dns_resolver = a.dns_nameserver;
  if (a.dns_expected_answer !== undefined) raw.dns_expected = a.dns_expected_answer;
  if (a.group_id !== undefined) raw.group = String(a.group_id);
  if (typeof a.expected_status_code === 'number') raw.expected_status_code = String(a.expected_status_code);
  await prepareAssertions(raw);
  const parsed = (partial ? MonitorBody.partial({ name: true, url: true }) : MonitorBody).safeParse(raw);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; '));
  return parsed.data;
}

const policiesOf = (ctx: ToolContext) => ctx.core.escalationPolicies.list();
/** A write's details: policy names read before it, again after it only when needed (api/answer-reads.ts). */
const written = async (ctx: ToolContext, write: () => Promise<Monitor>) => monitorDetails(...(await writeWithPolicies(() => policiesOf(ctx), write)));
const uuidArg = { uuid: z.string().describe('the monitor uuid') };

/** Monitor tools: list, get, search, create, update, pause, resume, delete, and the status summary. */
export const monitorTools: ToolDef[] = [
  tool({
    name: 'list_monitors',
    description: 'List monitors (as GET /v1/monitors shows them), optionally by status, a page at a time (page from 1, limit default 50, at most 100).',
    input: { status: z.enum(['up', 'down', 'paused', 'ssl_expiring']).optional(), page: z.number().int().min(1).optional(), limit: z.number().int().min(1).max(100).optional() },
    async run(a, ctx) {
      const [all, policies] = await Promise.all([ctx.core.monitors.list(), policiesOf(ctx)]);
      const page = a.page ?? 1;
      const limit = a.limit ?? 50;
      const hits = all.filter((m) => matches(m, a.status));
      return { monitors: hits.slice((page - 1) * limit, page * limit).map((m) => toMonitorJson(m, policies)), total: hits.length, page, limit };
    },
  }),
  tool({
    name: 'get_monitor',
    description: 'One monitor\'s details: status, method, frequency, expected status, regions, tags, escalation policy, headers (values masked).',
    input: uuidArg,
    run: async (a, ctx) => monitorDetails(await ctx.core.monitors.get(a.uuid), await policiesOf(ctx)),
  }),
  tool({
    name: 'search_monitors_by_name',
    description: 'Monitors whose name contains the query (case-insensitive), as GET /v1/monitors shows them.',
    input: { query: z.string() },
    async run(a, ctx) {
      const [all, policies] = await Promise.all([ctx.core.monitors.list(), policiesOf(ctx)]);
      const q = a.query.toLowerCase();
      return all.filter((m) => m.name.toLowerCase().includes(q)).map((m) => toMonitorJson(m, policies));
    },
  }),
  tool({
    name: 'create_monitor',
    description: 'Create a monitor (the fields of POST /v1/monitors; name and url required). Needs a write token.',
    write: true,
    input: { ...fields, name: z.string(), url: z.string() },
    run: async (a, ctx) => written(ctx, async () => ctx.core.monitors.create((await body(a, false)) as Parameters<typeof ctx.core.monitors.create>[0], apiActor(ctx.principal))),
  }),
  tool({
    name: 'update_monitor',
    description: 'Update a monitor: the fields given change, the others keep their values. Needs a write token.',
    write: true,
    input: { ...uuidArg, ...fields },
    run: async (a, ctx) => written(ctx, async () => ctx.core.monitors.update(a.uuid, await body(a, true), apiActor(ctx.principal))),
  }),
  tool({
    name: 'pause_monitor',
    description: 'Pause a monitor (no checks, no alerts). Needs a write token.',
    write: true,
    input: uuidArg,
    run: async (a, ctx) => written(ctx, async () => ctx.core.monitors.update(a.uuid, { paused: true }, apiActor(ctx.principal))),
  }),
  tool({
    name: 'resume_monitor',
    description: 'Resume a paused monitor. Needs a write token.',
    write: true,
    input: uuidArg,
    run: async (a, ctx) => written(ctx, async () => ctx.core.monitors.update(a.uuid, { paused: false }, apiActor(ctx.principal))),
  }),
  tool({
    name: 'delete_monitor',
    description: 'Delete a monitor with its history and outages. Needs a write token.',
    write: true,
    input: uuidArg,
    async run(a, ctx) {
      await ctx.core.monitors.delete(a.uuid, apiActor(ctx.principal));
      return { message: 'Monitor deleted', uuid: a.uuid };
    },
  }),
  tool({
    name: 'get_status_summary',
    description: 'How many monitors are up, down, paused; the names of those down and paused.',
    input: {},
    async run(_a, ctx) {
      const all = await ctx.core.monitors.list();
      const paused = all.filter((m) => m.paused);
      const down = all.filter((m) => !m.paused && m.status === 'down');
      return { total: all.length, up: all.length - paused.length - down.length, down: down.length, paused: paused.length, unknown: 0, down_monitors: down.map((m) => m.name), paused_monitors: paused.map((m) => m.name) };
    },
  }),
];
