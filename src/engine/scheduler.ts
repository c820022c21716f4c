import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Core } from '../core/index.ts';
import type { Monitor, Protocol } from '../domain/monitor.ts';
import { checkSpec, LOCAL_PROBE } from '../domain/probe.ts';
import type { Region } from '../domain/regions.ts';
import type { Probe } from './probes/types.ts';
import { CheckWheel, firstDueAt, type EngineMetrics } from './wheel.ts';

export type { EngineMetrics } from './wheel.ts';

/** Engine settings, from config `probe`. */
export interface SchedulerOptions {
  maxConcurrentChecks: number;
  /**
   * A take-over (issue 22: this instance just became the leader of a cluster): a monitor whose check
   * fell due less than one frequency ago is checked at once, not spread, so a fail-over makes no check
   * more than one period late. Older ones (the whole cluster was down) are spread as at a start.
   */
  takeOver?: boolean;
}

interface Tag {
  monitor: Monitor;
  /** The region the local probe's results of this monitor are recorded under. */
  region: Region;
}

/**
 * The local probe: runs the checks the core's probe plans give it (the monitors' regions that no
 * remote agent serves, CONTRACT.md "Monitors") on a {@link CheckWheel}, and hands every result to
 * `core.results`, which confirms, stores and asks for re-checks. Rebuilt from the core at
 * `start()`; kept current by `probe.local` events; never polls.
 */
export class Scheduler {
  readonly #wheel: CheckWheel<Tag>;
  readonly #unsubscribe: Array<() => void> = [];
  /** False while `start()` loads the plans (first checks are spread), true after (hand-overs keep the rhythm). */
  #started = false;
  /** The probe plans announcing the local share (`start()`: due times read asynchronously). */
  #announcing: Promise<void> = Promise.resolve();

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
    this.#wheel = new CheckWheel<Tag>({
      clock: deps.clock,
      logger: deps.logger,
      probes: deps.probes,
      metrics: deps.metrics,
      maxConcurrentChecks: deps.options.maxConcurrentChecks,
      onResult: ({ tag, at, outcome }) => {
        deps.logger.debug(`check ${tag.monitor.name}: ${outcome.ok ? 'up' : 'down'} in ${outcome.latencyMs} ms${outcome.reason ? ` (${outcome.reason})` : ''}`, { monitor: tag.monitor.uuid, region: tag.region, status_code: outcome.statusCode });
        deps.core.results.local({ ...outcome, monitorId: tag.monitor.id, at, region: tag.region, probe: LOCAL_PROBE });
      },
    });
  }

  /**
   * Follows the core's local-probe plan and unconfirmed-failure events, then asks the (started)
   * probe plans to announce the local share. A monitor's first check after a restart comes one
   * frequency after its last stored check, or spread over the first 10 s.
   */
  start(): void {
    const { core, clock, metrics } = this.deps;
    this.#unsubscribe.push(
      core.bus.on('probe.local', ({ monitorId, monitor, region, nextDueAt }) => {
        if (!monitor || !region) return this.#wheel.remove(monitorId);
        const freqMs = monitor.checkFrequencySeconds * 1000;
        const spread = firstDueAt(monitor.uuid, region, freqMs, clock.now());
        // At start (and for new monitors) spread first checks; on a hand-over continue the rhythm.
        const now = clock.now();
        const continues = this.#started || (this.deps.options.takeOver === true && nextDueAt !== null && nextDueAt >= now - freqMs);
        const due = nextDueAt === null ? spread : continues ? Math.max(now, nextDueAt) : Math.max(spread, nextDueAt);
        this.#wheel.upsert(monitorId, { spec: checkSpec(monitor), frequencyMs: freqMs, tag: { monitor, region } }, due);
      }),
      core.bus.on('probe.local.recheck', ({ monitorId, delayMs }) => this.#wheel.recheck(monitorId, delayMs)),
      core.bus.on('check.unconfirmed', () => metrics.unconfirmedFailure()),
    );
    // The probe plans were started by the wiring (every instance serves agents; only the leader schedules).
    // Their due times are read asynchronously (announceLocal never rejects).
    this.#announcing = core.probes.announceLocal().then(() => {
      this.#started = true;
    });
  }

  /** Monitors the local probe checks. */
  get scheduledCount(): number {
    return this.#wheel.size;
  }

  /** Due time (epoch ms) of a monitor's next local check, or undefined when not scheduled. */
  nextDueAt(monitorId: number): number | undefined {
    return this.#wheel.nextDueAt(monitorId);
  }

  /**
   * Resolves when no check is in flight and the state changes of their results are committed
   * (tests drive a manual clock, then await this).
   */
  async settled(): Promise<void> {
    await this.#announcing;
    await this.#wheel.settled();
    await this.deps.core.checks.committed();
  }

  /** Stops scheduling, waits for checks in flight and leaves the results to the core's flush. */
  async stop(): Promise<void> {
    for (const u of this.#unsubscribe) u();
    await this.#wheel.stop();
  }
}
