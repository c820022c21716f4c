import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { TimerQueue } from '../lib/timer-queue.ts';
import type { MaintenanceWindow } from '../domain/maintenance.ts';
import { escalationRestart, type EscalationSettings } from '../core/escalation.ts';
import type { Core } from '../core/index.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';

/**
 * The end of window `uuid`, in one transaction: outages of its monitors that are still ongoing and
 * whose sends were all held (steps taken, no alert queued) and that no other window covers now start
 * their escalation at `now`. @returns the restarted outages' uuids
 */
const endWindow = procedure('maintenanceGate.end', (tx: Store, a: { uuid: string; now: number; esc: EscalationSettings }): string[] => {
  const w = tx.maintenance.get(a.uuid, a.now);
  if (!w) return [];
  const restarted: string[] = [];
  for (const monitorUuid of w.monitors) {
    const m = tx.monitors.get(monitorUuid);
    const o = m && tx.outages.openForMonitor(m.id);
    // Only outages whose sends were all held: steps taken (alertedSteps > 0) but no alert queued.
    if (!o || o.alertedSteps === 0 || tx.alerts.alertedChannels(o.uuid).length > 0 || tx.maintenance.activeForMonitor(m.id, a.now)) continue;
    escalationRestart(tx, a.esc, o.uuid, a.now);
    restarted.push(o.uuid);
  }
  return restarted;
});

/**
 * Maintenance windows and alerts (CONTRACT.md "Maintenance windows"): while a window covering a
 * monitor is ongoing, checks and outages go on but its escalation sends are held (the rule is read from
 * the store inside each escalation procedure: core/escalation.ts `maintenanceHolds`). One timer per
 * window, at its end (not polled): outages of its monitors that are still ongoing and were never
 * alerted then start their escalation from that moment, so alerts flow again after maintenance.
 * Outages that alerted before the window keep their own schedule. A recurring window (issue 33 point 6)
 * has one end timer for its current or next occurrence, set again from a fresh read when it fires; a
 * window whose ongoing occurrence a change ended ("end now") ends at once.
 * A second timer per `scheduled` window fires `notificationMinutes` before its start and has the
 * core tell the subscribers of its status pages (once; late after a restart that missed it).
 * Store work (the start's read, window ends, notices) runs one piece at a time (store.async, issue
 * 31); {@link stop} waits for the piece in flight.
 */
export class MaintenanceGate {
  readonly #ends: TimerQueue;
  readonly #starts: TimerQueue;
  readonly #notices: TimerQueue;
  readonly #unsubscribe: Array<() => void> = [];
  /** The store work in flight and queued behind it (one at a time). */
  #chain: Promise<void> = Promise.resolve();
  /** Bumped by start and stop: queued work of an earlier run is dropped. */
  #generation = 0;
  /** The occurrence each window was last watched at (by id): one ongoing now that a change ended ("end now") ends at once. */
  readonly #watched = new Map<number, { startAt: number; endAt: number }>();

  constructor(private readonly deps: { core: Core; store: Store; clock: Clock; logger: Logger; changed: (restarted: string[]) => void }) {
    this.#ends = new TimerQueue(deps.clock);
    this.#starts = new TimerQueue(deps.clock);
    this.#notices = new TimerQueue(deps.clock);
  }

