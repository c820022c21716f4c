import type { Hono } from 'hono';
import type { EscalationPolicy, PolicyStep, TargetType } from '../../domain/escalation-policy.ts';
import { ID_PREFIX } from '../../domain/ids.ts';
import { AppError } from '../../lib/errors.ts';
import type { HttpDeps } from '../context.ts';
import { NewPolicyPage, PoliciesPage, PolicyPage, type PolicyFormValues, type TargetChoice } from '../../../views/console/policies.tsx';
import type { FormErrors, FormValues } from '../../../views/console/model.ts';
import { page, shellOf, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { errorStatus, formOf, numberish, text } from './forms.ts';
import { consoleActor } from '../audit-actor.ts';
import { plural } from '../../../views/format.ts';

/** Flash messages after a redirect, by the `done` code of the URL. */
const DONE: Record<string, string> = { created: 'Escalation policy created.', saved: 'Saved.', deleted: 'Escalation policy deleted.' };

/** A target's type from its uuid's prefix (the step editor's checkboxes carry uuids only; issue 34: people and schedules too). */
const typeOf = (uuid: string): TargetType => (uuid.startsWith(ID_PREFIX.onCallSchedule) ? 'schedule' : uuid.startsWith(ID_PREFIX.user) ? 'user' : 'integration');

const list = (f: FormValues, name: string): string[] => {
  const x = f[name];
  return x === undefined ? [] : Array.isArray(x) ? x : [x];
};

/** The posted step editor as typed (its steps counted by the hidden `steps` field, at least one). */
export function policyFormOf(f: FormValues): PolicyFormValues {
  const n = Math.min(Math.max(Number.parseInt(text(f, 'steps'), 10) || 1, 1), 50);
  const steps = Array.from({ length: n }, (_, i) => ({ delay: text(f, `step_${i}_delay`), targets: list(f, `step_${i}_targets`) }));
  return { name: text(f, 'name'), team: text(f, 'team'), steps, repeat_count: text(f, 'repeat_count'), repeat_every_minutes: text(f, 'repeat_every_minutes'), policy_repeats: text(f, 'policy_repeats') };
}

/** A stored policy as the step editor shows it. */
export function policyValues(p: EscalationPolicy): PolicyFormValues {
  return {
    name: p.name,
    team: p.team ?? '',
    steps: p.steps.map((s) => ({ delay: String(s.delayMinutes), targets: s.targets.map((t) => t.uuid) })),
    repeat_count: String(p.repeatCount),
    repeat_every_minutes: p.repeatEveryMinutes === null ? '' : String(p.repeatEveryMinutes),
    policy_repeats: String(p.policyRepeats ?? 0),
  };
}

/** The step editor as core's policy input (numbers typed as text stay text, so core names the rule). */
function policyInput(v: PolicyFormValues) {
  const steps = v.steps.map((s) => ({ delayMinutes: numberish(s.delay.trim() === '' ? '0' : s.delay) as number, targets: s.targets.map((uuid) => ({ type: typeOf(uuid), uuid })) })) satisfies PolicyStep[];
  return {
    name: v.name,
    team: v.team.trim() === '' ? null : v.team,
    steps,
    repeatCount: numberish(v.repeat_count.trim() === '' ? '0' : v.repeat_count) as number,
    repeatEveryMinutes: v.repeat_every_minutes.trim() === '' ? null : (numberish(v.repeat_every_minutes) as number),
    policyRepeats: numberish((v.policy_repeats ?? '').trim() === '' ? '0' : v.policy_repeats!) as number,
  };
}

/** "Add step" / "Remove step i": the form with one step more or less (nothing saved), or null to save. */
function edited(v: PolicyFormValues, op: string): PolicyFormValues | null {
  if (op === 'add-step') {
    const last = v.steps.at(-1);
    return { ...v, steps: [...v.steps, { delay: String((Number(last?.delay) || 0) + 10), targets: [] }] };
  }
  const m = /^remove-(\d+)$/.exec(op);
  if (m) return { ...v, steps: v.steps.length > 1 ? v.steps.filter((_, i) => i !== Number(m[1])) : v.steps };
  return null;
}

/** Core's refusal as the step editor shows it: `steps[1].delay_minutes` beside step 2's delay, etc. */
export function policyFormErrors(e: unknown): FormErrors {
  if (!(e instanceof AppError) || e.status >= 500) throw e;
  const fields: Record<string, string> = {};
  const put = (path: string, message: string) => {
    const step = /^steps\[(\d+)\]\.(delay_minutes|targets)/.exec(path);
    const key = step ? `step_${step[1]}_${step[2] === 'delay_minutes' ? 'delay' : 'targets'}` : path.replace(/\[.*$/, '');
    fields[key] ??= message;
  };
  for (const d of e.details ?? []) put(d.path, d.message);
  const m = /^([a-z_]+(?:\[\d+\][\w.[\]]*)?): (.*)$/s.exec(e.message);
  if (m && (e.details ?? []).length === 0) put(m[1]!, m[2]!);
  return { message: e.message, fields };
}

/**
 * The Escalation policies pages (issue 32 point 3): list, a step editor (add and remove steps, each
 * a delay and the stored integrations it alerts; repeat count and interval), and attaching a policy
 * to many monitors and healthchecks at once (core.escalationPolicies.attach: one transaction). The
 * same use cases as /v1/escalation-policies, with the signed-in person as the audit actor; plain
 * forms that post and redirect, enhanced by htmx. Provisioned policies: steps read-only.
 */
export function policyRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core } = deps;
  // Integrations, then on-call schedules (whoever is on call when the step fires) and people (issue 34).
  const targets = async (): Promise<TargetChoice[]> => {
    const [integrations, schedules, people] = await Promise.all([core.integrations.list(), core.onCall.list(), core.people.members()]);
    return [
      ...integrations.map((i) => ({ uuid: i.uuid, name: i.name, kind: i.kind, enabled: i.enabled })),
      ...schedules.map((v) => ({ uuid: v.schedule.uuid, name: `On call: ${v.schedule.name}`, kind: 'schedule', enabled: true })),
      ...people.map((m) => ({ uuid: m.uuid, name: m.name || m.email, kind: 'person', enabled: m.disabledAt === null })),
    ];
  };
  const found = async (uuid: string): Promise<EscalationPolicy | null> => {
    try {
      return await core.escalationPolicies.get(uuid);
    } catch (e) {
      if (e instanceof AppError && e.status === 404) return null;
      throw e;
    }
  };
  const show = async (c: ConsoleContext, p: EscalationPolicy, extra: { v?: PolicyFormValues; errors?: FormErrors } = {}, status: 200 | 400 | 403 | 404 | 409 | 429 = 200) => {
    const [monitors, healthchecks, policies, choices] = await Promise.all([core.monitors.list(), core.healthchecks.list(), core.escalationPolicies.list(), targets()]);
    const nameOf = (u: string | null) => (u === null ? null : (policies.find((x) => x.uuid === u)?.name ?? u));
    const choice = (x: { uuid: string; name: string; escalationPolicyUuid: string | null }) => ({ uuid: x.uuid, name: x.name, attached: x.escalationPolicyUuid === p.uuid, other: x.escalationPolicyUuid === p.uuid ? null : nameOf(x.escalationPolicyUuid) });
    return page(
      c,
      PolicyPage({
        s: shellOf(c, '/escalation-policies'),
        p,
        v: extra.v ?? policyValues(p),
        targets: choices,
        monitors: monitors.map(choice),
        healthchecks: healthchecks.map((h) => choice({ ...h, uuid: h.publicUuid })),
        errors: extra.errors,
        notice: attachedNotice(c) ?? DONE[c.req.query('done') ?? ''],
      }),
      status,
    );
  };

  app.get('/escalation-policies', async (c) => {
    const [policies, choices, monitors, healthchecks] = await Promise.all([core.escalationPolicies.list(), targets(), core.monitors.list(), core.healthchecks.list()]);
    const nameOf = (u: string) => choices.find((t) => t.uuid === u)?.name ?? u;
    const rows = policies.map((p) => ({
      uuid: p.uuid,
      name: p.name,
      team: p.team,
      provisioned: p.provisioned,
      summary: p.steps.map((s) => `${s.delayMinutes} min: ${s.targets.map((t) => nameOf(t.uuid)).join(', ') || 'nobody'}`).join(' · '),
      users: monitors.filter((m) => m.escalationPolicyUuid === p.uuid).length + healthchecks.filter((h) => h.escalationPolicyUuid === p.uuid).length,
    }));
    return page(c, PoliciesPage({ s: shellOf(c, '/escalation-policies'), rows, notice: DONE[c.req.query('done') ?? ''] }));
  });

  const blank = (): PolicyFormValues => ({ name: '', team: '', steps: [{ delay: '0', targets: [] }], repeat_count: '0', repeat_every_minutes: '' });
  app.get('/escalation-policies/new', async (c) => page(c, NewPolicyPage({ s: shellOf(c, '/escalation-policies'), v: blank(), targets: await targets() })));

  app.post('/escalation-policies', async (c) => {
    const f = await formOf(c);
    const v = policyFormOf(f);
    const next = edited(v, text(f, 'op'));
    if (next) return page(c, NewPolicyPage({ s: shellOf(c, '/escalation-policies'), v: next, targets: await targets() }));
    try {
      const p = await core.escalationPolicies.create(policyInput(v), consoleActor(c.var.session!));
      return c.redirect(`/escalation-policies/${p.uuid}?done=created`, 303);
    } catch (e) {
      return page(c, NewPolicyPage({ s: shellOf(c, '/escalation-policies'), v, targets: await targets(), errors: policyFormErrors(e) }), errorStatus(e));
    }
  });

  app.get('/escalation-policies/:uuid', async (c) => {
    const p = await found(c.req.param('uuid'));
    return p ? show(c, p) : c.notFound();
  });

  app.post('/escalation-policies/:uuid', async (c) => {
    const p = await found(c.req.param('uuid'));
    if (!p) return c.notFound();
    const f = await formOf(c);
    const v = policyFormOf(f);
    const next = edited(v, text(f, 'op'));
    if (next) return show(c, p, { v: next });
    try {
      await core.escalationPolicies.update(p.uuid, policyInput(v), consoleActor(c.var.session!));
      return c.redirect(`/escalation-policies/${p.uuid}?done=saved`, 303);
    } catch (e) {
      return show(c, p, { v, errors: policyFormErrors(e) }, errorStatus(e));
    }
  });

  app.post('/escalation-policies/:uuid/attach', async (c) => {
    const p = await found(c.req.param('uuid'));
    if (!p) return c.notFound();
    const f = await formOf(c);
    try {
      const n = await core.escalationPolicies.attach(p.uuid, { monitors: list(f, 'monitors'), healthchecks: list(f, 'healthchecks') }, consoleActor(c.var.session!));
      return c.redirect(`/escalation-policies/${p.uuid}?attached=${n.monitors}.${n.healthchecks}`, 303);
    } catch (e) {
      return show(c, p, { errors: policyFormErrors(e) }, errorStatus(e));
    }
  });

  app.post('/escalation-policies/:uuid/delete', async (c) => {
    const p = await found(c.req.param('uuid'));
    if (!p) return c.notFound();
    try {
      await core.escalationPolicies.delete(p.uuid, consoleActor(c.var.session!));
    } catch (e) {
      return show(c, p, { errors: policyFormErrors(e) }, errorStatus(e));
    }
    return c.redirect('/escalation-policies?done=deleted', 303);
  });
}

/** "Attached to 3 monitors and 0 healthchecks." from `?attached=3.0` (numbers only). */
function attachedNotice(c: ConsoleContext): string | undefined {
  const m = /^(\d{1,6})\.(\d{1,6})$/.exec(c.req.query('attached') ?? '');
  if (!m) return undefined;
  return `Attached to ${plural(Number(m[1]), 'monitor')} and ${plural(Number(m[2]), 'healthcheck')}.`;
}
