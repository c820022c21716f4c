import { z } from 'zod';
import type { EscalationPolicy } from '../../domain/escalation-policy.ts';
import { toPolicyJson } from '../api/escalation-policies.ts';
import { toIntegrationJson } from '../api/integrations.ts';
import { scheduleJson } from '../api/on-call-schemas.ts';
import { toTeamMemberJson } from '../api/people.ts';
import type { ScheduleView } from '../../core/on-call.ts';
import { tool, type ToolContext, type ToolDef } from './tool.ts';

/**
 * Policy → hyperping-go `EscalationPolicy` (mcp_models.go): the fields of GET
 * /v1/escalation-policies, but `steps` flattened to one `{delay, target_type, target_id}` per target
 * (`delay` in minutes from the outage's first alert, as the policy's `delay_minutes`).
 */
export function mcpPolicy(p: EscalationPolicy): Record<string, unknown> {
  return { ...toPolicyJson(p), steps: p.steps.flatMap((s) => s.targets.map((t) => ({ delay: s.delayMinutes, target_type: t.type, target_id: t.uuid }))) };
}

/** Schedules → the GET /v1/on-call-schedules shape, which carries hyperping-go's `OnCallSchedule` fields (current_oncall, next_oncall, rotation_start, rotation_end). */
async function schedules(views: ScheduleView[], ctx: ToolContext) {
  const people = await ctx.core.onCall.people(views.flatMap((v) => [v.current?.userUuid, v.next?.userUuid].filter((u): u is string => u !== undefined)));
  return views.map((v) => scheduleJson(v.schedule, v.current, v.next, people));
}

const uuidArg = { uuid: z.string() };

/** Escalation policies, integrations, on-call schedules and team members (read-only tools). */
export const onCallTools: ToolDef[] = [
  tool({
    name: 'list_escalation_policies',
    description: 'Escalation policies: who is alerted after how many minutes (steps of targets: users, schedules, integrations).',
    input: {},
    run: async (_a, ctx) => (await ctx.core.escalationPolicies.list()).map(mcpPolicy),
  }),
  tool({
    name: 'get_escalation_policy',
    description: 'One escalation policy with its steps.',
    input: uuidArg,
    run: async (a, ctx) => mcpPolicy(await ctx.core.escalationPolicies.get(a.uuid)),
  }),
  tool({
    name: 'list_integrations',
    description: 'Integrations (alert channels: email, Slack, webhook, PagerDuty, …), their secrets masked.',
    input: {},
    run: async (_a, ctx) => (await ctx.core.integrations.list()).map(toIntegrationJson),
  }),
  tool({
    name: 'get_integration',
    description: 'One integration, its secrets masked.',
    input: uuidArg,
    run: async (a, ctx) => toIntegrationJson(await ctx.core.integrations.get(a.uuid)),
  }),
  tool({
    name: 'list_on_call_schedules',
    description: 'On-call schedules with who is on call now and next (user uuids, and the people under current_oncall_user, next_oncall_user).',
    input: {},
    run: async (_a, ctx) => ({ schedules: await schedules(await ctx.core.onCall.list(), ctx) }),
  }),
  tool({
    name: 'get_on_call_schedule',
    description: 'One on-call schedule: its layers, who is on call now and next, and when the current turn started and ends.',
    input: uuidArg,
    run: async (a, ctx) => (await schedules([await ctx.core.onCall.get(a.uuid)], ctx))[0],
  }),
  tool({
    name: 'list_team_members',
    description: 'The team: each member\'s uuid, email, name, phone and role.',
    input: {},
    run: async (_a, ctx) => (await ctx.core.people.members()).map(toTeamMemberJson),
  }),
];
