import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Core } from '../core/index.ts';
import type { CheckOutcome } from '../domain/check.ts';
import { probeTarget, type Monitor, type Protocol } from '../domain/monitor.ts';
import { applyCheck, type MonitorRuntimeState } from '../domain/monitor-state.ts';
import type { Probe } from './probes/types.ts';
import { TimerQueue } from '../lib/timer-queue.ts';

/** What the engine reports to metrics. Durations in ms. */
export interface EngineMetrics {
  checkDone(protocol: Protocol, ok: boolean, durationMs: number): void;
  /** ms between a check's due time and its probe start. */
  schedulerLag(lagMs: number): void;
  /** A failure that a later pass cleared before it was confirmed. */
  unconfirmedFailure(): void;
  /** An HTTP timing phase, ms (see ProbeOptions.observePhase). */
  httpPhase(phase: 'connect' | 'ttfb' | 'body', ms: number): void;
}

/** Engine settings, from config `probe`. */
export interface SchedulerOptions {
  /** Region name the local probe stands in for; recorded on results and outages. */
  region: string;
  confirmationChecks: number;
  recheckIntervalMs: number;
  maxConcurrentChecks: number;
}

interface Entry {
  monitor: Monitor;
  state: MonitorRuntimeState;
  /** Bumped on every update/delete so a result of an outdated check is dropped. */
  generation: number;
  running: boolean;
}

/** First checks of new (or restarted) monitors are spread over at most this window, ms. */
const SPREAD_MS = 10_000;

/** A stable number in [0, mod) from a monitor's uuid: spreads first checks without randomness. */
function phase(uuid: string, mod: number): number {
  let h = 2166136261;
  for (let i = 0; i < uuid.length; i++) h = Math.imul(h ^ uuid.charCodeAt(i), 16777619);
  return (h >>> 0) % Math.max(1, mod);
}

/**
 * Keeps one timer per active monitor, runs its check through the protocol's probe, feeds the
 * outcome to the pure state machine (`applyCheck`) and hands results and flips to the core.
 * Rebuilt from the store by `start()`; kept current by the core's monitor events; never polls.
 */
export class Scheduler {
  readonly #entries = new Map<number, Entry>();
  readonly #timers: TimerQueue;
  readonly #waiting: Array<() => void> = [];
  readonly #inFlight = new Set<Promise<void>>();
  #running = 0;
  #stopped = false;
  readonly #unsubscribe: Array<() => void> = [];

  constructor(
    private readonly deps: {
      core: Core;
      clock: Clock;
      logger: Logger;
      probes: Record<Protocol, Probe>;
      metrics: EngineMetrics;
      options: SchedulerOptions;
    },
  ) {
    this.#timers = new TimerQueue(deps.clock);
  }

