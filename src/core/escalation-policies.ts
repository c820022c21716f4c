import { auditDiff, type AuditActor, type AuditDiff } from '../domain/audit.ts';
import { TARGET_TYPES, type EscalationPolicy, type EscalationPolicyWrite, type PolicyStep } from '../domain/escalation-policy.ts';
import type { Healthcheck } from '../domain/healthcheck.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import type { Monitor } from '../domain/monitor.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, conflict, invalid, notFound } from '../lib/errors.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import type { EventBus } from './events.ts';

/**
 * Escalation policies as stored objects (issue 32 point 1): what the API, the console, provisioning
 * from config.yaml and the Kuma import create, change, delete and attach to monitors and
 * healthchecks. Escalation reads them from the store at the time of use (core/escalation.ts), so a
 * change applies to the next send on every instance. Every write appends its audit entry in its own
 * procedure.
 */

/** Longest policy name, characters. */
export const POLICY_NAME_MAX = 100;
/** Most steps in a policy, and targets in a step. */
export const POLICY_STEPS_MAX = 20;
/** Largest step delay, minutes (one week). */
export const POLICY_DELAY_MAX = 10_080;
/** Largest repeat count (0: the last step repeats until the outage is acknowledged or resolved). */
export const POLICY_REPEAT_MAX = 1000;
/** Most rounds of a whole policy after the first (`policy_repeats`). */
export const POLICY_ROUNDS_MAX = 100;

/** What creating a policy takes (camelCase; the API maps its snake_case body). */
export interface PolicyInput {
  name: string;
  team?: string | null | undefined;
  steps: PolicyStep[];
  repeatCount?: number | undefined;
  repeatEveryMinutes?: number | null | undefined;
  /** Rounds of the whole policy after its last step, unless acknowledged (issue 34; default 0). */
  policyRepeats?: number | undefined;
  /** Provisioning only: the uuid config.yaml declares. */
  uuid?: string | undefined;
}

/** A partial update: fields left out keep their values (`steps` replaced whole when given). */
export type PolicyPatch = Partial<Omit<PolicyInput, 'uuid'>>;

/** Who may write provisioned policies: provisioning itself (config.yaml), nobody else. */
export interface PolicyWriteOptions {
  provisioning?: boolean;
}

/** What attaching changes: monitors and healthchecks (`tok_…` or `hc_…`) by uuid. */
export interface AttachInput {
  monitors: string[];
  healthchecks: string[];
}

/** The audit view of a policy: the fields a person sets (the diff of every policy's audit entry, API, console and import). */
export const policyAuditView = (p: EscalationPolicyWrite) => ({
  name: p.name,
  team: p.team,
  steps: p.steps.map((s) => ({ delay_minutes: s.delayMinutes, targets: s.targets.map((t) => ({ type: t.type, uuid: t.uuid })) })),
  repeat_count: p.repeatCount,
  repeat_every_minutes: p.repeatEveryMinutes,
  // Only when set: entries of policies without rounds keep their shape.
  ...(p.policyRepeats ? { policy_repeats: p.policyRepeats } : {}),
  provisioned: p.provisioned,
});

const intIn = (v: unknown, min: number, max: number) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/**
 * Checks a policy's fields (shape and ranges; each 400 names the field as the API spells it). Target
 * types `user` and `schedule` are refused unless `allowPeople` (the API and the console allow them since issue 34).
 * @throws AppError 400 `validation.invalid`
 */
