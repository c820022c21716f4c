import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { HealthcheckBody, PERIOD_UNITS, dueAt, graceSeconds, periodSeconds, pingUrl, type Healthcheck } from '../../domain/healthcheck.ts';
import type { StoredPing } from '../../domain/ping.ts';
import { iso, isoOrNull } from '../../domain/time.ts';
import type { Core } from '../../core/index.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { BODY_ERRORS, COMMON_ERRORS, NOT_FOUND, UuidParam, json, jsonBody } from './common.ts';
import { apiActor } from '../audit-actor.ts';
import { readAfterWrite, writeWithPolicies } from './answer-reads.ts';

/** A stored ping as the API shows it. */
export const PingSchema = z
  .object({
    n: z.number().int().openapi({ description: 'number of the ping for this healthcheck, from 1' }),
    date: z.string(),
    type: z.enum(['success', 'start', 'fail']),
    exitCode: z.number().int().nullable(),
    method: z.string(),
    sourceIp: z.string().nullable(),
    userAgent: z.string().nullable(),
    body: z.string().nullable().openapi({ description: 'first 10 KB of a POST body' }),
    durationMs: z.number().int().nullable().openapi({ description: 'ms since the start signal just before this ping' }),
  })
  .openapi('Ping');

/** Healthcheck as the API shows it (API.md §2.3 plus CONTRACT.md's fields). */
export const HealthcheckSchema = z
  .object({
    uuid: z.string().openapi({ description: 'tok_…: the secret of the ping URL' }),
    publicUuid: z.string(),
    name: z.string(),
    pingUrl: z.string(),
    period: z.number().int().nullable().openapi({ description: 'seconds; null in cron mode' }),
    periodValue: z.number().int().nullable(),
    periodType: z.enum(PERIOD_UNITS).nullable(),
    gracePeriod: z.number().int().openapi({ description: 'seconds' }),
    gracePeriodValue: z.number().int(),
    gracePeriodType: z.enum(PERIOD_UNITS),
    grace: z.number().int().openapi({ description: 'seconds, the same as gracePeriod (the hosted service\'s Python SDK reads it)' }),
    cron: z.string().nullable(),
    timezone: z.string(),
    tz: z.string().openapi({ description: 'the same as timezone (the hosted service answers reads with tz)' }),
    isDown: z.boolean(),
    isPaused: z.boolean(),
    lastPing: z.string().nullable().openapi({ description: 'date-time of the newest ping of any kind; the details are at GET …/{uuid}/pings' }),
    dueDate: z.string().nullable().openapi({ description: 'when the next ping is expected (the grace period runs after it); null while paused' }),
    createdAt: z.string(),
    escalationPolicy: z.object({ uuid: z.string(), name: z.string() }).nullable(),
    slug: z.null().openapi({ description: 'always null: ping URLs carry the token (the hosted service\'s clients read `slug`)' }),
    lastLogStartDate: z.string().nullable().openapi({ description: 'date-time of the start signal of a run still going (no success or fail ping since), else null' }),
    lastLogEndDate: z.string().nullable().openapi({ description: 'date-time of the newest ping when no run is going (the end of the last run), else null' }),
    lastDowntime: z.string().nullable().openapi({ description: 'date-time its newest outage started, or null' }),
  })
  .openapi('Healthcheck');

type HealthcheckJson = z.infer<typeof HealthcheckSchema>;

/** Stored ping → API shape. */
export const toPingJson = (p: StoredPing): z.infer<typeof PingSchema> => ({
  n: p.n,
  date: iso(p.at),
  type: p.kind,
  exitCode: p.exitCode,
  method: p.method,
  sourceIp: p.sourceIp,
  userAgent: p.userAgent,
  body: p.body,
  durationMs: p.durationMs,
});