  /** Schedules every unpaused monitor of the store and starts following monitor events. */
  start(): void {
    const { core } = this.deps;
    for (const m of core.monitors.list()) this.#upsert(m, core.checks.lastCheckAt(m.id));
    this.#unsubscribe.push(
      core.bus.on('monitor.created', ({ monitor }) => this.#upsert(monitor, null)),
      core.bus.on('monitor.updated', ({ monitor }) => this.#upsert(monitor, null)),
      core.bus.on('monitor.deleted', ({ monitorId }) => this.#remove(monitorId)),
    );
  }

  /** Monitors with a live timer or a check in flight. */
  get scheduledCount(): number {
    return this.#entries.size;
  }

  /** Counts of scheduled monitors by status (for the `monitors by status` gauge). */
  statusCounts(): { up: number; down: number } {
    const c = { up: 0, down: 0 };
    for (const e of this.#entries.values()) c[e.state.status]++;
    return c;
  }

  /** Due time (epoch ms) of a monitor's next check, or undefined when not scheduled. */
  nextDueAt(monitorId: number): number | undefined {
    return this.#timers.dueAt(monitorId);
  }

  /** Resolves when no check is in flight (tests drive a manual clock, then await this). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Stops scheduling, waits for checks in flight and leaves the results to the core's flush. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const u of this.#unsubscribe) u();
    this.#timers.clear();
    this.#waiting.length = 0;
    await this.settled();
  }

  #upsert(monitor: Monitor, lastCheckAt: number | null): void {
    const old = this.#entries.get(monitor.id);
    if (monitor.paused) return this.#remove(monitor.id);
    const entry: Entry = {
      monitor,
      // An update keeps the runtime state; a new entry starts from the stored status.
      state: old ? { status: old.state.status, failures: [] } : { status: monitor.status, failures: [] },
      generation: (old?.generation ?? 0) + 1,
      running: false,
    };
    this.#entries.set(monitor.id, entry);
    const now = this.deps.clock.now();
    const freqMs = monitor.checkFrequencySeconds * 1000;
    let due = now + phase(monitor.uuid, Math.min(freqMs, SPREAD_MS));
    if (lastCheckAt !== null && lastCheckAt + freqMs > due) due = lastCheckAt + freqMs;
    this.#schedule(entry, due);
  }

  #remove(monitorId: number): void {
    this.#timers.cancel(monitorId);
    this.#entries.delete(monitorId);
    this.deps.core.checks.discard(monitorId);
  }

  #schedule(entry: Entry, at: number): void {
    const gen = entry.generation;
    this.#timers.schedule(entry.monitor.id, at, (dueAt) => {
      if (this.#entries.get(entry.monitor.id) !== entry || entry.generation !== gen) return;
      this.#admit(entry, dueAt);
    });
  }

  /** Starts the check now, or queues it when `maxConcurrentChecks` are in flight. */
  #admit(entry: Entry, dueAt: number): void {
    const start = () => {
      const p = this.#run(entry, dueAt).finally(() => {
        this.#inFlight.delete(p);
        this.#running--;
        this.#waiting.shift()?.();
      });
      this.#inFlight.add(p);
    };
    if (this.#running < this.deps.options.maxConcurrentChecks) {
      this.#running++;
      start();
    } else {
      this.#waiting.push(() => {
        this.#running++;
        start();
      });
    }
  }

  async #run(entry: Entry, dueAt: number): Promise<void> {
    const { clock, probes, metrics, options, core, logger } = this.deps;
    const { monitor, generation } = entry;
    const startedAt = clock.now();
    metrics.schedulerLag(Math.max(0, startedAt - dueAt));
    entry.running = true;
    let outcome: CheckOutcome;
    try {
      outcome = await probes[monitor.protocol].check({ ...monitor, target: probeTarget(monitor) });
    } catch (e) {
      // Probes never throw by contract; this keeps a broken probe from stopping the monitor.
      logger.error('probe threw', { monitor: monitor.uuid, error: (e as Error).message });
      outcome = { ok: false, latencyMs: 0, statusCode: 0, reason: `Probe error: ${(e as Error).message}` };
    } finally {
      entry.running = false;
    }
    metrics.checkDone(monitor.protocol, outcome.ok, outcome.latencyMs);
    if (this.#stopped || this.#entries.get(monitor.id) !== entry || entry.generation !== generation) return;

    const result = { monitorId: monitor.id, at: startedAt, region: options.region, ...outcome };
    const { state, decision } = applyCheck(entry.state, { at: startedAt, region: options.region, outcome }, options.confirmationChecks);
    entry.state = state;
    try {
      if (decision.kind === 'down') core.checks.monitorDown(monitor, result, decision.detected, decision.confirmedLocations);
      else if (decision.kind === 'up') core.checks.monitorUp(monitor, result);
      else core.checks.record(result);
    } catch (e) {
      logger.error('storing a check result failed', { monitor: monitor.uuid, error: (e as Error).message });
    }
    if (decision.kind === 'cleared') metrics.unconfirmedFailure();

    const freqMs = monitor.checkFrequencySeconds * 1000;
    const now = clock.now();
    let next = decision.kind === 'recheck' ? now + options.recheckIntervalMs : dueAt + freqMs;
    // A check that overran its slot (slow target, queueing) skips the missed slots instead of bursting.
    if (next < now) next = dueAt + freqMs * Math.ceil((now - dueAt) / freqMs);
    this.#schedule(entry, next);
  }
}