export function checkPolicy(w: EscalationPolicyWrite, allowPeople = false): EscalationPolicyWrite {
  const name = w.name.trim();
  if (name.length === 0) throw invalid('name', 'must not be empty');
  if (name.length > POLICY_NAME_MAX) throw invalid('name', `must be at most ${POLICY_NAME_MAX} characters`);
  const team = w.team === null ? null : w.team.trim() || null;
  if (team !== null && team.length > POLICY_NAME_MAX) throw invalid('team', `must be at most ${POLICY_NAME_MAX} characters`);
  if (w.steps.length === 0) throw invalid('steps', 'must have at least one step');
  if (w.steps.length > POLICY_STEPS_MAX) throw invalid('steps', `must have at most ${POLICY_STEPS_MAX} steps`);
  w.steps.forEach((s, i) => {
    if (!intIn(s.delayMinutes, 0, POLICY_DELAY_MAX)) throw invalid(`steps[${i}].delay_minutes`, `must be a whole number of minutes from 0 to ${POLICY_DELAY_MAX}`);
    if (i > 0 && s.delayMinutes < w.steps[i - 1]!.delayMinutes) throw invalid(`steps[${i}].delay_minutes`, 'must not be less than the previous step\'s');
    if (s.targets.length > POLICY_STEPS_MAX) throw invalid(`steps[${i}].targets`, `must have at most ${POLICY_STEPS_MAX} targets`);
    s.targets.forEach((t, j) => {
      if (!(TARGET_TYPES as readonly string[]).includes(t.type)) throw invalid(`steps[${i}].targets[${j}].type`, `must be one of ${TARGET_TYPES.join(', ')}`);
      if (t.type !== 'integration' && !allowPeople) throw invalid(`steps[${i}].targets[${j}].type`, 'user and schedule targets arrive with on-call schedules');
      if (typeof t.uuid !== 'string' || t.uuid.length === 0) throw invalid(`steps[${i}].targets[${j}].uuid`, 'must be a uuid');
    });
  });
  if (!intIn(w.repeatCount, 0, POLICY_REPEAT_MAX)) throw invalid('repeat_count', `must be a whole number from 0 to ${POLICY_REPEAT_MAX}`);
  if (w.repeatEveryMinutes !== null && !intIn(w.repeatEveryMinutes, 1, POLICY_DELAY_MAX)) throw invalid('repeat_every_minutes', `must be a whole number of minutes from 1 to ${POLICY_DELAY_MAX}, or null`);
  const rounds = w.policyRepeats ?? 0;
  if (!intIn(rounds, 0, POLICY_ROUNDS_MAX)) throw invalid('policy_repeats', `must be a whole number from 0 to ${POLICY_ROUNDS_MAX}`);
  if (rounds > 0 && w.repeatCount > 0) throw invalid('policy_repeats', 'cannot be combined with repeat_count (rounds of the whole policy replace the repeats of the last step)');
  return { ...w, name, team, policyRepeats: rounds };
}

/**
 * Checks in `tx` that every target exists: an integration, a person (a console user: GET
 * /v1/team-members) or an on-call schedule (issue 34 point 3). @throws AppError 400 naming the target
 */
function checkTargets(tx: Store, w: EscalationPolicyWrite): void {
  w.steps.forEach((s, i) =>
    s.targets.forEach((t, j) => {
      const field = `steps[${i}].targets[${j}].uuid`;
      if (t.type === 'integration' && !tx.integrations.get(t.uuid)) throw invalid(field, `no integration "${t.uuid}" (use a uuid from GET /v1/integrations)`);
      if (t.type === 'user' && !tx.people.member(t.uuid)) throw invalid(field, `no team member "${t.uuid}" (use a uuid from GET /v1/team-members)`);
      if (t.type === 'schedule' && !tx.onCall.get(t.uuid)) throw invalid(field, `no on-call schedule "${t.uuid}" (use a uuid from GET /v1/on-call-schedules)`);
    }),
  );
}

function mustGet(tx: Store, uuid: string): EscalationPolicy {
  const p = tx.escalationPolicies.get(uuid);
  if (!p) throw notFound('escalation_policies', 'Escalation policy');
  return p;
}

function refuseProvisioned(p: EscalationPolicy, provisioning: boolean): void {
  if (p.provisioned && !provisioning) throw conflict('escalation_policies.provisioned', `escalation policy "${p.name}" is declared in config.yaml: change it there (then reload with SIGHUP)`);
}

