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
import type { Clock, TimerHandle } from './lib/clock.ts';
import { LeaseLostError, type LeaderFence } from './domain/cluster.ts';
import type { Logger } from './lib/logger.ts';
import type { Store } from './store/index.ts';
import { outageJournal } from './store/outage-journal.ts';
import { directAlerts, policyMemory, type PolicyMemory } from './alerting/outage-alerts.ts';
import { join } from 'node:path';

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
 * The flood guard is registered as an alert gate on every instance (maintenance windows hold sends
 * from the store, in each escalation procedure), since an outage can open on a follower too (a `/fail`
 * ping, an agent's results) and its first alert is decided in that transaction. The scheduler and the dispatcher cannot restart once stopped, so a new pair is built
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

  /**
   * The clock of the leader's timers: with several instances a timer acts only while the lease is valid
   * by the monotonic clock (issue 31) — after a freeze (SIGSTOP) the timers of the thawed process fire in
   * any order, and the first one to find the lease run out ends the leadership instead of acting.
   * The system clock itself with one instance (no cost on SQLite).
   */
  readonly #leaderClock: Clock;
  /** The same for the scheduler, which also runs while its checks are kept alone through a database outage. */
  readonly #checksClock: Clock;
  /** With several instances: the escalation policies kept for alerts sent through a database outage. */
  #policies: PolicyMemory | null = null;

  constructor(private readonly deps: LeaderWorkDeps) {
    const { core, store, clock, logger, config, leadership } = deps;
    const { fence } = leadership;
    this.#leaderClock = deps.shared ? gatedClock(clock, () => fence.valid()) : clock;
    this.#checksClock = deps.shared ? gatedClock(clock, () => fence.valid() || this.#checksKept) : clock;
    if (deps.shared) {
      core.checks.useFence(fence);
      // Issue 31 point 5: through a database outage the last leader keeps results in a local journal
      // and sends the alerts of what it decides straight to their channels (while the outage is confirmed).
      // Policies live in the database, which cannot be read then: the ones last read are kept for it.
      this.#policies = policyMemory({ store, clock, logger, warm: (channel) => deps.channels.get(channel) });
      const policies = this.#policies;
      const send = directAlerts({ publicUrl: config.public_url, policy: (uuid) => policies.get(uuid), channels: deps.channels, logger, metrics: deps.metrics.alerts, now: () => clock.now(), confirmed: () => leadership.outageConfirmed });
      core.checks.useOutageSupport(outageJournal(join(config.data_dir, 'outage-journal.jsonl')), send);
    }
    this.#scheduler = this.#newScheduler();
    this.#dispatcher = this.#newDispatcher();
    // A deadline's outage is a leader write: with several instances it carries the lease's epoch.
    this.deadlines = new HealthcheckDeadlines({ core: deps.shared ? fencedDeadlines(core, fence) : core, clock: this.#leaderClock, logger });
    const wake = () => this.wakeDispatcher();
    this.stepper = new EscalationStepper({ core, store, clock: this.#leaderClock, logger, wakeDispatcher: wake, ...(deps.shared ? { fence } : {}) });
    const changed = (restarted: string[]) => {
      if (!this.#running) return;
      for (const uuid of restarted) this.stepper.refresh(uuid);
      wake();
    };
    this.floodGuard = new FloodGuard({ core, store, clock: this.#leaderClock, logger, config, monitorCount: () => core.probes.activeCount(), metrics: deps.metrics.alerts, changed });
    this.maintenanceGate = new MaintenanceGate({ core, store, clock: this.#leaderClock, logger, changed });
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

  /** Follows the leadership: starts the work now when leading, and on every gain; stops it on a loss. Resolves when the deadline timers are set. */
  start(): Promise<void> {
    const { leadership } = this.deps;
    const unfollow = leadership.onLeadership((leader) => (leader ? this.#begin() : this.#running ? this.#end(leadership.keepsChecks) : this.#dropKeptChecks()));
    const unrelease = leadership.onChecksReleased(() => this.#dropKeptChecks());
    this.#unfollow = () => (unfollow(), unrelease());
    if (this.deps.leadership.isLeader) this.#begin();
    // Resolves once the healthchecks' deadline timers are set (read asynchronously); never rejects.
    return this.deadlines.settled();
  }

  /** Stops following the leadership and the work, waiting for checks and deliveries in flight. */
  async stop(): Promise<void> {
    this.#unfollow?.();
    this.#unfollow = null;
    this.#end(false);
    this.#dropKeptChecks();
    await this.#policies?.stop();
    await this.#stopping;
    // The results of the last checks are stored while this instance still holds its lease (pharos.ts
    // stops the cluster, which releases the lease, after this).
    await this.deps.core.checks.flush();
  }

  #begin(): void {
    if (this.#running) return;
    this.#running = true;
    this.#policies?.start();
    // The leader before this one may have flipped monitors this instance never heard of (issue 31):
    // their status is read from the store before the first check is judged — after what this instance
    // still holds is written. Not when it renewed its own lease after keeping its checks through a
    // database outage: nobody led meanwhile, and its memory is newer than the store.
    const reload = this.deps.shared && !this.#checksKept;
    // Same order as a single instance's start: gates first, so alerts decided by the first checks see them.
    this.floodGuard.start();
    this.maintenanceGate.start();
    if (this.#checksKept) this.#checksKept = false;
    else if (!reload) this.#scheduler.start();
    else {
      // The checks start once the status is read (asynchronously: the loop never waits on the database),
      // unless the leadership ended meanwhile (kept checks through a database outage still start).
      const scheduler = this.#scheduler;
      void this.#reloadStatus().then(() => {
        if (this.#scheduler !== scheduler || !(this.#running || this.#checksKept)) return;
        try {
          scheduler.start();
        } catch (e) {
          this.deps.logger.error('starting the checks after the take-over failed', { error: (e as Error).message });
        }
      });
    }
    // Reads the healthchecks asynchronously; never rejects (a failed read is logged and retried).
    void this.deadlines.start();
    this.stepper.start();
    this.#dispatcher.start();
  }

  /** Stores what this instance still holds, then reads every monitor's status (take-over). Never rejects. */
  async #reloadStatus(): Promise<void> {
    await this.deps.core.checks.flush();
    try {
      await this.deps.core.results.reload();
    } catch (e) {
      // The lease is only taken while the store answers; should it fail right then, the next flip is judged as remembered.
      this.deps.logger.error('reading the monitors\' status at the take-over failed; checks are judged against the status this instance remembers', { error: (e as Error).message });
    }
  }

  /**
   * Stops at once everything that could act (timers cancelled, no new claim or check), then lets
   * what is in flight finish in the background; a new scheduler and dispatcher wait for the next gain.
   */
  #end(keepChecks: boolean): void {
    if (!this.#running) return;
    this.#running = false;
    // Its timers stop now; the deadline check in flight (if any) is awaited with the rest below.
    const deadlinesStopped = this.deadlines.stop();
    // Their timers and event follows stop now; the store work in flight is awaited with the rest below.
    const alertingStopped = Promise.all([this.stepper.stop(), this.floodGuard.stop(), this.maintenanceGate.stop()]);
    const dispatcher = this.#dispatcher;
    this.#dispatcher = this.#newDispatcher();
    if (keepChecks) {
      // The database went away while this instance led, and nobody else can take over (alone, or every
      // peer says it cannot reach it either: Leadership.keepsChecks): the checks go on, their results
      // wait in memory and the outage journal, and alerts of what they decide go straight to channels.
      this.#checksKept = true;
      const why = this.deps.leadership.alone ? 'no other instance is alive' : 'while the other instances confirm they cannot reach it either';
      this.deps.logger.warn(`the database is unreachable: checks go on here (${why}); deadlines, escalations and the outbox resume with the database`);
      this.#stopping = Promise.all([this.#stopping, dispatcher.stop(), deadlinesStopped, alertingStopped]).then(() => {}, (e: unknown) => this.deps.logger.error('stopping the leader work failed', { error: (e as Error).message }));
      return;
    }
    const scheduler = this.#scheduler;
    const done = Promise.all([scheduler.stop(), dispatcher.stop(), deadlinesStopped, alertingStopped]).then(
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
    const { core, logger, probes, metrics, config } = this.deps;
    return new Scheduler({ core, clock: this.#checksClock, logger, probes, metrics: metrics.engine, options: { maxConcurrentChecks: config.probe.max_concurrent_checks, takeOver: this.deps.shared } });
  }

  #newDispatcher(): AlertDispatcher {
    const { store, logger, channels, metrics, config } = this.deps;
    return new AlertDispatcher({
      store,
      clock: this.#leaderClock,
      logger,
      ...(this.deps.shared ? { fence: this.deps.leadership.fence } : {}),
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

/** Delay before a gated timer that found the lease invalid tries again (its owner is being stopped meanwhile), ms. */
const GATE_RETRY_MS = 250;

/**
 * A clock whose timers run their function only while `valid()` (the lease check, issue 31). A timer
 * that finds it false is re-armed {@link GATE_RETRY_MS} later rather than dropped (a timer queue that
 * armed it must see it fire), by which time the leadership's end has cancelled it.
 */
function gatedClock(clock: Clock, valid: () => boolean): Clock {
  return {
    now: () => clock.now(),
    setTimer(delayMs, fn) {
      let cancelled = false;
      let inner: TimerHandle;
      const fire = () => {
        if (cancelled) return;
        if (valid()) return fn();
        // valid() may have ended the leadership, and with it cancelled this very timer.
        if (!cancelled) inner = clock.setTimer(GATE_RETRY_MS, fire);
      };
      inner = clock.setTimer(delayMs, fire);
      return {
        cancel: () => {
          cancelled = true;
          inner.cancel();
        },
      };
    },
  };
}

/**
 * The core as the healthcheck deadlines see it with several instances: a deadline's check carries the
 * lease's epoch, checked (FOR SHARE) in the same transaction as the check's writes (the procedure
 * `healthchecks.checkDeadline`). Refused, leadership ends (`fence.lost`) and the new leader's deadlines
 * take over. The refusal may come back from the store host thread as a plain AppError of the same code.
 */
function fencedDeadlines(core: Core, fence: LeaderFence): Core {
  const checkDeadline = async (id: number): Promise<void> => {
    const epoch = fence.epoch();
    try {
      await core.healthchecks.checkDeadline(id, epoch);
    } catch (e) {
      if (epoch === null || (e as { code?: unknown }).code !== 'cluster.lease_lost') throw e;
      fence.lost(e instanceof LeaseLostError ? e.epoch : epoch);
    }
  };
  return Object.assign(Object.create(core) as Core, { healthchecks: Object.assign(Object.create(core.healthchecks) as Core['healthchecks'], { checkDeadline }) });
}
