import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { Config } from '../../config/schema.ts';
import { iso, isoOrNull } from '../../domain/time.ts';
import { outageDurationMs } from '../../domain/outage.ts';
import { pingUrl } from '../../domain/healthcheck.ts';
import type { OutageRecord } from '../../core/outages.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { COMMON_ERRORS, NOT_FOUND, UuidParam, json } from './common.ts';

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
  })
  .openapi('Outage');

/** Stored outage → API shape at time `now` (epoch ms); `public_url` builds a healthcheck's ping URL. */
export function toOutageJson(o: OutageRecord, now: number, config: Pick<Config, 'escalation_policies' | 'public_url'>): z.infer<typeof OutageSchema> {
  const { escalation_policies: policies, public_url: publicUrl } = config;
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
    // A healthcheck outage shows its healthcheck as the monitor, with the ping URL (CONTRACT.md "Healthchecks").
    monitor: o.monitor ?? (o.healthcheck && { uuid: o.healthcheck.uuid, name: o.healthcheck.name, url: pingUrl(publicUrl, o.healthcheck.uuid), protocol: 'healthcheck' }),
    escalationPolicy: policy ? { uuid: policy.uuid, name: policy.name, alertedSteps: o.alertedSteps, totalSteps: policy.steps.length } : null,
    summary: o.summary,
    aiSummary: null,
    postmortem: o.postmortem,
    escalationPolicyUuid: o.escalationPolicyUuid,
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
  const out = (o: OutageRecord) => toOutageJson(o, clock.now(), core.config);

  app.openapi(
    createRoute({ method: 'get', path: '/', tags, summary: 'List outages, 20 per page, newest first', request: { query: ListQuery }, responses: { 200: json(ListSchema, 'A page of outages'), ...COMMON_ERRORS, 400: json(z.object({ error: z.string(), message: z.string() }), 'Invalid query') } }),
    (c) => {
      const q = c.req.valid('query');
      const page = core.outages.list({ status: q.status, type: q.type, search: q.search }, q.page);
      return c.json({ ...page, outages: page.outages.map(out) }, 200);
    },
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}', tags, summary: 'Get an outage', request: { params: UuidParam }, responses: { 200: json(OutageSchema, 'The outage'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    (c) => c.json(out(core.outages.get(c.req.valid('param').uuid)), 200),
  );
  return app;
}