function refuseTakenName(tx: Store, name: string, uuid: string | null): void {
  const other = tx.escalationPolicies.getByName(name);
  if (other && other.uuid !== uuid) throw new AppError(409, 'escalation_policies.name_taken', `name: "${name}" is taken by another escalation policy (${other.uuid})`, [{ path: 'name', message: 'is taken' }]);
}

/** Monitors and healthchecks that use policy `uuid`. */
function usersOf(tx: Store, uuid: string): { monitors: Monitor[]; healthchecks: Healthcheck[] } {
  return { monitors: tx.monitors.list().filter((m) => m.escalationPolicyUuid === uuid), healthchecks: tx.healthchecks.list().filter((h) => h.escalationPolicyUuid === uuid) };
}

interface Stamp {
  actor: AuditActor;
  now: number;
}

const append = (tx: Store, a: Stamp, action: 'create' | 'update' | 'delete', p: { uuid: string; name: string }, diff: AuditDiff, resourceType: 'escalation_policy' | 'monitor' | 'healthcheck' = 'escalation_policy') =>
  tx.auditLog.append({ at: a.now, actor: a.actor, action, resourceType, resourceUuid: p.uuid, resourceName: p.name, diff });

/** Inserts a policy (targets checked) with its audit entry. @throws AppError 400 / 409 */
const createPolicy = procedure('escalationPolicies.create', (tx: Store, a: Stamp & { uuid: string; write: EscalationPolicyWrite }): EscalationPolicy => {
  if (tx.escalationPolicies.get(a.uuid)) throw conflict('escalation_policies.uuid_taken', `uuid: "${a.uuid}" is taken by another escalation policy`);
  refuseTakenName(tx, a.write.name, null);
  checkTargets(tx, a.write);
  const p = tx.escalationPolicies.insert(a.uuid, a.write, a.now);
  append(tx, a, 'create', p, auditDiff(null, policyAuditView(p)));
  return p;
});

/** Reads, merges, checks and replaces a policy, with its audit entry. @throws AppError 404 / 400 / 409 */
const updatePolicy = procedure('escalationPolicies.update', (tx: Store, a: Stamp & { uuid: string; patch: PolicyPatch; provisioning: boolean; allowPeople: boolean }): EscalationPolicy => {
  const current = mustGet(tx, a.uuid);
  refuseProvisioned(current, a.provisioning);
  const write = checkPolicy(
    {
      name: a.patch.name ?? current.name,
      team: a.patch.team === undefined ? current.team : a.patch.team,
      steps: a.patch.steps ?? current.steps,
      repeatCount: a.patch.repeatCount ?? current.repeatCount,
      repeatEveryMinutes: a.patch.repeatEveryMinutes === undefined ? current.repeatEveryMinutes : a.patch.repeatEveryMinutes,
      policyRepeats: a.patch.policyRepeats ?? current.policyRepeats ?? 0,
      provisioned: a.provisioning ? true : current.provisioned,
    },
    a.allowPeople,
  );
  refuseTakenName(tx, write.name, a.uuid);
  checkTargets(tx, write);
  const diff = auditDiff(policyAuditView(current), policyAuditView(write));
  if (Object.keys(diff).length === 0) return current;
  const p = tx.escalationPolicies.update(a.uuid, write, Math.max(a.now, current.updatedAt + 1))!;
  append(tx, a, 'update', p, diff);
  return p;
});

/** Marks a policy as no longer declared in config.yaml. @throws AppError 404 */
const unprovisionPolicy = procedure('escalationPolicies.unprovision', (tx: Store, a: Stamp & { uuid: string }): EscalationPolicy => {
  const current = mustGet(tx, a.uuid);
  if (!current.provisioned) return current;
  const p = tx.escalationPolicies.update(a.uuid, { ...current, provisioned: false }, Math.max(a.now, current.updatedAt + 1))!;
  append(tx, a, 'update', p, { provisioned: { before: true, after: false } });
  return p;
});

