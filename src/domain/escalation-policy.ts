/**
 * Escalation policies as stored objects (issue 32 point 1; the hosted service's model, hyperping-go
 * `mcp_models.go` `EscalationPolicy {uuid, name, team, steps}`): steps of a delay and targets. Target
 * types `user` and `schedule` are designed in now for the on-call issue; only `integration` targets
 * are sent to until then. Timing maths stays in domain/escalation.ts.
 */

/** What a step alerts. */
export const TARGET_TYPES = ['integration', 'user', 'schedule'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

/** One target of a step: an integration (`int_…`), a person (`user_…`) or an on-call schedule. */
export interface PolicyTarget {
  type: TargetType;
  uuid: string;
}

/** One step: its targets are alerted this many minutes after the escalation starts. */
export interface PolicyStep {
  delayMinutes: number;
  targets: PolicyTarget[];
}

/** An escalation policy as the store hands it out. */
export interface EscalationPolicy {
  /** `ep_…` */
  uuid: string;
  name: string;
  /** The team it belongs to (a label until teams exist), or null. */
  team: string | null;
  steps: PolicyStep[];
  /** At most this many repeats of the last step, every {@link repeatEveryMinutes} (0: no cap — until acknowledged or resolved; no repeats at all when repeatEveryMinutes is null). */
  repeatCount: number;
  /** Minutes between those repeats (config.yaml's `repeat_every_minutes`), or null. With {@link policyRepeats}: the pause after a round's last step (null: 5). */
  repeatEveryMinutes: number | null;
  /**
   * How many more rounds of the whole policy run after its last step, unless acknowledged (issue 34
   * point 3; 0: none). A round's steps keep their delays; the next round starts `repeatEveryMinutes`
   * (default 5) after the previous round's last step. Replaces the repeats of the last step.
   * Absent: 0 (the store always sets it).
   */
  policyRepeats?: number;
  /** Declared in config.yaml: read-only for the API and the console. */
  provisioned: boolean;
  createdAt: number;
  updatedAt: number;
}

/** What the store writes (`policyRepeats` left out: 0). */
export type EscalationPolicyWrite = Omit<EscalationPolicy, 'uuid' | 'createdAt' | 'updatedAt'>;

/** The distinct uuids of `type` that `policy` alerts, in step order. */
export function policyTargets(policy: Pick<EscalationPolicy, 'steps'>, type: TargetType): string[] {
  return [...new Set(policy.steps.flatMap((s) => s.targets.filter((t) => t.type === type).map((t) => t.uuid)))];
}

/** True when a step of `policy` alerts the target `type`/`uuid` (an integration in use cannot be deleted: 409). */
export function usesTarget(policy: Pick<EscalationPolicy, 'steps'>, type: TargetType, uuid: string): boolean {
  return policy.steps.some((s) => s.targets.some((t) => t.type === type && t.uuid === uuid));
}
