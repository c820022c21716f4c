import { usesTarget, type EscalationPolicy, type EscalationPolicyWrite, type PolicyStep, type TargetType } from '../domain/escalation-policy.ts';
import type { Db } from './db.ts';

interface Row {
  uuid: string;
  name: string;
  team: string | null;
  steps: string;
  repeat_count: number;
  repeat_every_minutes: number | null;
  provisioned: number;
  created_at: number;
  updated_at: number;
}

/**
 * Steps as stored: the API's shape, `[{delay_minutes, targets: [{type, uuid}]}]`; a policy that runs
 * again in rounds (issue 34, `policyRepeats` > 0) stores `{steps: […], policy_repeats: N}` in the same
 * column (no schema change; a plain array is 0 rounds).
 */
type StoredSteps = Array<{ delay_minutes: number; targets: Array<{ type: TargetType; uuid: string }> }>;
type StoredPlan = StoredSteps | { steps: StoredSteps; policy_repeats: number };

const planOf = (json: string): { steps: StoredSteps; policyRepeats: number } => {
  const plan = JSON.parse(json) as StoredPlan;
  return Array.isArray(plan) ? { steps: plan, policyRepeats: 0 } : { steps: plan.steps, policyRepeats: plan.policy_repeats };
};

const toPolicy = (r: Row): EscalationPolicy => ({
  uuid: r.uuid,
  name: r.name,
  team: r.team,
  policyRepeats: planOf(r.steps).policyRepeats,
  steps: planOf(r.steps).steps.map((s): PolicyStep => ({ delayMinutes: s.delay_minutes, targets: s.targets.map((t) => ({ type: t.type, uuid: t.uuid })) })),
  repeatCount: r.repeat_count,
  repeatEveryMinutes: r.repeat_every_minutes,
  provisioned: r.provisioned === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const stepsJson = (steps: readonly PolicyStep[], policyRepeats = 0): string => {
  const list: StoredSteps = steps.map((s) => ({ delay_minutes: s.delayMinutes, targets: s.targets.map((t) => ({ type: t.type, uuid: t.uuid })) }));
  return JSON.stringify((policyRepeats > 0 ? { steps: list, policy_repeats: policyRepeats } : list) satisfies StoredPlan);
};

const COLUMNS = 'uuid, name, team, steps, repeat_count, repeat_every_minutes, provisioned, created_at, updated_at';

/**
 * Escalation policies as stored objects (`ep_…`, issue 32): table `escalation_policies`. Policies
 * declared in config.yaml are read from the config until provisioning writes them here.
 */
export function escalationPoliciesStore(db: Db) {
  const all = db.prepare<[], Row>(`SELECT ${COLUMNS} FROM escalation_policies ORDER BY name, id`);
  const byUuid = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM escalation_policies WHERE uuid = ?`);
  const byName = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM escalation_policies WHERE name = ?`);
  const insert = db.prepare(
    `INSERT INTO escalation_policies(uuid, name, team, steps, repeat_count, repeat_every_minutes, provisioned, created_at, updated_at)
     VALUES (@uuid, @name, @team, @steps, @repeatCount, @repeatEveryMinutes, @provisioned, @now, @now)`,
  );
  const update = db.prepare(
    `UPDATE escalation_policies SET name=@name, team=@team, steps=@steps, repeat_count=@repeatCount, repeat_every_minutes=@repeatEveryMinutes,
       provisioned=@provisioned, updated_at=@now WHERE uuid=@uuid`,
  );
  const del = db.prepare('DELETE FROM escalation_policies WHERE uuid = ?');
  const params = (uuid: string, w: EscalationPolicyWrite, now: number) => ({
    uuid,
    name: w.name,
    team: w.team,
    steps: stepsJson(w.steps, w.policyRepeats),
    repeatCount: w.repeatCount,
    repeatEveryMinutes: w.repeatEveryMinutes,
    provisioned: w.provisioned ? 1 : 0,
    now,
  });
  const get = (uuid: string): EscalationPolicy | undefined => {
    const r = byUuid.get(uuid);
    return r && toPolicy(r);
  };
  const list = (): EscalationPolicy[] => all.all().map(toPolicy);
  return {
    /** Every policy, by name. */
    list,
    /** One by uuid, or undefined. */
    get,
    /** One by name (names are unique), or undefined. */
    getByName: (name: string): EscalationPolicy | undefined => {
      const r = byName.get(name);
      return r && toPolicy(r);
    },
    /**
     * Adds one; `now` epoch ms.
     * @throws the driver's unique-constraint error for a taken uuid or name (check `getByName` first)
     */
    insert(uuid: string, w: EscalationPolicyWrite, now: number): EscalationPolicy {
      insert.run(params(uuid, w, now));
      return get(uuid)!;
    },
    /** Replaces one's fields; undefined when there is none. @throws as {@link insert} */
    update(uuid: string, w: EscalationPolicyWrite, now: number): EscalationPolicy | undefined {
      return update.run(params(uuid, w, now)).changes === 1 ? get(uuid) : undefined;
    },
    /** Removes one; false when there is none. */
    delete: (uuid: string): boolean => del.run(uuid).changes === 1,
    /**
     * `{uuid, name}` of the policies with a step alerting the target `type`/`uuid`, by name: what
     * the 409 of deleting an integration in use names. Filtered in JS over every policy (a few dozen
     * rows; the same on both drivers, no JSON operators).
     */
    usingTarget: (type: TargetType, uuid: string): Array<{ uuid: string; name: string }> =>
      list()
        .filter((p) => usesTarget(p, type, uuid))
        .map((p) => ({ uuid: p.uuid, name: p.name })),
  };
}

/** The escalation policies store's interface. */
export type EscalationPoliciesStore = ReturnType<typeof escalationPoliciesStore>;
