import type { Clock } from '../lib/clock.ts';
import { notFound } from '../lib/errors.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { resolveMaintenance, type MaintenanceBodyInput, type MaintenanceSettings, type MaintenanceWindow } from '../domain/maintenance.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import type { EventBus } from './events.ts';
import { queueMaintenanceNotices } from './notice-queue.ts';

/** What every window write's procedure gets besides its own arguments. */
interface Common {
  now: number;
  publicUrl: string;
}

/** @throws AppError 404 `maintenance.not_found` */
function mustGet(store: Store, uuid: string): MaintenanceWindow {
  const w = store.maintenance.get(uuid);
  if (!w) throw notFound('maintenance', 'Maintenance window');
  return w;
}

/** A body's settings, its monitors and pages checked against the store. @throws AppError 400 naming the field */
function resolved(tx: Store, body: MaintenanceBodyInput): MaintenanceSettings {
  return resolveMaintenance(
    body,
    (uuid) => tx.monitors.get(uuid) !== undefined,
    (uuid) => tx.statuspages.get(uuid) !== undefined,
  );
}

/** `immediate` windows tell the pages' subscribers when saved (once); `scheduled` ones from MaintenanceGate's timer. @returns messages queued */
function notifyNow(tx: Store, w: MaintenanceWindow, a: Common): number {
  return w.notificationOption === 'immediate' && w.notifiedAt === null && w.endAt > a.now ? queueMaintenanceNotices(tx, w, a.publicUrl, a.now) : 0;
}

/** Inserts a window and queues its immediate notices. */
const createWindow = procedure('maintenance.create', (tx: Store, a: Common & { uuid: string; body: MaintenanceBodyInput }) => {
  const window = tx.maintenance.insert(a.uuid, resolved(tx, a.body), a.now);
  return { window, queued: notifyNow(tx, window, a) };
});

/** Merges a partial body into the stored window, checks it whole, stores it and queues its immediate notices. */
const updateWindow = procedure('maintenance.update', (tx: Store, a: Common & { uuid: string; body: Partial<MaintenanceBodyInput> }) => {
  const cur = mustGet(tx, a.uuid);
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
    ...definedOnly(a.body),
  };
  const window = tx.maintenance.update(a.uuid, resolved(tx, merged), a.now);
  return { window, queued: notifyNow(tx, window, a) };
});

const deleteWindow = procedure('maintenance.delete', (tx: Store, a: { uuid: string }): MaintenanceWindow => {
  const found = mustGet(tx, a.uuid);
  tx.maintenance.delete(a.uuid);
  return found;
});

/** A `scheduled` window's notices, once per window. @returns messages queued */
const notifyScheduledWindow = procedure('maintenance.notifyScheduled', (tx: Store, a: Common & { uuid: string }): number => {
  const w = tx.maintenance.get(a.uuid);
  return w && w.notifiedAt === null && w.endAt > a.now ? queueMaintenanceNotices(tx, w, a.publicUrl, a.now) : 0;
});

/**
 * Creates a window inside a transaction the caller holds (`pharos import kuma`: one transaction for
 * the whole import); no event (the CLI has no listeners). @throws AppError 400 naming the field
 */
export function createWindowIn(tx: Store, body: MaintenanceBodyInput, publicUrl: string, now: number): MaintenanceWindow {
  return createWindow.run(tx, { uuid: newId(ID_PREFIX.maintenance), body, publicUrl, now }).window;
}

/**
 * Maintenance window use cases (API.md §4.5, CONTRACT.md "Maintenance windows"). Writes are one
 * transaction each (a procedure); `maintenance.changed` / `maintenance.deleted` tell the alerting
 * side to move its window timers, after the commit.
 */
export function maintenanceService(deps: { store: Store; clock: Clock; bus: EventBus; publicUrl: string }) {
  const { store, clock, bus } = deps;
  const common = (): Common => ({ now: clock.now(), publicUrl: deps.publicUrl });
  const wake = (queued: number) => {
    if (queued > 0) bus.emit('notices.queued', { count: queued });
  };

  return {
    list: (): Promise<MaintenanceWindow[]> => store.async.maintenance.list(),
    /** @throws AppError 404 `maintenance.not_found` */
    async get(uuid: string): Promise<MaintenanceWindow> {
      const w = await store.async.maintenance.get(uuid);
      if (!w) throw notFound('maintenance', 'Maintenance window');
      return w;
    },
    /** @throws AppError 400 naming the field */
    async create(body: MaintenanceBodyInput): Promise<MaintenanceWindow> {
      const { window, queued } = await store.async.tx(createWindow, { ...common(), uuid: newId(ID_PREFIX.maintenance), body });
      wake(queued);
      bus.emit('maintenance.changed', { window });
      return window;
    },
    /**
     * Partial update: the fields given are merged into the stored window and the result is checked
     * as a whole; nothing is stored when it breaks a rule (CONTRACT.md "Errors and validation").
     * @throws AppError 404 / 400
     */
    async update(uuid: string, body: Partial<MaintenanceBodyInput>): Promise<MaintenanceWindow> {
      const { window, queued } = await store.async.tx(updateWindow, { ...common(), uuid, body });
      wake(queued);
      bus.emit('maintenance.changed', { window });
      return window;
    },
    /** @throws AppError 404 */
    async delete(uuid: string): Promise<void> {
      const window = await store.async.tx(deleteWindow, { uuid });
      bus.emit('maintenance.deleted', { window });
    },
    /**
     * Tells the subscribers of a `scheduled` window's pages about it (MaintenanceGate calls this
     * `notificationMinutes` before the start, or late after a restart); once per window.
     */
    async notifyScheduled(uuid: string): Promise<void> {
      wake(await store.async.tx(notifyScheduledWindow, { ...common(), uuid }));
    },
  };
}

/** `o` without the keys whose value is undefined (a body's left-out fields). */
export function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The maintenance service's interface. */
export type MaintenanceService = ReturnType<typeof maintenanceService>;