  /** Sets end timers for windows not over yet (read asynchronously), follows window events. */
  start(): void {
    const { core, clock, logger } = this.deps;
    this.#generation++;
    // Windows changed or deleted while the start's read is in flight: the events are newer than the read.
    const seen = new Set<number>();
    this.#unsubscribe.push(
      core.bus.on('maintenance.changed', ({ window }) => {
        seen.add(window.id);
        this.#watch(window);
      }),
      core.bus.on('maintenance.deleted', ({ window }) => {
        seen.add(window.id);
        this.#ends.cancel(window.id);
        this.#starts.cancel(window.id);
        this.#notices.cancel(window.id);
        this.#watched.delete(window.id);
      }),
    );
    this.#enqueue(async () => {
      try {
        const windows = await core.maintenance.list();
        const now = clock.now();
        for (const w of windows) if (w.endAt > now && !seen.has(w.id)) this.#watch(w);
      } catch (e) {
        logger.error('maintenance: reading the windows failed; their end timers are set when they change or the leadership restarts', { error: (e as Error).message });
      }
    });
  }

  /** Stops following window events, cancels the timers and waits for the store work in flight. */
  async stop(): Promise<void> {
    for (const u of this.#unsubscribe) u();
    this.#unsubscribe.length = 0;
    this.#ends.clear();
    this.#starts.clear();
    this.#notices.clear();
    this.#watched.clear();
    this.#generation++;
    await this.settled();
  }

  /** Resolves when no store work of the gate is in flight or queued (tests). */
  async settled(): Promise<void> {
    let seen: Promise<void> | undefined;
    while (seen !== this.#chain) {
      seen = this.#chain;
      await seen;
    }
  }

  /** Runs `work` after the store work before it, if this run of the gate has not stopped by then. */
  #enqueue(work: () => Promise<void>): void {
    const generation = this.#generation;
    this.#chain = this.#chain.then(async () => {
      if (generation === this.#generation) await work();
    });
  }

  /**
   * Times the end of the window's occurrence as read (the store expands recurring windows: `startAt`/
   * `endAt` are the ongoing or next occurrence; after it ends the window is read again for the next).
   */
  #watch(w: MaintenanceWindow): void {
    const now = this.deps.clock.now();
    const prev = this.#watched.get(w.id);
    const wasOngoing = prev !== undefined && prev.startAt <= now && now < prev.endAt;
    if (wasOngoing && !(w.startAt <= now && now < w.endAt)) this.#enqueue(() => this.#ended(w.uuid));
    this.#watched.set(w.id, { startAt: w.startAt, endAt: w.endAt });
    if (w.endAt > now) this.#ends.schedule(w.id, w.endAt, () => this.#enqueue(() => this.#ended(w.uuid, true)));
    else this.#ends.cancel(w.id);
    // At an occurrence's start, `maintenance.changed` tells the screens that show "in maintenance" (the console's live rows).
    if (w.startAt > now) this.#starts.schedule(w.id, w.startAt, () => this.#enqueue(() => this.#started(w.uuid)));
    else this.#starts.cancel(w.id);
    if (w.notificationOption === 'scheduled' && w.notifiedAt === null) {
      const at = Math.max(this.deps.clock.now(), w.startAt - w.notificationMinutes * 60_000);
      this.#notices.schedule(w.id, at, () =>
        this.#enqueue(async () => {
          try {
            await this.deps.core.maintenance.notifyScheduled(w.uuid);
          } catch (e) {
            this.deps.logger.error('maintenance notice failed', { window: w.uuid, error: (e as Error).message });
          }
        }),
      );
    } else this.#notices.cancel(w.id);
  }

  /** An occurrence started: the window as read now goes out as `maintenance.changed`. */
  async #started(uuid: string): Promise<void> {
    const { core, store, clock, logger } = this.deps;
    try {
      const w = await store.async.maintenance.get(uuid, clock.now());
      if (w) core.bus.emit('maintenance.changed', { window: w });
    } catch (e) {
      logger.error('maintenance window start: reading it failed', { window: uuid, error: (e as Error).message });
    }
  }

  /**
   * An occurrence ended: held outages start alerting; `next` (its end timer): the window read again
   * goes out as `maintenance.changed` (the screens' "in maintenance", and the gate's timers for a
   * recurring window's next occurrence).
   */
  async #ended(uuid: string, next = false): Promise<void> {
    const { core, store, clock, logger } = this.deps;
    let restarted: string[];
    try {
      restarted = await store.async.tx(endWindow, { uuid, now: clock.now(), esc: core.escalation.settings });
      if (next) {
        const w = await store.async.maintenance.get(uuid, clock.now());
        if (w) core.bus.emit('maintenance.changed', { window: w });
      }
    } catch (e) {
      logger.error('maintenance window end failed', { window: uuid, error: (e as Error).message });
      return;
    }
    if (restarted.length > 0) this.deps.changed(restarted);
  }
}
