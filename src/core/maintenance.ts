import type { Clock } from '../lib/clock.ts';
import { notFound } from '../lib/errors.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { resolveMaintenance, type MaintenanceBodyInput, type MaintenanceWindow } from '../domain/maintenance.ts';
import type { Store } from '../store/index.ts';
import type { EventBus } from './events.ts';
import type { SubscriptionsService } from './subscriptions.ts';

/**
 * Maintenance window use cases (API.md §4.5, CONTRACT.md "Maintenance windows"). Writes are one
 * transaction each; `maintenance.changed` / `maintenance.deleted` tell the alerting side to move
 * its window timers.
 */
export function maintenanceService(deps: { store: Store; clock: Clock; bus: EventBus; subscriptions: SubscriptionsService }) {
  const { store, clock, bus, subscriptions } = deps;
  let queued = 0;
  /** `immediate` windows tell the pages' subscribers when saved (once); `scheduled` ones from MaintenanceGate's timer. */
  const notifyNow = (w: MaintenanceWindow) => {
    if (w.notificationOption === 'immediate' && w.notifiedAt === null && w.endAt > clock.now()) queued += subscriptions.queueMaintenance(w);
    return w;
  };
  const wake = () => {
    if (queued > 0) bus.emit('notices.queued', { count: queued });
    queued = 0;
  };
  const mustGet = (uuid: string): MaintenanceWindow => {
    const w = store.maintenance.get(uuid);
    if (!w) throw notFound('maintenance', 'Maintenance window');
    return w;
  };
  const knownMonitor = (uuid: string) => store.monitors.get(uuid) !== undefined;
  const knownStatuspage = (uuid: string) => store.statuspages.get(uuid) !== undefined;

  return {
    list: (): MaintenanceWindow[] => store.maintenance.list(),
    /** @throws AppError 404 `maintenance.not_found` */
    get: mustGet,
    /** @throws AppError 400 naming the field */
    create(body: MaintenanceBodyInput): MaintenanceWindow {
      const s = resolveMaintenance(body, knownMonitor, knownStatuspage);
      const w = store.tx((tx) => notifyNow(tx.maintenance.insert(newId(ID_PREFIX.maintenance), s, clock.now())));
      wake();
      bus.emit('maintenance.changed', { window: w });
      return w;
    },
    /**
     * Partial update: the fields given are merged into the stored window and the result is checked
     * as a whole; nothing is stored when it breaks a rule (CONTRACT.md "Errors and validation").
     * @throws AppError 404 / 400
     */
    update(uuid: string, body: Partial<MaintenanceBodyInput>): MaintenanceWindow {
      const w = store.tx((tx) => {
        const cur = mustGet(uuid);
        const merged: MaintenanceBodyInput = {
          name: cur.name,
          start_date: new Date(cur.startAt).toISOString(),
          end_date: new Date(cur.endAt).toISOString(),
          monitors: cur.monitors,
          statuspages: cur.statuspages,
          title: cur.title,
          updates: cur.updates.map((u) => ({ text: u.text, date: new Date(u.date).toISOString() })),
          notificationOption: cur.notificationOption,
          notificationMinutes: cur.notificationMinutes,
          ...definedOnly(body),
        };
        return notifyNow(tx.maintenance.update(uuid, resolveMaintenance(merged, knownMonitor, knownStatuspage), clock.now()));
      });
      wake();
      bus.emit('maintenance.changed', { window: w });
      return w;
    },
    /** @throws AppError 404 */
    delete(uuid: string): void {
      const w = store.tx((tx) => {
        const found = mustGet(uuid);
        tx.maintenance.delete(uuid);
        return found;
      });
      bus.emit('maintenance.deleted', { window: w });
    },
    /**
     * Tells the subscribers of a `scheduled` window's pages about it (MaintenanceGate calls this
     * `notificationMinutes` before the start, or late after a restart); once per window.
     */
    notifyScheduled(uuid: string): void {
      store.tx((tx) => {
        const w = tx.maintenance.get(uuid);
        if (w && w.notifiedAt === null && w.endAt > clock.now()) queued += subscriptions.queueMaintenance(w);
      });
      wake();
    },
    /** True when the monitor is in an ongoing window at `at` (epoch ms). */
    activeForMonitor: (monitorId: number, at: number): boolean => store.maintenance.activeForMonitor(monitorId, at),
  };
}

/** `o` without the keys whose value is undefined (a body's left-out fields). */
export function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The maintenance service's interface. */
export type MaintenanceService = ReturnType<typeof maintenanceService>;
