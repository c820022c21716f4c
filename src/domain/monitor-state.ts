import type { CheckOutcome } from './check.ts';
import type { MonitorStatus } from './monitor.ts';

/** A failing check kept while a failure is being confirmed. `at` is epoch ms of the probe start. */
export interface ObservedFailure {
  at: number;
  region: string;
  outcome: CheckOutcome;
}

/** A monitor's runtime state: its stored status plus the failures seen since the last pass. */
export interface MonitorRuntimeState {
  status: MonitorStatus;
  /** Consecutive failing checks while `up` (empty when not confirming). */
  failures: ObservedFailure[];
}

/**
 * What the engine must do after a check:
 * - `none`: nothing changes (up and passing, or down and still failing);
 * - `recheck`: a failure is not yet confirmed, re-check soon;
 * - `down`: confirmed: flip to down and open an outage (first failure = detection);
 * - `up`: a passing check after down: flip to up and resolve the outage;
 * - `cleared`: a failure was not confirmed (a pass came before enough failures); no flip.
 */
export type Decision =
  | { kind: 'none' }
  | { kind: 'recheck' }
  | { kind: 'down'; detected: ObservedFailure; confirmedLocations: string[]; last: ObservedFailure }
  | { kind: 'up' }
  | { kind: 'cleared'; failures: number };

/**
 * The up/down state machine (CONTRACT.md "Monitors": a failed check is confirmed by re-checking; the
 * first passing check afterwards sets `up`). Pure: the caller stores the result and the flip.
 * @param confirmationChecks consecutive failing checks needed for `down` (≥ 1)
 */
export function applyCheck(
  state: MonitorRuntimeState,
  check: { at: number; region: string; outcome: CheckOutcome },
  confirmationChecks: number,
): { state: MonitorRuntimeState; decision: Decision } {
  if (state.status === 'down') {
    return check.outcome.ok ? { state: { status: 'up', failures: [] }, decision: { kind: 'up' } } : { state, decision: { kind: 'none' } };
  }
  if (check.outcome.ok) {
    const cleared = state.failures.length;
    return { state: { status: 'up', failures: [] }, decision: cleared ? { kind: 'cleared', failures: cleared } : { kind: 'none' } };
  }
  const failures = [...state.failures, { at: check.at, region: check.region, outcome: check.outcome }];
  if (failures.length < confirmationChecks) return { state: { status: 'up', failures }, decision: { kind: 'recheck' } };
  const confirmedLocations = [...new Set(failures.map((f) => f.region))];
  return {
    state: { status: 'down', failures: [] },
    decision: { kind: 'down', detected: failures[0]!, confirmedLocations, last: failures.at(-1)! },
  };
}