/**
 * Deletes a policy no monitor or healthcheck uses, with its audit entry.
 * @throws AppError 404; 409 `escalation_policies.provisioned`, `escalation_policies.in_use` naming the users
 */
const deletePolicy = procedure('escalationPolicies.delete', (tx: Store, a: Stamp & { uuid: string; provisioning: boolean }): EscalationPolicy => {
  const current = mustGet(tx, a.uuid);
  refuseProvisioned(current, a.provisioning);
  const { monitors, healthchecks } = usersOf(tx, a.uuid);
  if (monitors.length + healthchecks.length > 0) {
    const names = [...monitors.map((m) => `monitor "${m.name}" (${m.uuid})`), ...healthchecks.map((h) => `healthcheck "${h.name}" (${h.publicUuid})`)];
    const shown = names.length > 10 ? [...names.slice(0, 10), `${names.length - 10} more`] : names;
    throw conflict('escalation_policies.in_use', `escalation policy "${current.name}" is used by ${shown.join(', ')}: give them another policy first`);
  }
  tx.escalationPolicies.delete(a.uuid);
  append(tx, a, 'delete', current, auditDiff(policyAuditView(current), null));
  return current;
});

/**
 * Links policy `uuid` to every monitor and healthcheck named (one transaction: all or nothing), with
 * an audit entry per one that changed. @returns the changed ones
 * @throws AppError 404 for the policy; 400 naming `monitors[i]` / `healthchecks[i]` for an unknown uuid
 */
const attachPolicy = procedure('escalationPolicies.attach', (tx: Store, a: Stamp & { uuid: string; attach: AttachInput }): { monitors: Monitor[]; healthchecks: Healthcheck[] } => {
  const policy = mustGet(tx, a.uuid);
  const monitors = a.attach.monitors.map((u, i) => {
    const m = tx.monitors.get(u);
    if (!m) throw invalid(`monitors[${i}]`, `no monitor "${u}"`);
    return m;
  });
  const healthchecks = a.attach.healthchecks.map((u, i) => {
    const h = u.startsWith(ID_PREFIX.healthcheckPublic) ? tx.healthchecks.getByPublicUuid(u) : tx.healthchecks.get(u);
    if (!h) throw invalid(`healthchecks[${i}]`, `no healthcheck "${u}"`);
    return h;
  });
  const changed = { monitors: [] as Monitor[], healthchecks: [] as Healthcheck[] };
  const diff = (before: string | null): AuditDiff => ({ escalation_policy: { before: before ?? null, after: policy.uuid } });
  for (const m of new Map(monitors.map((m) => [m.uuid, m])).values()) {
    if (m.escalationPolicyUuid === policy.uuid) continue;
    changed.monitors.push(tx.monitors.update(m.uuid, { ...m, escalationPolicyUuid: policy.uuid }, a.now)!);
    append(tx, a, 'update', m, diff(m.escalationPolicyUuid), 'monitor');
  }
  for (const h of new Map(healthchecks.map((h) => [h.uuid, h])).values()) {
    if (h.escalationPolicyUuid === policy.uuid) continue;
    changed.healthchecks.push(tx.healthchecks.update(h.id, { ...h, escalationPolicyUuid: policy.uuid }, a.now));
    append(tx, a, 'update', { uuid: h.publicUuid, name: h.name }, diff(h.escalationPolicyUuid), 'healthcheck');
  }
  return changed;
});

