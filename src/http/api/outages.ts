import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { Config } from '../../config/schema.ts';
import { iso, isoOrNull } from '../../domain/time.ts';
import { outageDurationMs, outageSubject } from '../../domain/outage.ts';
import { pingUrl } from '../../domain/healthcheck.ts';
import { alertedStepsShown } from '../../domain/escalation.ts';
import type { OutageRecord } from '../../core/outages.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { BODY_ERRORS, COMMON_ERRORS, ErrorSchema, MessageSchema, NOT_FOUND, UuidParam, json, jsonBody } from './common.ts';
import { readAfterWrite } from './answer-reads.ts';
import { AppError, invalid } from '../../lib/errors.ts';
import type { Principal } from '../../domain/user.ts';

const UserRef = z.object({ uuid: z.string(), email: z.string(), name: z.string() });

/** Outage as the API shows it (API.md §2.6). */
export const OutageSchema = z
  .object({
    uuid: z.string(),
    startDate: z.string(),
    endDate: z.string().nullable(),
    durationMs: z.number().openapi({ description: 'milliseconds; ongoing outages count up to now' }),
    statusCode: z.number(),
    description: z.string(),
    isResolved: z.boolean(),
    detectedLocation: z.string(),
    confirmedLocations: z.string(),
    protocol: z.string(),
    severity: z.enum(['critical', 'major', 'minor']),
    incidentNumber: z.number().nullable(),
    acknowledgedAt: z.string().nullable(),
    acknowledgedBy: UserRef.nullable(),
    reportedBy: UserRef.nullable(),
    monitor: z.object({ uuid: z.string(), name: z.string(), url: z.string(), protocol: z.string() }).nullable(),
    escalationPolicy: z.object({ uuid: z.string(), name: z.string(), alertedSteps: z.number(), totalSteps: z.number() }).nullable(),
    summary: z.string().nullable(),
    aiSummary: z.string().nullable(),
    postmortem: z.string().nullable(),
    escalationPolicyUuid: z.string().nullable(),
    outageType: z.enum(['manual', 'automatic']).openapi({ description: 'the hosted service\'s clients read it: manual (reported) or automatic (detected)' }),
    id: z.number().int().openapi({ description: 'numeric id: the incident number (never given twice)' }),
    errorHeader: z.null().openapi({ description: 'always null: Pharos keeps no response headers of failed checks' }),
    alertedChannels: z.array(z.string()).openapi({ description: 'names of the channels (integrations) the outage alerted or is due to alert' }),
  })
  .openapi('Outage');

/** The state an action leaves an outage in (`status` of action answers, read by the hosted service's Python SDK). */
export function outageStatus(o: Pick<OutageRecord, 'endAt' | 'acknowledgedAt'>): 'resolved' | 'acknowledged' | 'ongoing' {
  return o.endAt !== null ? 'resolved' : o.acknowledgedAt !== null ? 'acknowledged' : 'ongoing';
}

/**
 * Stored outage → API shape at time `now` (epoch ms); `public_url` builds a healthcheck's ping URL,
 * `policies` (the stored escalation policies, issue 32) name the outage's policy and count its steps.
 */
export function toOutageJson(
  o: OutageRecord,
  now: number,
  config: { policies: ReadonlyArray<{ uuid: string; name: string; steps: readonly unknown[] }>; public_url: string; alerted?: Readonly<Record<string, string[]>> },
): z.infer<typeof OutageSchema> {
  const { policies, public_url: publicUrl } = config;
  const policy = o.escalationPolicyUuid ? policies.find((p) => p.uuid === o.escalationPolicyUuid) : undefined;
  return {
    uuid: o.uuid,
    startDate: iso(o.startAt),
    endDate: isoOrNull(o.endAt),
    durationMs: outageDurationMs(o, now),
    statusCode: o.statusCode,
    description: o.description,
    isResolved: o.endAt !== null,
    detectedLocation: o.detectedLocation,
    confirmedLocations: o.confirmedLocations,
    protocol: o.kind === 'manual' ? 'manual' : o.protocol,
    severity: o.severity,
    incidentNumber: o.incidentNumber,
    acknowledgedAt: isoOrNull(o.acknowledgedAt),
    acknowledgedBy: o.acknowledgedByUser,
    reportedBy: o.reportedByUser,
    monitor: outageSubject(o, (uuid) => pingUrl(publicUrl, uuid)),
    escalationPolicy: policy ? { uuid: policy.uuid, name: policy.name, alertedSteps: Math.min(o.alertedSteps, policy.steps.length) /* repeats do not add (domain/escalation.ts alertedStepsShown) */, totalSteps: policy.steps.length } : null,
    summary: o.summary,
    aiSummary: null,
    postmortem: o.postmortem,
    escalationPolicyUuid: o.escalationPolicyUuid,
    outageType: o.kind === 'manual' ? 'manual' : 'automatic',
    id: o.incidentNumber,
    errorHeader: null,
    alertedChannels: config.alerted?.[o.uuid] ?? [],
  };
}

