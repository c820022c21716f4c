import type { Config } from './config/schema.ts';
import type { Core } from './core/index.ts';
import type { Probe } from './engine/probes/types.ts';
import type { Protocol } from './domain/monitor.ts';
import { Scheduler, type EngineMetrics } from './engine/scheduler.ts';
import { HealthcheckDeadlines } from './engine/deadlines.ts';
import { AlertDispatcher, type AlertMetrics, type ChannelLookup } from './alerting/dispatcher.ts';
import { EscalationStepper } from './alerting/stepper.ts';
import { FloodGuard, type FloodGuardMetrics } from './alerting/flood-guard.ts';
import { MaintenanceGate } from './alerting/maintenance-gate.ts';
import type { Leadership } from './cluster/types.ts';
import type { Clock } from './lib/clock.ts';
import type { Logger } from './lib/logger.ts';
import type { Store } from './store/index.ts';

/** What {@link LeaderWork} needs to build its parts. */
export interface LeaderWorkDeps {
  core: Core;
  store: Store;
  clock: Clock;
  logger: Logger;
  config: Readonly<Config>;
  probes: Record<Protocol, Probe>;
  channels: ChannelLookup;
  metrics: { engine: EngineMetrics; alerts: AlertMetrics & FloodGuardMetrics };
  leadership: Leadership;
  /** Several instances share the database: a gained leadership is a take-over (Scheduler `takeOver`). */
  shared: boolean;
}

/**
 * The work only the leader does (issue 22): the scheduler (local checks), the healthcheck deadlines,
 * the maintenance timers, the escalation stepper, the flood guard's bookkeeping and the alert
 * dispatcher. Started when this instance gains leadership (at once with SQLite: always the leader),
 * stopped the moment it loses it; followers keep serving the API, pings, status pages, the console
 * and agents' polls.
 *
 * The alert gates (maintenance, flood guard) are registered on every instance, since an outage can
 * open on a follower too (a `/fail` ping, an agent's results) and its first alert is decided in that
 * transaction. The scheduler and the dispatcher cannot restart once stopped, so a new pair is built
 * after each loss; the getters always return the current ones.
 */
export class LeaderWork {
  readonly deadlines: HealthcheckDeadlines;
  readonly stepper: EscalationStepper;
  readonly floodGuard: FloodGuard;
  readonly maintenanceGate: MaintenanceGate;
  #scheduler: Scheduler;
  #dispatcher: AlertDispatcher;
  #running = false;
  /** The scheduler runs on without leadership (alone, database gone: see `Leadership.alone`). */
  #checksKept = false;
  /** Stops of earlier leaderships still finishing (checks, deliveries in flight). */
  #stopping: Promise<void> = Promise.resolve();
  #unfollow: (() => void) | null = null;

