import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { TimerQueue } from '../lib/timer-queue.ts';
import type { Core } from '../core/index.ts';
import { escalationSendDue, procedureGate, type EscalationSettings, type GateSnapshot } from '../core/escalation.ts';
import type { OutageRecord } from '../domain/outage.ts';
import type { LeaderFence } from '../domain/cluster.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import { isLeaseLost } from './dispatcher.ts';
import { PAGE_CLAIM_STALE_MS } from '../domain/people.ts';
import { createPager, type Pager } from './pager.ts';

/** The key of the page requests' retry timer among the outages' timers (incident numbers are ≥ 1). */
const PAGE_RETRY = 0;

/**
 * One scheduled send of outage `uuid`, in one transaction: the lease's fencing number checked first
 * when there is one, then the send queued when due (`escalationSendDue`). Answers the outage as
 * stored after it (its next send), whether something was queued, and the sends held on the gates' word.
 */
const stepOutage = procedure(
  'escalation.step',
  (tx: Store, a: { uuid: string; now: number; epoch: number | null; esc: EscalationSettings; gate: GateSnapshot }): { queued: boolean; outage: OutageRecord | undefined; heldByGates: string[] } => {
    if (a.epoch !== null) tx.cluster.assertFence(a.epoch);
    const heldByGates: string[] = [];
    const queued = escalationSendDue(tx, a.esc, procedureGate(tx, a.gate, heldByGates), a.uuid, a.now);
    return { queued, outage: tx.outages.get(a.uuid), heldByGates };
  },
);

/**
 * The escalation stepper: one timer per outage with a scheduled send (`next_alert_at`), rebuilt
 * from the store at start (a send that fell due while Pharos was stopped goes out right after
 * start) and kept current by outage events. When a timer fires, the step is queued in the outbox
 * in one transaction (the `escalation.step` procedure); then the dispatcher is woken.
 * Store work (the start's read, steps, refreshes) runs one piece at a time, in order, off the event
 * loop's back (store.async, issue 31); {@link stop} waits for the piece in flight.
 */
export class EscalationStepper {
  readonly #timers: TimerQueue;
  readonly #unsubscribe: Array<() => void> = [];
  #wakeQueued = false;
  /** The store work in flight and queued behind it (one at a time). */
  #chain: Promise<void> = Promise.resolve();
  /** Bumped by start and stop: queued work of an earlier run is dropped. */
  #generation = 0;
  /** While the start's read is in flight: outages followed by events meanwhile (newer than that read). */
  #followed: Set<number> | null = null;
  /** Pages the people of a step once it is committed (issue 34 point 3). */
  readonly #pager: Pager;
  /** Pages in flight (awaited by {@link settled}). */
  readonly #paging = new Set<Promise<void>>();

  /**
   * @param deps.fence the leader's lease (issue 31, several instances): checked before each step, whose
   *   transaction carries its epoch (a step of a leader whose lease passed to another instance is refused)
   */
  constructor(private readonly deps: { core: Core; store: Store; clock: Clock; logger: Logger; wakeDispatcher: () => void; fence?: LeaderFence }) {
    this.#timers = new TimerQueue(deps.clock);
    this.#pager = createPager({ core: deps.core, store: deps.store, clock: deps.clock, logger: deps.logger });
  }

