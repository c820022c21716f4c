import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import type { Logger } from '../lib/logger.ts';
import type { CheckResult } from '../domain/check.ts';
import type { Monitor } from '../domain/monitor.ts';
import { applyCheck, type ConfirmationRules, type MonitorRuntimeState } from '../domain/monitor-state.ts';
import type { ResultsBody } from '../domain/probe.ts';
import type { Store } from '../store/index.ts';
import type { ChecksService } from './checks.ts';
import type { EventBus } from './events.ts';
import type { ProbeCaller } from './probe-agents.ts';
import type { ProbesService } from './probes.ts';
import { downChange, type StateChange } from './state-changes.ts';

/** Oldest `at` accepted from an agent (its buffer while the main was unreachable), ms; batch ids are remembered as long. */
const RESULT_MAX_AGE_MS = 86_400_000;
/** Newest `at` accepted from an agent: clocks a little ahead of the main's, ms. */
const RESULT_MAX_AHEAD_MS = 120_000;

/**
 * Turns check results from every probe (the local one and remote agents) into monitor state:
 * keeps each monitor's confirmation state, feeds results through the pure state machine
 * (`applyCheck`, with the locations of the monitor's {@link ProbesService} plan), stores results,
 * flips and outages through the checks service, and asks probes for re-checks.
 */