/** Domain healthcheck → API shape; `lastDowntimeAt` (epoch ms or null) is when its newest outage started. */
export function toHealthcheckJson(hc: Healthcheck, core: Core, policies: ReadonlyArray<{ uuid: string; name: string }>, lastDowntimeAt: number | null): HealthcheckJson {
  const policy = hc.escalationPolicyUuid ? policies.find((p) => p.uuid === hc.escalationPolicyUuid) : undefined;
  return {
    uuid: hc.uuid,
    publicUuid: hc.publicUuid,
    name: hc.name,
    pingUrl: pingUrl(core.config.public_url, hc.uuid),
    period: periodSeconds(hc),
    periodValue: hc.periodValue,
    periodType: hc.periodType,
    gracePeriod: graceSeconds(hc),
    gracePeriodValue: hc.graceValue,
    gracePeriodType: hc.graceType,
    grace: graceSeconds(hc),
    cron: hc.cron,
    timezone: hc.timezone,
    tz: hc.timezone,
    isDown: hc.status === 'down',
    isPaused: hc.paused,
    lastPing: isoOrNull(hc.lastPingAt),
    dueDate: hc.paused ? null : isoOrNull(dueAt(hc)),
    createdAt: iso(hc.createdAt),
    escalationPolicy: policy ? { uuid: policy.uuid, name: policy.name } : null,
    slug: null,
    lastLogStartDate: isoOrNull(hc.lastStartAt),
    lastLogEndDate: hc.lastStartAt === null ? isoOrNull(hc.lastPingAt) : null,
    lastDowntime: isoOrNull(lastDowntimeAt),
  };
}

const tags = ['Healthchecks'];
const Created = z.object({ message: z.string(), healthcheck: HealthcheckSchema });
const Done = z.object({ message: z.string(), uuid: z.string() });
/** v2 answers: the healthcheck's own fields, `healthcheck` holding the same object, and `message` on writes. */
const Both = HealthcheckSchema.extend({ healthcheck: HealthcheckSchema, message: z.string().optional() });
/** PUT body: every field optional, merged into the stored healthcheck (CONTRACT.md "Errors and validation"). */
const UpdateBody = HealthcheckBody.partial({ name: true });

/**
 * /v1/healthchecks (API.md §4.2) or /v2/healthchecks for the hosted service's clients (CONTRACT.md
 * "Healthchecks"; docs/api.md "Clients"): v2 lists as `{healthchecks}`, and answers one healthcheck
 * with its fields at the top level *and* under `healthcheck` (the Go client reads the wrapper, the
 * Python SDK the bare object). Thin handlers.
 */