/** Escalation policies service (issue 32). */
export function escalationPoliciesService(deps: { store: Store; clock: Clock; bus: EventBus }) {
  const { store, clock, bus } = deps;
  return {
    /** Every policy, by name. */
    list: (): Promise<EscalationPolicy[]> => store.async.escalationPolicies.list(),
    /** One. @throws (rejects) AppError 404 `escalation_policies.not_found` */
    async get(uuid: string): Promise<EscalationPolicy> {
      const p = await store.async.escalationPolicies.get(uuid);
      if (!p) throw notFound('escalation_policies', 'Escalation policy');
      return p;
    },
    /** True when policy `uuid` exists (a monitor's or an outage's reference). */
    exists: async (uuid: string): Promise<boolean> => (await store.async.escalationPolicies.get(uuid)) !== undefined,
    /** Monitors and healthchecks using `uuid`, `{uuid, name}` each (healthchecks by their public `hc_` uuid). */
    async usedBy(uuid: string): Promise<{ monitors: Array<{ uuid: string; name: string }>; healthchecks: Array<{ uuid: string; name: string }> }> {
      const [monitors, healthchecks] = await Promise.all([store.async.monitors.list(), store.async.healthchecks.list()]);
      return {
        monitors: monitors.filter((m) => m.escalationPolicyUuid === uuid).map((m) => ({ uuid: m.uuid, name: m.name })),
        healthchecks: healthchecks.filter((h) => h.escalationPolicyUuid === uuid).map((h) => ({ uuid: h.publicUuid, name: h.name })),
      };
    },
    /**
     * Creates a policy; integration targets must exist.
     * @throws (rejects) AppError 400 naming the field; 409 `escalation_policies.name_taken`
     */
    async create(input: PolicyInput, actor: AuditActor, opts: PolicyWriteOptions = {}): Promise<EscalationPolicy> {
      const provisioning = opts.provisioning === true;
      const write = checkPolicy({ name: input.name, team: input.team ?? null, steps: input.steps, repeatCount: input.repeatCount ?? 0, repeatEveryMinutes: input.repeatEveryMinutes ?? null, policyRepeats: input.policyRepeats ?? 0, provisioned: provisioning }, true);
      const uuid = provisioning && input.uuid ? input.uuid : newId(ID_PREFIX.escalationPolicy);
      return store.async.tx(createPolicy, { uuid, write, actor, now: clock.now() });
    },
    /**
     * Partial update (fields left out keep their values; `steps` replaced whole), checked as a whole.
     * @throws (rejects) AppError 404; 400; 409 `escalation_policies.provisioned` / `name_taken`
     */
    update: (uuid: string, patch: PolicyPatch, actor: AuditActor, opts: PolicyWriteOptions = {}): Promise<EscalationPolicy> =>
      store.async.tx(updatePolicy, { uuid, patch, provisioning: opts.provisioning === true, allowPeople: true, actor, now: clock.now() }),
    /** Marks a provisioned policy as no longer in config.yaml (kept: something uses it). @throws (rejects) AppError 404 */
    unprovision: (uuid: string, actor: AuditActor): Promise<EscalationPolicy> => store.async.tx(unprovisionPolicy, { uuid, actor, now: clock.now() }),
    /**
     * Deletes a policy no monitor or healthcheck uses.
     * @throws (rejects) AppError 404; 409 `escalation_policies.provisioned`, `escalation_policies.in_use` naming them
     */
    delete: (uuid: string, actor: AuditActor, opts: PolicyWriteOptions = {}): Promise<EscalationPolicy> =>
      store.async.tx(deletePolicy, { uuid, provisioning: opts.provisioning === true, actor, now: clock.now() }),
    /**
     * Gives every named monitor and healthcheck this policy, in one transaction (provisioned policies
     * too: attaching changes the monitors, not the policy).
     * @returns how many of each changed (already attached ones are left as they are)
     * @throws (rejects) AppError 404; 400 naming `monitors[i]` / `healthchecks[i]`
     */
    async attach(uuid: string, input: AttachInput, actor: AuditActor): Promise<{ monitors: number; healthchecks: number }> {
      const changed = await store.async.tx(attachPolicy, { uuid, attach: input, actor, now: clock.now() });
      for (const monitor of changed.monitors) bus.emit('monitor.updated', { monitor });
      for (const healthcheck of changed.healthchecks) bus.emit('healthcheck.changed', { healthcheck });
      return { monitors: changed.monitors.length, healthchecks: changed.healthchecks.length };
    },
  };
}

/** The escalation policies service's interface. */
export type EscalationPoliciesService = ReturnType<typeof escalationPoliciesService>;