  /** Sets timers for every scheduled send in the store (read asynchronously) and follows outage events. */
  start(): void {
    const { core } = this.deps;
    this.#generation++;
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
      core.bus.on('outage.opened', ({ outage }) => {
        woken(outage);
        // Step 1 due at once was queued in the opening transaction: its people are paged now.
        if (outage.alertedSteps > 0) this.#page(outage);
      }),
      core.bus.on('outage.unacknowledged', ({ outage }) => follow(outage)),
      core.bus.on('outage.acknowledged', ({ outage }) => woken(outage)),
      core.bus.on('outage.escalated', ({ outage }) => {
        woken(outage);
        this.#page(outage);
      }),
      core.bus.on('outage.resolved', ({ outage }) => woken(outage)),
      core.bus.on('outage.deleted', ({ incidentNumber }) => {
        this.#followed?.add(incidentNumber);
        this.#timers.cancel(incidentNumber);
      }),
    );
    const followed = new Set<number>();
    this.#followed = followed;
    this.#enqueue(async () => {
      try {
        // Page requests left open by a leader that stopped (issue 34 point 3) are paged first.
        this.#recoverPages();
        const scheduled = await this.deps.store.async.outages.scheduledEscalations();
        // An event heard while the read was in flight is newer than what the read saw.
        for (const s of scheduled) if (!followed.has(s.incidentNumber)) this.#follow(s.uuid, s.incidentNumber, s.nextAlertAt);
      } catch (e) {
        this.deps.logger.error('escalation: reading the scheduled sends failed; they are set again when their outages change or the leadership restarts', { error: (e as Error).message });
      } finally {
        if (this.#followed === followed) this.#followed = null;
      }
    });
  }

  /** Re-reads an outage's schedule from the store (after a change made without an event). */
  refresh(uuid: string): void {
    this.#enqueue(async () => {
      try {
        const o = await this.deps.store.async.outages.get(uuid);
        if (o) this.#follow(o.uuid, o.incidentNumber, o.nextAlertAt);
      } catch (e) {
        this.deps.logger.error('escalation: re-reading an outage\'s schedule failed', { outage: uuid, error: (e as Error).message });
      }
    });
  }

  /** When the next send of an outage is due (epoch ms), or undefined. */
  timerAt(incidentNumber: number): number | undefined {
    return this.#timers.dueAt(incidentNumber);
  }

  /** Resolves when no store work of the stepper is in flight or queued (tests drive a manual clock, then await this). */
  async settled(): Promise<void> {
    let seen: Promise<void> | undefined;
    while (seen !== this.#chain || this.#paging.size > 0) {
      seen = this.#chain;
      await seen;
      await Promise.all([...this.#paging]);
    }
  }

  /** Cancels every timer, stops following events, and waits for the store work in flight (what is queued behind it is dropped). */
  async stop(): Promise<void> {
    for (const u of this.#unsubscribe) u();
    this.#unsubscribe.length = 0;
    this.#timers.clear();
    this.#generation++;
    this.#followed = null;
    await this.settled();
  }

  /** Runs `work` after the store work before it, if this run of the stepper has not stopped by then. */
  #enqueue(work: () => Promise<void>): void {
    const generation = this.#generation;
    this.#chain = this.#chain.then(async () => {
      if (generation === this.#generation) await work();
    });
  }

  #follow(uuid: string, incidentNumber: number, nextAlertAt: number | null): void {
    this.#followed?.add(incidentNumber);
    if (nextAlertAt === null) return this.#timers.cancel(incidentNumber);
    this.#timers.schedule(incidentNumber, nextAlertAt, () => this.#fire(uuid, incidentNumber));
  }

  /**
   * Pages the people of the send `o` just committed, outside the stepper's chain (sends take seconds);
   * a step that reached nobody moved the next one to now: its timer is set again.
   */
  #page(o: OutageRecord): void {
    const generation = this.#generation;
    const p = this.#pager.pageStep(o.uuid, o.alertedSteps).then(
      (r) => {
        if (r.hurried && generation === this.#generation) this.refresh(o.uuid);
      },
      (e: unknown) => {
        this.deps.logger.error('paging the people of an escalation step failed; its page request is retried', { outage: o.uuid, error: (e as Error).message });
        this.#retryPages(generation, this.deps.clock.now() + PAGE_CLAIM_STALE_MS);
      },
    );
    this.#track(p);
  }

  #track(p: Promise<void>): void {
    this.#paging.add(p);
    void p.finally(() => this.#paging.delete(p));
  }

  /** Sets the page requests' retry timer to `at` unless it is set earlier (same run of the stepper only). */
  #retryPages(generation: number, at: number): void {
    if (generation !== this.#generation) return;
    const had = this.#timers.dueAt(PAGE_RETRY);
    if (had === undefined || had > at) this.#timers.schedule(PAGE_RETRY, at, () => this.#recoverPages());
  }

  /**
   * Pages the page requests left open (issue 34 point 3: at start of the leadership, then 5 minutes
   * after the oldest claim still open), outside the stepper's chain like {@link #page}.
   */
  #recoverPages(): void {
    const generation = this.#generation;
    const { logger, clock } = this.deps;
    const p = (async () => {
      try {
        for (const r of await this.#pager.recover()) if (r.pages.hurried && generation === this.#generation) this.refresh(r.uuid);
        const at = await this.#pager.retryAt();
        if (at !== null) this.#retryPages(generation, at);
      } catch (e) {
        logger.error('paging the open page requests failed; retried in 30 s', { error: (e as Error).message });
        this.#retryPages(generation, clock.now() + 30_000);
      }
    })();
    this.#track(p);
  }

  #fire(uuid: string, incidentNumber: number): void {
    this.#enqueue(() => this.#step(uuid, incidentNumber));
  }

  async #step(uuid: string, incidentNumber: number): Promise<void> {
    const { core, store, clock, logger, fence } = this.deps;
    if (fence && !fence.valid()) return;
    const generation = this.#generation;
    const epoch = fence?.epoch() ?? null;
    try {
      const { queued, outage: o, heldByGates } = await store.async.tx(stepOutage, { uuid, now: clock.now(), epoch, esc: core.escalation.settings, gate: core.escalation.snapshot([uuid]) });
      core.escalation.reportHeld(heldByGates);
      if (generation !== this.#generation) return;
      if (o) this.#follow(uuid, incidentNumber, o.nextAlertAt);
      // Step 1 is the first alert (its delivery is logged); later sends are escalations.
      if (queued && o && o.alertedSteps > 1) logger.warn(`outage #${o.incidentNumber} escalated: send ${o.alertedSteps} of its escalation policy, still unacknowledged`, { outage: o.uuid, incident: o.incidentNumber, send: o.alertedSteps });
      if (queued) this.deps.wakeDispatcher();
      if (queued && o) this.#page(o);
    } catch (e) {
      // Another instance leads and steps this outage now: this stepper is being stopped.
      if (isLeaseLost(e)) return fence?.lost(epoch ?? 0);
      logger.error('escalation step failed', { outage: uuid, error: (e as Error).message });
      if (generation === this.#generation) this.#timers.schedule(incidentNumber, clock.now() + 5_000, () => this.#fire(uuid, incidentNumber));
    }
  }
}
