import type { CheckOutcome } from './check.ts';
import type { MonitorStatus } from './monitor.ts';

/** A failing check kept while a failure is being confirmed. `at` is epoch ms of the probe start. */
export interface ObservedFailure {
  at: number;
  /** The location (region name) the check ran for. */
  region: string;
  outcome: CheckOutcome;
}

/**
 * A confirmation in progress: the failures seen so far (at most one per location across regions,
 * consecutive ones from the single location otherwise; the first one is the detection), the
 * locations asked to re-check and those that passed since. While the monitor is down and checked
 * from several locations, the same shape confirms a recovery: `passed` are the locations that
 * passed, `failures` those that still fail since.
 */
export interface ConfirmationRound {
  startedAt: number;
  failures: ObservedFailure[];
  asked: string[];
  passed: string[];
}

/** A monitor's runtime state: its stored status plus the confirmation in progress, if any. */
export interface MonitorRuntimeState {
  status: MonitorStatus;
  round: ConfirmationRound | null;
  /**
   * Down, but its outage was resolved by a person while the check still failed (issue 33 point 11):
   * failures are confirmed again as from up, and a confirmed failure opens a new outage (`down`);
   * a passing check still sets it up.
   */
  reopen?: boolean;
}

/**
 * What must happen after a check:
 * - `none`: nothing changes (up and passing, down and still failing, or waiting for re-checks);
 * - `recheck`: a failure is not yet confirmed: re-check from `ask` after `delayMs` (0 across
 *   regions, the re-check interval with a single location); `cleared` counts the failures of an
 *   earlier round that expired unconfirmed;
 * - `down`: confirmed: flip to down and open an outage (first failure = detection);
 * - `up`: a passing check after down (confirmed by enough locations when several check it): flip to
 *   up and resolve the outage;
 * - `cleared`: a failure was not confirmed (the other locations passed); no flip.
 */
export type Decision =
  | { kind: 'none' }
  | { kind: 'recheck'; ask: string[]; delayMs: number; cleared: number }
  | { kind: 'down'; detected: ObservedFailure; confirmedLocations: string[]; last: ObservedFailure }
  | { kind: 'up' }
  | { kind: 'cleared'; failures: number };

/** How a monitor's failures are confirmed right now. */
export interface ConfirmationRules {
  /**
   * The locations checking the monitor now (region names: one per region served by a remote
   * probe, plus one for the local probe when it serves the rest). Order is kept in `confirmedLocations`.
   */
  locations: readonly string[];
  /** Locations that must agree across regions (config `probe.confirmations`; capped at `locations.length`). */
  confirmations: number;
  /** With a single location: consecutive failing checks needed (config `probe.confirmation_checks`). */
  consecutiveChecks: number;
  /** With a single location: ms between its re-checks (config `probe.recheck_interval_seconds`). */
  recheckIntervalMs: number;
  /** A round older than this (ms) is given up as unconfirmed: a location asked never answered. */
  roundTtlMs: number;
}

const NONE: Decision = { kind: 'none' };

const failed = (round: ConfirmationRound, region: string) => round.failures.some((f) => f.region === region);

/**
 * The up/down state machine with confirmation (CONTRACT.md "Monitors", issue #7). Pure: the caller
 * stores the result, the flip and the outage, and sends the re-checks.
 *
 * With one location, a failure is confirmed by `consecutiveChecks` failing checks in a row,
 * `recheckIntervalMs` apart. With several, the first failure asks every other location to re-check
 * at once, and the monitor goes down when `min(confirmations, locations)` distinct locations have
 * failed; once too few locations are left unanswered to reach that, the failure is `cleared`.
 * While down, with one location (or `confirmations` 1) its first passing check sets `up`. With
 * several, a passing check asks the others to re-check at once and the monitor is `up` when
 * `min(confirmations, locations)` distinct locations passed, so one location's ok (a remote agent's
 * claim, issue 30) cannot resolve an outage the others still see; a recovery that can no longer
 * reach that is dropped (still down).
 */
