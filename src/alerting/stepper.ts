import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { TimerQueue } from '../lib/timer-queue.ts';
import type { Core } from '../core/index.ts';
import type { OutageRecord } from '../domain/outage.ts';
import { LeaseLostError, type LeaderFence } from '../domain/cluster.ts';
import type { Store } from '../store/index.ts';

/**
 * The escalation stepper: one timer per outage with a scheduled send (`next_alert_at`), rebuilt
 * from the store at start (a send that fell due while Pharos was stopped goes out right after
 * start) and kept current by outage events. When a timer fires, the core queues the step in the
 * outbox in one transaction (`escalation.sendDue`); then the dispatcher is woken.
 */
export class EscalationStepper {
  readonly #timers: TimerQueue;
  readonly #unsubscribe: Array<() => void> = [];
  #wakeQueued = false;

  /**
   * @param deps.fence the leader's lease (issue 31, several instances): checked before each step, whose
   *   transaction carries its epoch (a step of a leader whose lease passed to another instance is refused)
   */
  constructor(private readonly deps: { core: Core; store: Store; clock: Clock; logger: Logger; wakeDispatcher: () => void; fence?: LeaderFence }) {
    this.#timers = new TimerQueue(deps.clock);
  }

  /** Sets timers for every scheduled send in the store and follows outage events. */
  start(): void {
    const { core } = this.deps;
    const follow = (o: OutageRecord) => this.#follow(o.uuid, o.incidentNumber, o.nextAlertAt);
    // A flush transaction can open hundreds of outages (an outage storm): their events wake the
    // dispatcher once, after the last of them, not once each (each wake reads the outbox twice).
    const woken = (o: OutageRecord) => {
      follow(o);
      if (this.#wakeQueued) return;
      this.#wakeQueued = true;
      queueMicrotask(() => {
        this.#wakeQueued = false;
        this.deps.wakeDispatcher();
      });
    };
    this.#unsubscribe.push(
      core.bus.on('outage.opened', ({ outage }) => woken(outage)),
      core.bus.on('outage.unacknowledged', ({ outage }) => follow(outage)),
      core.bus.on('outage.acknowledged', ({ outage }) => woken(outage)),
      core.bus.on('outage.escalated', ({ outage }) => woken(outage)),
      core.bus.on('outage.resolved', ({ outage }) => woken(outage)),
      core.bus.on('outage.deleted', ({ incidentNumber }) => this.#timers.cancel(incidentNumber)),
    );
    for (const s of this.deps.store.outages.scheduledEscalations()) this.#follow(s.uuid, s.incidentNumber, s.nextAlertAt);
  }

  /** Re-reads an outage's schedule from the store (after a change made without an event). */
  refresh(uuid: string): void {
    const o = this.deps.store.outages.get(uuid);
    if (o) this.#follow(o.uuid, o.incidentNumber, o.nextAlertAt);
  }

  /** When the next send of an outage is due (epoch ms), or undefined. */
  timerAt(incidentNumber: number): number | undefined {
    return this.#timers.dueAt(incidentNumber);
  }

  /** Cancels every timer and stops following events. */
  stop(): void {
    for (const u of this.#unsubscribe) u();
    this.#timers.clear();
  }

  #follow(uuid: string, incidentNumber: number, nextAlertAt: number | null): void {
    if (nextAlertAt === null) return this.#timers.cancel(incidentNumber);
    this.#timers.schedule(incidentNumber, nextAlertAt, () => this.#fire(uuid, incidentNumber));
  }

  #fire(uuid: string, incidentNumber: number): void {
    const { core, store, clock, logger, fence } = this.deps;
    if (fence && !fence.valid()) return;
    const epoch = fence?.epoch() ?? null;
    try {
      const queued = store.tx((t) => {
        if (epoch !== null) t.cluster.assertFence(epoch);
        return core.escalation.sendDue(uuid, clock.now());
      });
      const o = store.outages.get(uuid);
      if (o) this.#follow(uuid, incidentNumber, o.nextAlertAt);
      // Step 1 is the first alert (its delivery is logged); later sends are escalations.
      if (queued && o && o.alertedSteps > 1) logger.warn(`outage #${o.incidentNumber} escalated: send ${o.alertedSteps} of its escalation policy, still unacknowledged`, { outage: o.uuid, incident: o.incidentNumber, send: o.alertedSteps });
      if (queued) this.deps.wakeDispatcher();
    } catch (e) {
      // Another instance leads and steps this outage now: this stepper is being stopped.
      if (e instanceof LeaseLostError) return fence?.lost(e.epoch);
      logger.error('escalation step failed', { outage: uuid, error: (e as Error).message });
      this.#timers.schedule(incidentNumber, clock.now() + 5_000, () => this.#fire(uuid, incidentNumber));
    }
  }
}
