import { invalid } from '../lib/errors.ts';

/**
 * Escalation timing (pure). A policy's steps are timed from the escalation start, which is the
 * moment the outage opened plus the monitor's `alerts_wait` (CONTRACT.md "Monitors": minutes
 * between the outage opening and the first alert). Step k is due at start + steps[k].after_minutes.
 * After the last step, `repeat_every_minutes` (optional) sends the last step again at that interval.
 */

/** The parts of a configured policy the maths needs. */
export interface PolicyTiming {
  steps: ReadonlyArray<{ after_minutes: number; channels: readonly string[] }>;
  repeat_every_minutes?: number | undefined;
  /** At most this many repeats (stored policies' `repeatCount`); absent → no cap. */
  repeat_count?: number | undefined;
  /**
   * Rounds of the whole policy after the first (stored policies' `policyRepeats`, issue 34); absent or
   * 0 → none. Then the last step is not repeated: round k's step i is due at start + k × (last step's
   * `after_minutes` + `repeat_every_minutes`, default {@link ROUND_PAUSE_MINUTES}) + its `after_minutes`.
   */
  repeat_policy?: number | undefined;
}

/** Minutes between a round's last step and the next round when `repeat_every_minutes` is not set. */
export const ROUND_PAUSE_MINUTES = 5;

/** Which step (1-based) and round (0: the first) send number `sent` is; repeats of the last step are its step with `repeat` ≥ 1. */
export function stepOfSend(policy: { steps: { length: number }; repeat_policy?: number | undefined }, sent: number): { step: number; round: number; repeat: number } {
  const n = policy.steps.length;
  if (policy.repeat_policy) return { step: (sent % n) + 1, round: Math.floor(sent / n), repeat: 0 };
  return { step: Math.min(sent + 1, n), round: 0, repeat: Math.max(0, sent + 1 - n) };
}

const MIN_MS = 60_000;

/**
 * When the send number `sent` (0-based: 0 = step 1; ≥ steps.length = repeats of the last step) is
 * due, epoch ms; null when nothing more is ever sent.
 * @param startAt escalation start, epoch ms
 */
export function sendDueAt(policy: PolicyTiming, startAt: number, sent: number): number | null {
  const n = policy.steps.length;
  if (policy.repeat_policy) {
    const round = Math.floor(sent / n);
    if (round > policy.repeat_policy) return null;
    const roundMs = (policy.steps[n - 1]!.after_minutes + (policy.repeat_every_minutes ?? ROUND_PAUSE_MINUTES)) * MIN_MS;
    return startAt + round * roundMs + policy.steps[sent % n]!.after_minutes * MIN_MS;
  }
  if (sent < n) return startAt + policy.steps[sent]!.after_minutes * MIN_MS;
  if (!policy.repeat_every_minutes) return null;
  if (policy.repeat_count !== undefined && sent - n + 1 > policy.repeat_count) return null;
  return startAt + policy.steps[n - 1]!.after_minutes * MIN_MS + (sent - n + 1) * policy.repeat_every_minutes * MIN_MS;
}

/** The channels of send number `sent` (repeats use the last step's channels; rounds start again at step 1). */
export function sendChannels(policy: PolicyTiming, sent: number): readonly string[] {
  return policy.steps[stepOfSend(policy, sent).step - 1]!.channels;
}

/**
 * When to send next after an unacknowledge at `now`: the next send's own time if it is still
 * ahead, else now (alerts that were held by the acknowledgement go out at once).
 */
export function resumeAt(policy: PolicyTiming, startAt: number, sent: number, now: number): number | null {
  const due = sendDueAt(policy, startAt, sent);
  return due === null ? null : Math.max(due, now);
}

/** `alertedSteps` as the API shows it: sends counted up to the number of steps (repeats do not add). */
export function alertedStepsShown(policy: PolicyTiming, sent: number): number {
  return Math.min(sent, policy.steps.length);
}

/**
 * The `escalation_policy` body field of monitors and healthchecks (API.md §2.2): a policy uuid
 * links, `"none"` or null unlinks, left out keeps `current`.
 * @throws AppError 400 `escalation_policy: unknown escalation policy …`
 */
export function resolvePolicyRef(value: string | null | undefined, current: string | null, known: (uuid: string) => boolean): string | null {
  if (value === undefined) return current;
  if (value === null || value === 'none') return null;
  if (known(value)) return value;
  throw invalid('escalation_policy', `unknown escalation policy "${value}" (use a uuid from GET /v1/escalation-policies, or "none")`);
}
