import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { COMMON_ERRORS, json } from './common.ts';

const PolicySchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    steps: z.array(z.object({ after_minutes: z.number(), channels: z.array(z.string()) })),
    repeat_every_minutes: z.number().nullable().openapi({ description: 'minutes; the last step is sent again at this interval until acknowledged or resolved' }),
  })
  .openapi('EscalationPolicy');

/** GET /v1/escalation-policies: the policies declared in config.yaml (CONTRACT.md "Outages"). */
export function escalationPoliciesRouter(deps: Pick<HttpDeps, 'core'>) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.openapi(
    createRoute({ method: 'get', path: '/', tags: ['Escalation policies'], summary: 'List escalation policies (declared in config.yaml)', responses: { 200: json(z.array(PolicySchema), 'All policies'), ...COMMON_ERRORS } }),
    (c) => c.json(deps.core.escalationPolicies().map((p) => ({ uuid: p.uuid, name: p.name, steps: p.steps.map((s) => ({ after_minutes: s.after_minutes, channels: [...s.channels] })), repeat_every_minutes: p.repeat_every_minutes ?? null })), 200),
  );
  return app;
}