  constructor(private readonly deps: LeaderWorkDeps) {
    const { core, store, clock, logger, config } = deps;
    this.#scheduler = this.#newScheduler();
    this.#dispatcher = this.#newDispatcher();
    this.deadlines = new HealthcheckDeadlines({ core, clock, logger });
    const wake = () => this.wakeDispatcher();
    this.stepper = new EscalationStepper({ core, store, clock, logger, wakeDispatcher: wake });
    const changed = (restarted: string[]) => {
      if (!this.#running) return;
      for (const uuid of restarted) this.stepper.refresh(uuid);
      wake();
    };
    this.floodGuard = new FloodGuard({ core, store, clock, logger, config, monitorCount: () => core.probes.activeCount(), metrics: deps.metrics.alerts, changed });
    this.maintenanceGate = new MaintenanceGate({ core, store, clock, logger, changed });
    core.addAlertGate(this.maintenanceGate);
    if (config.alerting.flood_guard.enabled) core.addAlertGate(this.floodGuard);
    core.bus.on('notices.queued', wake);
  }

  /** The current scheduler (a fresh, unstarted one on a follower). */
  get scheduler(): Scheduler {
    return this.#scheduler;
  }

  /** The current alert dispatcher (a fresh, unstarted one on a follower). */
  get dispatcher(): AlertDispatcher {
    return this.#dispatcher;
  }

  /** True while the leader work runs here. */
  get running(): boolean {
    return this.#running;
  }

  /** Wakes the dispatcher when this instance leads (a follower never delivers). */
  wakeDispatcher(): void {
    if (this.#running) this.#dispatcher.wake();
  }

  /** Follows the leadership: starts the work now when leading, and on every gain; stops it on a loss. */
  start(): void {
    this.#unfollow = this.deps.leadership.onLeadership((leader) => (leader ? this.#begin() : this.#running ? this.#end(this.deps.leadership.alone) : this.#dropKeptChecks()));
    if (this.deps.leadership.isLeader) this.#begin();
  }

  /** Stops following the leadership and the work, waiting for checks and deliveries in flight. */
  async stop(): Promise<void> {
    this.#unfollow?.();
    this.#unfollow = null;
    this.#end(false);
    this.#dropKeptChecks();
    await this.#stopping;
  }

  #begin(): void {
    if (this.#running) return;
    this.#running = true;
    // Same order as a single instance's start: gates first, so alerts decided by the first checks see them.
    this.floodGuard.start();
    this.maintenanceGate.start();
    if (this.#checksKept) this.#checksKept = false;
    else this.#scheduler.start();
    this.deadlines.start();
    this.stepper.start();
    this.#dispatcher.start();
  }

  /**
   * Stops at once everything that could act (timers cancelled, no new claim or check), then lets
   * what is in flight finish in the background; a new scheduler and dispatcher wait for the next gain.
   */
  #end(keepChecks: boolean): void {
    if (!this.#running) return;
    this.#running = false;
    this.deadlines.stop();
    this.stepper.stop();
    this.floodGuard.stop();
    this.maintenanceGate.stop();
    const dispatcher = this.#dispatcher;
    this.#dispatcher = this.#newDispatcher();
    if (keepChecks) {
      // Alone on a database that went away: nobody can take over, so the checks go on and their
      // results wait in the store's write buffer (the outage test of the PostgreSQL driver).
      this.#checksKept = true;
      this.deps.logger.warn('no other instance is alive: checks go on while the database is unreachable; deadlines, escalations and alerts resume with it');
      this.#stopping = Promise.all([this.#stopping, dispatcher.stop()]).then(() => {}, (e: unknown) => this.deps.logger.error('stopping the leader work failed', { error: (e as Error).message }));
      return;
    }
    const scheduler = this.#scheduler;
    const done = Promise.all([scheduler.stop(), dispatcher.stop()]).then(
      () => {},
      (e: unknown) => this.deps.logger.error('stopping the leader work failed', { error: (e as Error).message }),
    );
    this.#stopping = Promise.all([this.#stopping, done]).then(() => {});
    this.#scheduler = this.#newScheduler();
  }

  /** Stops checks kept going without leadership (another instance leads now, or shutdown). */
  #dropKeptChecks(): void {
    if (!this.#checksKept) return;
    this.#checksKept = false;
    const scheduler = this.#scheduler;
    this.#scheduler = this.#newScheduler();
    this.#stopping = Promise.all([this.#stopping, scheduler.stop()]).then(() => {});
  }

  #newScheduler(): Scheduler {
    const { core, clock, logger, probes, metrics, config } = this.deps;
    return new Scheduler({ core, clock, logger, probes, metrics: metrics.engine, options: { maxConcurrentChecks: config.probe.max_concurrent_checks, takeOver: this.deps.shared } });
  }

  #newDispatcher(): AlertDispatcher {
    const { store, clock, logger, channels, metrics, config } = this.deps;
    return new AlertDispatcher({
      store,
      clock,
      logger,
      channels,
      metrics: metrics.alerts,
      options: {
        maxAttempts: config.alerting.max_attempts,
        retryBaseMs: config.alerting.retry_base_seconds * 1000,
        retryMaxMs: config.alerting.retry_max_seconds * 1000,
      },
    });
  }
}