export function resultsService(deps: { store: Store; clock: Clock; bus: EventBus; logger: Logger; checks: ChecksService; probes: ProbesService; config: Pick<Config, 'probe'> }) {
  const { store, clock, bus, logger, checks, probes } = deps;
  const p = deps.config.probe;
  const states = new Map<number, MonitorRuntimeState>();
  const recheckIntervalMs = p.recheck_interval_seconds * 1000;

  bus.on('monitor.deleted', ({ monitorId }) => {
    states.delete(monitorId);
    ruleCache.delete(monitorId);
    checks.discard(monitorId);
  });
  bus.on('monitor.updated', ({ monitor }) => {
    // A paused monitor starts again from its stored status.
    if (monitor.paused) states.delete(monitor.id);
  });
  // A monitor's status flipped on another instance (its outage opened or resolved there, relayed, issue
  // 31): memory follows the store, so whichever instance leads next judges checks against the status
  // the cluster stored, not the one this instance loaded at its start. Read from the store (a person's
  // resolve leaves the status as it is); only when it differs is the confirmation state started over.
  const followRemote = async (monitorId: number | null) => {
    if (!bus.replaying || monitorId === null || !probes.monitor(monitorId)) return;
    try {
      const stored = (await store.async.monitors.getById(monitorId))?.status;
      if (stored && states.get(monitorId)?.status !== stored) states.set(monitorId, { status: stored, round: null });
    } catch (e) {
      logger.warn('reading a monitor\'s status changed on another instance failed; checks are judged against the status this instance remembers', { monitor_id: monitorId, error: (e as Error).message });
    }
  };
  bus.on('outage.opened', ({ outage }) => void followRemote(outage.monitorId));
  bus.on('outage.resolved', ({ outage }) => void followRemote(outage.monitorId));
  // A person resolved a monitor's outage while its check still fails (issue 33 point 11): the
  // monitor stays down, and its next confirmed failure opens a new outage instead of nothing. A
  // resolve by a passing check has set the state up before its event, so this leaves it alone.
  bus.on('outage.resolved', ({ outage }) => {
    if (outage.kind !== 'monitor' || outage.monitorId === null || !probes.monitor(outage.monitorId)) return;
    const s = staged?.states.get(outage.monitorId) ?? states.get(outage.monitorId) ?? { status: 'down' as const, round: null };
    if (s.status === 'down' && !s.reopen) states.set(outage.monitorId, { ...s, reopen: true });
  });

  const rules = (monitor: Monitor, locations: readonly string[]): ConfirmationRules => ({
    locations,
    confirmations: p.confirmations,
    consecutiveChecks: p.confirmation_checks,
    recheckIntervalMs,
    // Long enough for every re-check to run into its timeout and report back.
    roundTtlMs: p.confirmation_checks * (monitor.timeoutSeconds * 1000 + recheckIntervalMs) + 15_000,
  });

  /**
   * The rules of a monitor, kept while its settings and plan stay the same objects (no allocation
   * per result); monitors with the same timeout and locations share one rules object.
   */
  const ruleCache = new Map<number, { monitor: Monitor; locations: readonly string[]; rules: ConfirmationRules }>();
  const sharedRules = new Map<string, ConfirmationRules>();
  const rulesOf = (monitor: Monitor, region: string): ConfirmationRules => {
    const locations = probes.plan(monitor.id)?.locations ?? [region];
    const hit = ruleCache.get(monitor.id);
    if (hit && hit.monitor === monitor && hit.locations === locations) return hit.rules;
    const key = `${monitor.timeoutSeconds}/${locations.join(',')}`;
    let r = sharedRules.get(key);
    if (!r) sharedRules.set(key, (r = rules(monitor, locations)));
    ruleCache.set(monitor.id, { monitor, locations, rules: r });
    return r;
  };

  /**
   * While an agent's batch is judged and in its transaction: its results and state changes, the
   * monitors' new confirmation states and the side effects (probe bookkeeping, re-check requests,
   * events), applied only after the commit so a rolled-back batch leaves memory as the database is
   * (house rule 3) and its retry is judged afresh.
   */
  let staged: { states: Map<number, MonitorRuntimeState>; after: Array<() => void>; results: CheckResult[]; changes: StateChange[] } | null = null;
  /**
   * Results of the local probe that arrived while an agent's batch was in its transaction: judged
   * after its commit (or rollback), in order, so no judgement is made on a state the batch is about to replace.
   */
  let held: CheckResult[] | null = null;
  /** Agent batches, one after the other (each judged against the states the one before left). */
  let batches: Promise<unknown> = Promise.resolve();
  const later = (fn: () => void) => (staged ? staged.after.push(fn) : fn());

  const accept = (monitor: Monitor, result: CheckResult) => {
    if (!staged) probes.noteResult(monitor.id, result.region, result.at, result.probe);
    let before = staged?.states.get(monitor.id) ?? states.get(monitor.id);
    const fresh = before === undefined;
    before ??= { status: monitor.status, round: null };
    const { state, decision } = applyCheck(before, { at: result.at, region: result.region, outcome: result }, rulesOf(monitor, result.region));
    if (staged) {
      staged.results.push(result);
      if (decision.kind === 'down') staged.changes.push(downChange(monitor, result, decision.detected, decision.confirmedLocations));
      else if (decision.kind === 'up') staged.changes.push({ down: false, monitor, result });
    } else if (decision.kind === 'down') checks.monitorDown(monitor, result, decision.detected, decision.confirmedLocations);
    else if (decision.kind === 'up') checks.monitorUp(monitor, result);
    else checks.record(result);
    if (staged) {
      staged.states.set(monitor.id, state);
      const { id } = monitor;
      staged.after.push(() => probes.noteResult(id, result.region, result.at, result.probe));
    } else if (fresh || state !== before) states.set(monitor.id, state);
    if (decision.kind === 'recheck') later(() => probes.requestRecheck(monitor.id, decision.ask, decision.delayMs));
    const unconfirmed = decision.kind === 'cleared' ? decision.failures : decision.kind === 'recheck' ? decision.cleared : 0;
    if (unconfirmed > 0) later(() => bus.emit('check.unconfirmed', { monitorId: monitor.id, failures: unconfirmed }));
  };

  const results = {
    /**
     * Forgets every confirmation in progress and reads each active monitor's status from the store
     * (issue 31): run when this instance gains leadership, before it judges its first check, since the
     * leader before it may have flipped monitors this instance never heard of (a message lost while its
     * connection was down). One read of the monitors.
     */
    async reload(): Promise<void> {
      const all = await store.async.monitors.list();
      // A monitor down with no open outage had it resolved by a person: its next confirmed failure
      // opens a new one (issue 33 point 11), after a restart or take-over too. One read per down monitor.
      const reopen = new Set<number>();
      for (const m of all) if (m.status === 'down' && probes.monitor(m.id) && (await store.async.outages.openUuidForMonitor(m.id)) === undefined) reopen.add(m.id);
      states.clear();
      for (const m of all) if (probes.monitor(m.id)) states.set(m.id, reopen.has(m.id) ? { status: 'down', round: null, reopen: true } : { status: m.status, round: null });
    },
    /** Active monitors by their current status (the `pharos_monitors{status}` gauge). */
    statusCounts(): { up: number; down: number } {
      const c = { up: 0, down: 0 };
      for (const m of probes.activeMonitors()) c[states.get(m.id)?.status ?? m.status]++;
      return c;
    },
    /**
     * A result of the local probe. Plain results are group-committed; a state change commits at
     * once (see the checks service). A result of a monitor no longer active is dropped.
     */
    local(result: CheckResult): void {
      if (held) return void held.push(result);
      const monitor = probes.monitor(result.monitorId);
      if (monitor) accept(monitor, result);
    },
    /**
     * A remote agent's batch (`POST /v1/probes/results`): stored with its id in one transaction,
     * so a retried batch is counted once. A probe token is no licence to report on any monitor
     * (issue #14 point 3): only results for monitors the agent checks now in its region (its
     * plan), with `at` within [now − 24 h, now + 2 min], are accepted; the rest are refused,
     * counted (`probe.refused`) and logged. Results of monitors no longer active count as not assigned.
     * The 24 h match how long batch ids are remembered, so an older result cannot be a replay.
     * @returns how many results were stored and refused, and whether the batch had been stored before
     * @throws AppError 409 `probes.unknown_agent` when the agent has not polled this main since it
     *   started (the agent retries after its poll registers it, so its buffer is kept); 403 when the
     *   caller's token was not granted `body.region` or the agent is another token's (issue 30)
     */
    async agentBatch(body: ResultsBody, caller: ProbeCaller): Promise<{ stored: number; refused: number; duplicate: boolean }> {
      probes.assertAgentOf(caller, body.agent, body.region);
      if (!probes.knows(body.agent)) throw new AppError(409, 'probes.unknown_agent', `agent ${body.agent} has not polled this server since it started: poll first, then send results`);
      const run = batches.then(() => storeBatch(body));
      batches = run.catch(() => {});
      return run;
    },
  };

  /** Judges an agent's batch (staged), stores it in one transaction, then applies memory and follow-ups. */
  async function storeBatch(body: ResultsBody): Promise<{ stored: number; refused: number; duplicate: boolean }> {
    const now = clock.now();
    const refused = { not_assigned: 0, time: 0 };
    // Memory (confirmation states) and follow-ups (re-check requests, events) wait for the commit.
    const stage = { states: new Map<number, MonitorRuntimeState>(), after: [] as Array<() => void>, results: [] as CheckResult[], changes: [] as StateChange[] };
    let stored = 0;
    staged = stage;
    try {
      for (const r of body.results) {
        const { sslExpirationDays, monitor: uuid, ...outcome } = r;
        const id = probes.monitorIdOf(uuid);
        const monitor = id === undefined ? undefined : probes.monitor(id);
        if (!monitor || !probes.assigned(body.agent, body.region, monitor.id)) {
          refused.not_assigned++;
          continue;
        }
        if (r.at < now - RESULT_MAX_AGE_MS || r.at > now + RESULT_MAX_AHEAD_MS) {
          refused.time++;
          continue;
        }
        accept(monitor, {
          ...outcome,
          ...(sslExpirationDays !== undefined ? { sslExpirationDays } : {}),
          monitorId: monitor.id,
          region: body.region,
          probe: body.agent,
        });
        stored++;
      }
    } finally {
      staged = null;
    }
    const apply = () => {
      for (const [id, state] of stage.states) if (probes.monitor(id)) states.set(id, state);
      for (const fn of stage.after) fn();
    };
    held = [];
    let claimed: boolean;
    try {
      claimed = await checks.writeBatch(`${body.agent}/${body.batch}`, stage.results, stage.changes, apply);
    } finally {
      const waiting = held;
      held = null;
      for (const r of waiting) results.local(r);
    }
    if (!claimed) return { stored: 0, refused: 0, duplicate: true };
    const out = { stored, refused: refused.not_assigned + refused.time, duplicate: false };
    if (out.stored > 0) bus.emit('probe.results', { agent: body.agent, region: body.region, count: out.stored });
    for (const reason of ['not_assigned', 'time'] as const) {
      if (refused[reason] > 0) bus.emit('probe.refused', { agent: body.agent, region: body.region, reason, count: refused[reason] });
    }
    if (out.refused > 0) {
      logger.warn('refused results from a probe agent', { agent: body.agent, region: body.region, not_assigned: refused.not_assigned, out_of_time: refused.time });
    }
    return out;
  }
  return results;
}

/** The results service's interface. */
export type ResultsService = ReturnType<typeof resultsService>;
