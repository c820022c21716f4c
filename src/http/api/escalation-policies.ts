import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { TARGET_TYPES, type EscalationPolicy, type PolicyStep } from '../../domain/escalation-policy.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { apiActor } from '../audit-actor.ts';
import { BODY_ERRORS, COMMON_ERRORS, CONFLICT, MessageSchema, NOT_FOUND, UuidParam, json, jsonBody } from './common.ts';

const iso = (ms: number) => new Date(ms).toISOString();

const Target = z.object({ type: z.enum(TARGET_TYPES), uuid: z.string() });
const Step = z.object({ delay_minutes: z.number().openapi({ description: 'minutes after the escalation starts' }), targets: z.array(Target) });

const PolicySchema = z
  .object({
    uuid: z.string().openapi({ example: 'ep_ops' }),
    name: z.string(),
    team: z.string().nullable(),
    steps: z.array(Step),
    repeat_count: z.number().openapi({ description: 'how many times the last step is sent again (0: until acknowledged or resolved, when repeat_every_minutes is set)' }),
    repeat_every_minutes: z.number().nullable().openapi({ description: 'minutes between repeats of the last step; null: no repeats. With policy_repeats: the pause after a round\'s last step (null: 5)' }),
    policy_repeats: z.number().openapi({ description: 'how many more rounds of the whole policy run after its last step, unless acknowledged (0: none; not with repeat_count)' }),
    provisioned: z.boolean().openapi({ description: 'declared in config.yaml: read-only here (409 escalation_policies.provisioned)' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('EscalationPolicy');

/** Stored policy → API shape (snake_case). */
export function toPolicyJson(p: EscalationPolicy): z.infer<typeof PolicySchema> {
  return {
    uuid: p.uuid,
    name: p.name,
    team: p.team,
    steps: p.steps.map((s) => ({ delay_minutes: s.delayMinutes, targets: s.targets.map((t) => ({ type: t.type, uuid: t.uuid })) })),
    repeat_count: p.repeatCount,
    repeat_every_minutes: p.repeatEveryMinutes,
    policy_repeats: p.policyRepeats ?? 0,
    provisioned: p.provisioned,
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
  };
}

const BodyTarget = z.strictObject({
  type: z.string({ error: `is required: one of ${TARGET_TYPES.join(', ')}` }),
  uuid: z.string({ error: 'is required and must be a uuid' }),
});
const BodyStep = z.strictObject({
  delay_minutes: z.number({ error: 'is required and must be a whole number of minutes' }),
  targets: z.array(BodyTarget, { error: 'must be an array of {type, uuid}' }),
});
const fields = {
  name: z.string({ error: 'is required and must be a string' }),
  team: z.string({ error: 'must be a string or null' }).nullable().optional(),
  steps: z.array(BodyStep, { error: 'is required: an array of {delay_minutes, targets}' }),
  repeat_count: z.number({ error: 'must be a whole number' }).optional(),
  repeat_every_minutes: z.number({ error: 'must be a whole number of minutes or null' }).nullable().optional(),
  policy_repeats: z.number({ error: 'must be a whole number' }).optional(),
};
const CreateBody = z.strictObject(fields).openapi('EscalationPolicyCreate');
/** Partial: fields left out keep their values (`steps` replaced whole); read-only fields may be sent back as read. */
const UpdateBody = z
  .strictObject({
    ...fields,
    name: fields.name.optional(),
    steps: fields.steps.optional(),
    uuid: z.string().optional(),
    provisioned: z.boolean().optional(),
    created_at: z.string().optional(),
    updated_at: z.string().optional(),
  })
  .openapi('EscalationPolicyUpdate');
const AttachBody = z
  .strictObject({
    monitors: z.array(z.string({ error: 'must be a monitor uuid' }), { error: 'must be an array of monitor uuids' }).max(10_000).default([]),
    healthchecks: z.array(z.string({ error: 'must be a healthcheck uuid' }), { error: 'must be an array of healthcheck uuids' }).max(10_000).default([]),
  })
  .openapi('EscalationPolicyAttach');

const steps = (s: z.infer<typeof BodyStep>[]): PolicyStep[] => s.map((x) => ({ delayMinutes: x.delay_minutes, targets: x.targets.map((t) => ({ type: t.type as PolicyStep['targets'][number]['type'], uuid: t.uuid })) }));

const tags = ['Escalation policies'];

/**
 * /v1/escalation-policies (issue 32 point 1): stored policies, steps of a delay and targets. Thin
 * handlers: parse → core → JSON. Provisioned ones (config.yaml) are read-only (409).
 */
export function escalationPoliciesRouter(deps: Pick<HttpDeps, 'core'>) {
  const { core } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.openapi(
    createRoute({ method: 'get', path: '/', tags, summary: 'List escalation policies', responses: { 200: json(z.array(PolicySchema), 'All policies, by name'), ...COMMON_ERRORS } }),
    async (c) => c.json((await core.escalationPolicies.list()).map(toPolicyJson), 200),
  );
  app.openapi(
    createRoute({ method: 'post', path: '/', tags, summary: 'Create an escalation policy', request: jsonBody(CreateBody), responses: { 201: json(PolicySchema, 'The created policy'), ...COMMON_ERRORS, ...BODY_ERRORS, ...CONFLICT } }),
    async (c) => {
      const b = c.req.valid('json');
      const p = await core.escalationPolicies.create({ name: b.name, team: b.team, steps: steps(b.steps), repeatCount: b.repeat_count, repeatEveryMinutes: b.repeat_every_minutes, policyRepeats: b.policy_repeats }, apiActor(c.var.principal));
      return c.json(toPolicyJson(p), 201);
    },
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}', tags, summary: 'Get an escalation policy', request: { params: UuidParam }, responses: { 200: json(PolicySchema, 'The policy'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(toPolicyJson(await core.escalationPolicies.get(c.req.valid('param').uuid)), 200),
  );
  for (const method of ['put', 'patch'] as const) {
    app.openapi(
      createRoute({
        method,
        path: '/{uuid}',
        tags,
        summary: 'Update an escalation policy (partial: fields left out keep their values; steps replaced whole)',
        request: { params: UuidParam, ...jsonBody(UpdateBody) },
        responses: { 200: json(PolicySchema, 'The updated policy'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND, ...CONFLICT },
      }),
      async (c) => {
        const b = c.req.valid('json');
        const patch = { name: b.name, team: b.team, steps: b.steps && steps(b.steps), repeatCount: b.repeat_count, repeatEveryMinutes: b.repeat_every_minutes, policyRepeats: b.policy_repeats };
        return c.json(toPolicyJson(await core.escalationPolicies.update(c.req.valid('param').uuid, patch, apiActor(c.var.principal))), 200);
      },
    );
  }
  app.openapi(
    createRoute({
      method: 'delete',
      path: '/{uuid}',
      tags,
      summary: 'Delete an escalation policy (409 escalation_policies.in_use naming the monitors and healthchecks that use it)',
      request: { params: UuidParam },
      responses: { 200: json(MessageSchema, 'Deleted'), ...COMMON_ERRORS, ...NOT_FOUND, ...CONFLICT },
    }),
    async (c) => {
      await core.escalationPolicies.delete(c.req.valid('param').uuid, apiActor(c.var.principal));
      return c.json({ message: 'Escalation policy deleted' }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/{uuid}/attach',
      tags,
      summary: 'Give many monitors and healthchecks this policy at once (one transaction: an unknown uuid changes nothing)',
      request: { params: UuidParam, ...jsonBody(AttachBody) },
      responses: { 200: json(z.object({ message: z.string(), monitors: z.number(), healthchecks: z.number() }), 'How many changed'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const b = c.req.valid('json');
      const n = await core.escalationPolicies.attach(c.req.valid('param').uuid, { monitors: b.monitors, healthchecks: b.healthchecks }, apiActor(c.var.principal));
      return c.json({ message: 'Escalation policy attached', ...n }, 200);
    },
  );
  return app;
}