const ListQuery = z.object({
  page: z.coerce.number({ error: 'must be a whole number ≥ 0' }).int('must be a whole number ≥ 0').min(0, 'must be a whole number ≥ 0').max(1_000_000, 'is too large').default(0),
  status: z.enum(['all', 'ongoing', 'resolved'], { error: 'must be one of all, ongoing, resolved' }).default('all'),
  type: z.enum(['all', 'manual', 'monitor'], { error: 'must be one of all, manual, monitor' }).default('all'),
  search: z.string().max(200, 'must be at most 200 characters').optional(),
});

const ListSchema = z.object({
  outages: z.array(OutageSchema),
  hasNextPage: z.boolean(),
  total: z.number(),
  ongoingCount: z.number(),
  page: z.number(),
  resultsPerPage: z.number(),
});

const tags = ['Outages'];

/** /v2/outages reads (API.md §4.4). */
export function outagesRouter(deps: Pick<HttpDeps, 'core' | 'clock'>) {
  const { core, clock } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  // Policies are read from the store at answer time (issue 32: they are stored objects).
  const shape = async (uuids: string[]) => {
    const [policies, alerted] = await Promise.all([core.escalationPolicies.list(), core.outages.alertedChannels(uuids)]);
    return { policies, public_url: core.config.public_url, alerted };
  };
  const out = async (o: OutageRecord) => toOutageJson(o, clock.now(), await shape([o.uuid]));
  /** A write's answer: policies and alerted channels read after it, left out when the database cannot answer by then (answer-reads.ts). */
  const written = async (o: OutageRecord) => toOutageJson(o, clock.now(), await readAfterWrite(() => shape([o.uuid]), { policies: [], public_url: core.config.public_url, alerted: {} }));

  app.openapi(
    createRoute({ method: 'get', path: '/', tags, summary: 'List outages, 20 per page, newest first', request: { query: ListQuery }, responses: { 200: json(ListSchema, 'A page of outages'), ...COMMON_ERRORS, 400: json(z.object({ error: z.string(), message: z.string() }), 'Invalid query') } }),
    async (c) => {
      const q = c.req.valid('query');
      const page = await core.outages.list({ status: q.status, type: q.type, search: q.search }, q.page);
      const config = await shape(page.outages.map((o) => o.uuid));
      return c.json({ ...page, outages: page.outages.map((o) => toOutageJson(o, clock.now(), config)) }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/{uuid}',
      tags,
      summary: 'Get an outage (the bare outage, plus the same object under `outage` for the hosted service\'s clients)',
      request: { params: UuidParam },
      responses: { 200: json(OutageSchema.extend({ outage: OutageSchema }), 'The outage'), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const o = await out(await core.outages.get(c.req.valid('param').uuid));
      return c.json({ ...o, outage: o }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags,
      summary: 'Report a manual outage (200; 201 with api.compatibility: hosted, as the hosted service answers)',
      request: jsonBody(CreateBody),
      responses: { 200: json(z.object({ message: z.string(), outage: OutageSchema }), 'Created'), 201: json(z.object({ message: z.string(), outage: OutageSchema }), 'Created (api.compatibility: hosted)'), ...COMMON_ERRORS, ...BODY_ERRORS },
    }),
    async (c) => {
      const body = { message: 'Outage created', outage: await written(await core.outages.create(c.req.valid('json'), c.get('principal'))) };
      return core.config.api.compatibility === 'hosted' ? c.json(body, 201) : c.json(body, 200);
    },
  );
  app.openapi(
    createRoute({ method: 'delete', path: '/{uuid}', tags, summary: 'Delete an outage', request: { params: UuidParam }, responses: { 200: json(MessageSchema, 'Deleted'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => {
      await core.outages.delete(c.req.valid('param').uuid);
      return c.json({ message: 'Outage deleted' }, 200);
    },
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}/timeline', tags, summary: 'What happened to an outage, oldest first', request: { params: UuidParam }, responses: { 200: json(z.object({ events: z.array(TimelineEntry) }), 'The timeline'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => {
      const { uuid } = c.req.valid('param');
      const timeline = await core.outages.timeline(uuid);
      const users = new Map<string, { uuid: string; email: string; name: string } | null>();
      for (const e of timeline) if (e.userUuid !== null && !users.has(e.userUuid)) users.set(e.userUuid, (await core.users.get(e.userUuid)) ?? null);
      const user = (id: string | null) => (id === null ? null : users.get(id)!);
      const events = timeline.map((e) => ({ date: iso(e.at), type: e.type, user: user(e.userUuid), message: e.message }));
      return c.json({ events }, 200);
    },
  );
  const action = (path: string, summary: string, schema: z.ZodType, run: (uuid: string, by: Principal, message: string | null) => Promise<object>) =>
    app.openapi(
      createRoute({
        method: 'post',
        path: `/{uuid}/${path}`,
        tags,
        summary,
        description: 'Body: none, an empty body (with or without Content-Type: application/json), or `{message}` (≤ 2000 characters, kept on the timeline).',
        // The body is read by optionalMessage, not by the route's validator: an empty body sent with
        // `Content-Type: application/json` (both published clients do) must mean "no message".
        request: { params: UuidParam },
        responses: { 200: json(schema, 'Done'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND, 409: json(ErrorSchema.extend({ uuid: z.string(), status: z.string(), outage: OutageSchema }), 'State conflict; the body also tells where the outage stands') },
      }),
      async (c) => {
        const message = optionalMessage(await c.req.text());
        const uuid = c.req.valid('param').uuid;
        try {
          return c.json(await run(uuid, c.get('principal'), message), 200);
        } catch (e) {
          // A 409 still tells the caller where the outage stands (docs/api.md "Clients").
          if (e instanceof AppError && e.status === 409) {
            const o = await core.outages.get(uuid);
            return c.json({ error: e.message, message: e.message, code: e.code, uuid, status: outageStatus(o), outage: await out(o) }, 409);
          }
          throw e;
        }
      },
    );
  action('acknowledge', 'Acknowledge: escalation stops (409 when resolved or already acknowledged)', AckAnswer, async (uuid, by, m) => {
    const o = await core.outages.acknowledge(uuid, by, m);
    return { message: 'Outage acknowledged', uuid, status: outageStatus(o), acknowledgedAt: iso(o.acknowledgedAt!), acknowledgedBy: o.acknowledgedByUser, outage: await written(o) };
  });
  action('unacknowledge', 'Unacknowledge: escalation resumes (403 unless you acknowledged it; 409 when not acknowledged)', Answer, async (uuid, by, m) => {
    const o = await core.outages.unacknowledge(uuid, by, m);
    return { message: 'Outage unacknowledged', uuid, status: outageStatus(o), outage: await written(o) };
  });
  action('resolve', 'Resolve: escalation stops, recovery messages go out (409 when resolved)', ResolveAnswer, async (uuid, by, m) => {
    const o = await core.outages.resolve(uuid, by, m);
    return { message: 'Outage resolved', uuid, status: outageStatus(o), endDate: iso(o.endAt!), outage: await written(o) };
  });
  action('escalate', 'Escalate: alert the next step now (409 without a policy or a next step)', Answer, async (uuid, by, m) => {
    const o = await core.outages.escalate(uuid, by, m);
    return { message: 'Outage escalated', uuid, status: outageStatus(o), outage: await written(o) };
  });
  return app;
}

const CreateBody = z.object({
  description: z.string({ error: 'is required and must be a string' }).trim().min(1, 'must not be empty').max(2000, 'must be at most 2000 characters'),
  severity: z.enum(['critical', 'major', 'minor'], { error: 'must be one of critical, major, minor' }).optional(),
  escalationPolicyUuid: z.string({ error: 'must be a policy uuid' }).nullable().optional(),
  summary: z.string({ error: 'must be a string' }).max(20000, 'must be at most 20000 characters').nullable().optional(),
});
const Answer = z.object({
  message: z.string(),
  uuid: z.string(),
  status: z.enum(['ongoing', 'acknowledged', 'resolved']).openapi({ description: 'where the outage stands after the action' }),
  outage: OutageSchema,
});
const AckAnswer = Answer.extend({ acknowledgedAt: z.string(), acknowledgedBy: UserRef.nullable() });
const ResolveAnswer = Answer.extend({ endDate: z.string() });
const TimelineEntry = z.object({ date: z.string(), type: z.string(), user: UserRef.nullable(), message: z.string().nullable() });

/**
 * The optional `{message}` body of the action endpoints (CONTRACT.md "Outages": no body, or JSON
 * `{message}`). An empty body is fine; anything else must be that JSON object.
 * @throws AppError 400 naming `message`, or for malformed JSON
 */
function optionalMessage(text: string): string | null {
  if (text.trim() === '') return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError(400, 'validation.malformed_json', 'body: must be empty or a JSON object {message}');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalid('body', 'must be empty or a JSON object {message}');
  const message = (body as { message?: unknown }).message;
  if (message === undefined || message === null) return null;
  if (typeof message !== 'string') throw invalid('message', 'must be a string');
  if (message.length > 2000) throw invalid('message', 'must be at most 2000 characters');
  return message;
}
