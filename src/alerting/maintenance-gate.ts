import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { TimerQueue } from '../lib/timer-queue.ts';
import type { MaintenanceWindow } from '../domain/maintenance.ts';
import type { AlertGate } from '../core/escalation.ts';
import type { Core } from '../core/index.ts';
import type { OutageRecord } from '../domain/outage.ts';
import type { Store } from '../store/index.ts';

/**
 * Maintenance windows as an alert gate (CONTRACT.md "Maintenance windows"): while a window covering
 * a monitor is ongoing, checks and outages go on but its escalation sends are held. One timer per
 * window, at its end (not polled): outages of its monitors that are still ongoing and were never
 * alerted then start their escalation from that moment, so alerts flow again after maintenance.
 * Outages that alerted before the window keep their own schedule.
 * A second timer per `scheduled` window fires `notificationMinutes` before its start and has the
 * core tell the subscribers of its status pages (once; late after a restart that missed it).
 */
export class MaintenanceGate implements AlertGate {
  readonly #ends: TimerQueue;
  readonly #notices: TimerQueue;
  readonly #unsubscribe: Array<() => void> = [];

  constructor(private readonly deps: { core: Core; store: Store; clock: Clock; logger: Logger; changed: (restarted: string[]) => void }) {
    this.#ends = new TimerQueue(deps.clock);
    this.#notices = new TimerQueue(deps.clock);
  }

  /** Registers as an alert gate, sets end timers for windows not over yet, follows window events. */
  start(): void {
    const { core, clock } = this.deps;
    core.addAlertGate(this);
    this.#unsubscribe.push(
      core.bus.on('maintenance.changed', ({ window }) => this.#watch(window)),
      core.bus.on('maintenance.deleted', ({ window }) => {
        this.#ends.cancel(window.id);
        this.#notices.cancel(window.id);
      }),
    );
    const now = clock.now();
    for (const w of core.maintenance.list()) if (w.endAt > now) this.#watch(w);
  }

  stop(): void {
    for (const u of this.#unsubscribe) u();
    this.#ends.clear();
    this.#notices.clear();
  }

  /** Held while an ongoing window covers the outage's monitor. */
  holds(o: OutageRecord, now: number): boolean {
    return o.monitorId !== null && this.deps.core.maintenance.activeForMonitor(o.monitorId, now);
  }

  #watch(w: MaintenanceWindow): void {
    this.#ends.schedule(w.id, w.endAt, () => this.#ended(w.uuid));
    if (w.notificationOption === 'scheduled' && w.notifiedAt === null) {
      const at = Math.max(this.deps.clock.now(), w.startAt - w.notificationMinutes * 60_000);
      this.#notices.schedule(w.id, at, () => {
        try {
          this.deps.core.maintenance.notifyScheduled(w.uuid);
        } catch (e) {
          this.deps.logger.error('maintenance notice failed', { window: w.uuid, error: (e as Error).message });
        }
      });
    } else this.#notices.cancel(w.id);
  }

  #ended(uuid: string): void {
    const { core, store, clock, logger } = this.deps;
    const w = store.maintenance.get(uuid);
    if (!w) return;
    const now = clock.now();
    const restarted: string[] = [];
    try {
      store.tx((tx) => {
        for (const monitorUuid of w.monitors) {
          const m = tx.monitors.get(monitorUuid);
          const o = m && tx.outages.openForMonitor(m.id);
          // Only outages whose sends were all held: steps taken (alertedSteps > 0) but no alert queued.
          if (!o || o.alertedSteps === 0 || tx.alerts.alertedChannels(o.uuid).length > 0 || core.maintenance.activeForMonitor(m.id, now)) continue;
          core.escalation.restart(o.uuid, now);
          restarted.push(o.uuid);
        }
      });
    } catch (e) {
      logger.error('maintenance window end failed', { window: uuid, error: (e as Error).message });
      return;
    }
    if (restarted.length > 0) this.deps.changed(restarted);
  }
}
