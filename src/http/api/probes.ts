import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { pollBodySchema, resultsBodySchema } from '../../domain/probe.ts';
import { iso } from '../../domain/time.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { BODY_ERRORS, COMMON_ERRORS, ErrorSchema, json, jsonBody } from './common.ts';

const Probe = z
  .object({
    id: z.string().openapi({ description: '`local` for the main’s own probe, else the agent’s `prb_…` id' }),
    name: z.string(),
    region: z.string(),
    version: z.string(),
    status: z.enum(['online', 'offline']),
    connected: z.boolean().openapi({ description: 'a poll of the agent is open right now' }),
    sourceAddress: z.string().nullable(),
    firstSeen: z.string(),
    lastSeen: z.string(),
    monitors: z.number().int().openapi({ description: 'monitors this probe checks now' }),
    checksPerSecond: z.number().openapi({ description: 'results received over the last minute, per second' }),
    droppedResults: z.number().int().openapi({ description: 'results the agent dropped while its buffer was full' }),
  })
  .openapi('Probe');

const Spec = z.object({}).passthrough().openapi({ description: 'what the probe needs: protocol, target, method, headers, body, expected status, keyword, redirects, timeoutSeconds' });
const PollAnswer = z
  .object({
    assignment: z.string().openapi({ description: 'send back as `assignment` in the next poll' }),
    checks: z
      .array(z.object({ monitor: z.string(), frequencySeconds: z.number().int(), nextDueAt: z.number().int().nullable().openapi({ description: 'epoch ms' }), spec: Spec }))
      .nullable()
      .openapi({ description: 'the full list when it changed since `assignment`, else null' }),
    rechecks: z.array(z.string()).openapi({ description: 'monitor uuids to check once now (confirmation)' }),
  })
  .openapi('PollAnswer');

const tags = ['Probes'];

/**
 * /v1/probes: the probes listing (read/write tokens), and the two routes of `pharos agent`
 * (probe-scope tokens only, see auth.ts): the long poll for its checks and the result batches.
 */
export function probesRouter(deps: Pick<HttpDeps, 'core' | 'version'>) {
  const { core } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.openapi(
    createRoute({ method: 'get', path: '/', tags, summary: 'The local probe and the remote agents: region, version, status, last seen, checks/s', responses: { 200: json(z.array(Probe), 'Probes'), ...COMMON_ERRORS } }),
    (c) => c.json(core.probes.list(deps.version).map((p) => ({ ...p, firstSeen: iso(p.firstSeen), lastSeen: iso(p.lastSeen) })), 200),
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/poll',
      tags,
      summary: 'Agent long poll: answers at once when its checks changed or re-checks wait, else within agent_poll_seconds',
      request: jsonBody(pollBodySchema),
      responses: {
        200: json(PollAnswer, 'The assignment'),
        ...COMMON_ERRORS,
        ...BODY_ERRORS,
        403: json(ErrorSchema, 'The token was not granted this region, or the agent id is another probe token’s'),
        429: json(ErrorSchema, 'A new agent id while the token’s `probe.agents_per_token` agents are all online'),
      },
    }),
    async (c) => c.json(await core.probes.poll(c.req.valid('json'), c.req.raw.signal, c.get('principal')), 200),
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/results',
      tags,
      summary: 'Agent result batch; a batch id already stored is acknowledged without storing it again',
      request: jsonBody(resultsBodySchema),
      responses: {
        200: json(z.object({ stored: z.number().int(), refused: z.number().int().openapi({ description: 'results for monitors not assigned to this agent, or with `at` outside [now − 24 h, now + 2 min]' }), duplicate: z.boolean() }), 'Stored (or a retried batch)'),
        409: json(ErrorSchema, 'The agent has not polled since the server started: poll, then retry'),
        ...COMMON_ERRORS,
        ...BODY_ERRORS,
        403: json(ErrorSchema, 'The token was not granted this region, or the agent id is another probe token’s'),
      },
    }),
    async (c) => c.json(await core.results.agentBatch(c.req.valid('json'), c.get('principal')), 200),
  );
  return app;
}