export function applyCheck(
  state: MonitorRuntimeState,
  check: { at: number; region: string; outcome: CheckOutcome },
  rules: ConfirmationRules,
): { state: MonitorRuntimeState; decision: Decision } {
  // The common case (up, passing, nothing to confirm) changes nothing: same state, no allocation.
  if (check.outcome.ok && state.status === 'up' && state.round === null) return { state, decision: NONE };
  const single = rules.locations.length <= 1;
  const needed = Math.max(1, Math.min(rules.confirmations, rules.locations.length));
  let round = state.round;
  let expired = 0;
  if (round && check.at - round.startedAt > rules.roundTtlMs) {
    expired = state.status === 'up' ? round.failures.length : 0;
    round = null;
  }
  if (state.status === 'down' && state.reopen && !check.outcome.ok) {
    const judged = applyCheck({ status: 'up', round }, check, rules);
    return judged.decision.kind === 'down' ? judged : { state: { status: 'down', round: judged.state.round, reopen: true }, decision: judged.decision };
  }
  if (state.status === 'down') {
    const judged = recovery({ status: 'down', round }, check, rules, single ? 1 : needed);
    return state.reopen && judged.state.status === 'down' ? { state: { ...judged.state, reopen: true }, decision: judged.decision } : judged;
  }
  const failure: ObservedFailure = { at: check.at, region: check.region, outcome: check.outcome };

  if (single) {
    if (check.outcome.ok) {
      const n = round?.failures.length ?? 0;
      return { state: { status: 'up', round: null }, decision: n || expired ? { kind: 'cleared', failures: n + expired } : { kind: 'none' } };
    }
    const failures = [...(round?.failures ?? []), failure];
    if (failures.length >= rules.consecutiveChecks) return down(failures);
    const next = { startedAt: round?.startedAt ?? check.at, failures, asked: [check.region], passed: [] };
    return { state: { status: 'up', round: next }, decision: { kind: 'recheck', ask: [check.region], delayMs: rules.recheckIntervalMs, cleared: expired } };
  }

  if (!round) {
    if (check.outcome.ok) return { state: { status: 'up', round: null }, decision: expired ? { kind: 'cleared', failures: expired } : { kind: 'none' } };
    if (needed <= 1) return down([failure]);
    const asked = rules.locations.filter((l) => l !== check.region);
    return {
      state: { status: 'up', round: { startedAt: check.at, failures: [failure], asked, passed: [] } },
      decision: { kind: 'recheck', ask: asked, delayMs: 0, cleared: expired },
    };
  }
  if (check.outcome.ok) {
    if (!failed(round, check.region) && !round.passed.includes(check.region)) round = { ...round, passed: [...round.passed, check.region] };
  } else if (!failed(round, check.region)) {
    round = { ...round, failures: [...round.failures, failure], passed: round.passed.filter((l) => l !== check.region) };
    if (round.failures.length >= needed) return down(round.failures);
  }
  const r = round;
  const pending = r.asked.filter((l) => rules.locations.includes(l) && !failed(r, l) && !r.passed.includes(l));
  if (r.failures.length + pending.length < needed) {
    return { state: { status: 'up', round: null }, decision: { kind: 'cleared', failures: r.failures.length } };
  }
  return { state: { status: 'up', round: r }, decision: { kind: 'none' } };
}

/** A check while down: `up` once `needed` distinct locations passed (see {@link applyCheck}). */
function recovery(
  state: MonitorRuntimeState,
  check: { at: number; region: string; outcome: CheckOutcome },
  rules: ConfirmationRules,
  needed: number,
): { state: MonitorRuntimeState; decision: Decision } {
  let round = state.round;
  if (check.outcome.ok) {
    if (needed <= 1) return { state: { status: 'up', round: null }, decision: { kind: 'up' } };
    if (!round) {
      const asked = rules.locations.filter((l) => l !== check.region);
      return { state: { status: 'down', round: { startedAt: check.at, failures: [], asked, passed: [check.region] } }, decision: { kind: 'recheck', ask: asked, delayMs: 0, cleared: 0 } };
    }
    if (!round.passed.includes(check.region)) round = { ...round, passed: [...round.passed, check.region], failures: round.failures.filter((f) => f.region !== check.region) };
    if (round.passed.length >= needed) return { state: { status: 'up', round: null }, decision: { kind: 'up' } };
    return { state: { status: 'down', round }, decision: NONE };
  }
  if (!round) return { state, decision: NONE };
  const r = failed(round, check.region) ? round : { ...round, failures: [...round.failures, { at: check.at, region: check.region, outcome: check.outcome }], passed: round.passed.filter((l) => l !== check.region) };
  const pending = r.asked.filter((l) => rules.locations.includes(l) && !failed(r, l) && !r.passed.includes(l));
  // Too few locations left to pass: the recovery is not confirmed, the monitor stays down.
  if (r.passed.length + pending.length < needed) return { state: { status: 'down', round: null }, decision: NONE };
  return { state: { status: 'down', round: r }, decision: NONE };
}

function down(failures: ObservedFailure[]): { state: MonitorRuntimeState; decision: Decision } {
  return {
    state: { status: 'down', round: null },
    decision: {
      kind: 'down',
      detected: failures[0]!,
      confirmedLocations: [...new Set(failures.map((f) => f.region))],
      last: failures.at(-1)!,
    },
  };
}