export function healthchecksRouter(deps: Pick<HttpDeps, 'core'>, version: 'v1' | 'v2') {
  const { core } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  // Policy names are read from the store at answer time (issue 32: policies are stored objects).
  // With each healthcheck's last downtime (issue 35 point 6), read for the healthchecks answered.
  type Policies = { list: ReadonlyArray<{ uuid: string; name: string }>; lastDown: Record<number, number | null> };
  const policies = async (...hcs: Healthcheck[]): Promise<Policies> => {
    const [list, lastDown] = await Promise.all([core.escalationPolicies.list(), core.healthchecks.lastDowntimes(hcs.map((h) => h.id))]);
    return { list, lastDown };
  };
  const out = (hc: Healthcheck, p: Policies) => toHealthcheckJson(hc, core, p.list, p.lastDown[hc.id] ?? null);
  const one = version === 'v1' ? HealthcheckSchema : Both;
  const both = (hc: Healthcheck, p: Policies, message?: string) => {
    const o = out(hc, p);
    return message === undefined ? { ...o, healthcheck: o } : { ...o, healthcheck: o, message };
  };
  const wrap = async (hc: Healthcheck) => (version === 'v1' ? out(hc, await policies(hc)) : both(hc, await policies(hc)));
  /**
   * Runs a write and reads what its answer needs so that a read failing cannot answer 503 "not saved"
   * for a saved change (answer-reads.ts): policy names before the write; the last downtime after it,
   * null when the database cannot answer by then.
   */
  const written = async (write: () => Promise<Healthcheck>): Promise<[Healthcheck, Policies]> => {
    const [hc, list] = await writeWithPolicies(() => core.escalationPolicies.list(), write);
    const lastDown = await readAfterWrite(() => core.healthchecks.lastDowntimes([hc.id]), {} as Record<number, number | null>);
    return [hc, { list, lastDown }];
  };
  const done = async (message: string, write: () => Promise<Healthcheck>) => {
    if (version === 'v1') return { message, uuid: (await write()).uuid };
    const [hc, p] = await written(write);
    return both(hc, p, message);
  };
  const item = { params: UuidParam };

  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags,
      summary: 'List healthchecks',
      responses: { 200: json(version === 'v1' ? z.array(HealthcheckSchema) : z.object({ healthchecks: z.array(HealthcheckSchema) }), 'All healthchecks'), ...COMMON_ERRORS },
    }),
    async (c) => {
      const all = await core.healthchecks.list();
      const p = await policies(...all);
      const list = all.map((hc) => out(hc, p));
      return c.json(version === 'v1' ? list : { healthchecks: list }, 200);
    },
  );
  app.openapi(
    createRoute({ method: 'post', path: '/', tags, summary: 'Create a healthcheck (simple mode or cron mode)', request: jsonBody(HealthcheckBody), responses: { 201: json(version === 'v1' ? Created : Both, 'Created'), ...COMMON_ERRORS, ...BODY_ERRORS } }),
    async (c) => {
      const [hc, p] = await written(() => core.healthchecks.create(c.req.valid('json'), apiActor(c.var.principal)));
      return c.json(version === 'v1' ? { message: 'Healthcheck created', healthcheck: out(hc, p) } : both(hc, p, 'Healthcheck created'), 201);
    },
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}', tags, summary: 'Get a healthcheck (by tok_ uuid or hc_ public uuid)', request: item, responses: { 200: json(one, 'The healthcheck'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(await wrap(await core.healthchecks.get(c.req.valid('param').uuid)), 200),
  );
  app.openapi(
    createRoute({
      method: 'put',
      path: '/{uuid}',
      tags,
      summary: 'Update a healthcheck (partial: fields left out keep their values; a body naming neither mode keeps the current one)',
      request: { ...item, ...jsonBody(UpdateBody) },
      responses: { 200: json(one, 'The updated healthcheck'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const [hc, p] = await written(() => core.healthchecks.update(c.req.valid('param').uuid, c.req.valid('json'), apiActor(c.var.principal)));
      return c.json(version === 'v1' ? out(hc, p) : both(hc, p, 'Healthcheck updated'), 200);
    },
  );
  app.openapi(
    createRoute({ method: 'delete', path: '/{uuid}', tags, summary: 'Delete a healthcheck with its pings and outages', request: item, responses: { 200: json(Done, 'Deleted'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json({ message: 'Healthcheck deleted', uuid: (await core.healthchecks.delete(c.req.valid('param').uuid, apiActor(c.var.principal))).uuid }, 200),
  );
  app.openapi(
    createRoute({ method: 'post', path: '/{uuid}/pause', tags, summary: 'Pause: deadlines stop (idempotent)', request: item, responses: { 200: json(version === 'v1' ? Done : Both, 'Paused'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(await done('Healthcheck paused', () => core.healthchecks.pause(c.req.valid('param').uuid, apiActor(c.var.principal))), 200),
  );
  app.openapi(
    createRoute({ method: 'post', path: '/{uuid}/resume', tags, summary: 'Resume: the clock restarts now (idempotent)', request: item, responses: { 200: json(version === 'v1' ? Done : Both, 'Resumed'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(await done('Healthcheck resumed', () => core.healthchecks.resume(c.req.valid('param').uuid, apiActor(c.var.principal))), 200),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/{uuid}/pings',
      tags,
      summary: 'The kept pings (storage.pings_per_healthcheck), newest first',
      request: item,
      responses: { 200: json(z.object({ pings: z.array(PingSchema) }), 'Pings'), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => c.json({ pings: (await core.healthchecks.pings(c.req.valid('param').uuid, core.config.storage.pings_per_healthcheck)).map(toPingJson) }, 200),
  );
  return app;
}
