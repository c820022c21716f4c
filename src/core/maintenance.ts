import type { Clock } from '../lib/clock.ts';
import { AppError, notFound } from '../lib/errors.ts';
import { auditDiff, type AuditActor } from '../domain/audit.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { maintenanceStatus, resolveMaintenance, type MaintenanceBodyInput, type MaintenanceSettings, type MaintenanceWindow } from '../domain/maintenance.ts';
import type { Recurrence } from '../domain/maintenance-recurrence.ts';
import { recordAudit } from './audit-log.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import type { EventBus } from './events.ts';
import { queueMaintenanceNotices } from './notice-queue.ts';

/** What every window write's procedure gets besides its own arguments; `actor` (console and API writes) goes to the audit log. */
interface Common {
  now: number;
  publicUrl: string;
  actor?: AuditActor | undefined;
}

/** @throws AppError 404 `maintenance.not_found` */
function mustGet(store: Store, uuid: string, now: number): MaintenanceWindow {
  const w = store.maintenance.get(uuid, now);
  if (!w) throw notFound('maintenance', 'Maintenance window');
  return w;
}

/** A body's settings, its monitors and pages checked against the store. @throws AppError 400 naming the field */
function resolved(tx: Store, body: MaintenanceBodyInput, now: number): MaintenanceSettings {
  return resolveMaintenance(
    body,
    (uuid) => tx.monitors.get(uuid) !== undefined,
    (uuid) => tx.statuspages.get(uuid) !== undefined,
    now,
  );
}

/** The fields of a window a person sets, as the audit log compares them (times ISO). */
function auditView(w: MaintenanceWindow): Record<string, unknown> {
  const iso = (t: number) => new Date(t).toISOString();
  return {
    name: w.name,
    ...(w.recurrence ? { recurrence: recurrenceBody(w.recurrence) } : { start_date: iso(w.startAt), end_date: iso(w.endAt) }),
    timezone: w.timezone,
    monitors: [...w.monitors].sort(),
    statuspages: w.statuspages,
    notificationOption: w.notificationOption,
    ended_now: w.cuts.map(iso),
  };
}

/** Records a window write in the audit log when a person or token made it. */
function audit(tx: Store, a: Common, action: 'create' | 'update' | 'delete', before: MaintenanceWindow | null, after: MaintenanceWindow): void {
  if (!a.actor) return;
  recordAudit(tx, { actor: a.actor, now: a.now }, { action, resourceType: 'maintenance_window', resourceUuid: after.uuid, resourceName: after.name, diff: auditDiff(before && auditView(before), action === 'delete' ? null : auditView(after)) });
}

/** A stored recurrence as a body's `recurrence` (the API's shape; times ISO). */
export function recurrenceBody(r: Recurrence): NonNullable<MaintenanceBodyInput['recurrence']> {
  return {
    strategy: r.strategy,
    ...(r.startTime === null ? {} : { start_time: r.startTime }),
    duration_minutes: r.durationMinutes,
    days_of_week: r.daysOfWeek,
    days_of_month: r.daysOfMonth,
    ...(r.cron === null ? {} : { cron: r.cron }),
    valid_from: new Date(r.validFrom).toISOString(),
    valid_until: r.validUntil === null ? null : new Date(r.validUntil).toISOString(),
  };
}

/** `immediate` windows tell the pages' subscribers when saved (once); `scheduled` ones from MaintenanceGate's timer. @returns messages queued */
function notifyNow(tx: Store, w: MaintenanceWindow, a: Common): number {
  return w.notificationOption === 'immediate' && w.notifiedAt === null && w.endAt > a.now ? queueMaintenanceNotices(tx, w, a.publicUrl, a.now) : 0;
}

/** Inserts a window and queues its immediate notices. */
const createWindow = procedure('maintenance.create', (tx: Store, a: Common & { uuid: string; body: MaintenanceBodyInput }) => {
  const window = tx.maintenance.insert(a.uuid, resolved(tx, a.body, a.now), a.now);
  audit(tx, a, 'create', null, window);
  return { window, queued: notifyNow(tx, window, a) };
});

/** Merges a partial body into the stored window, checks it whole, stores it and queues its immediate notices. */
const updateWindow = procedure('maintenance.update', (tx: Store, a: Common & { uuid: string; body: Partial<MaintenanceBodyInput> }) => {
  const cur = mustGet(tx, a.uuid, a.now);
  const merged: MaintenanceBodyInput = {
    name: cur.name,
    start_date: new Date(cur.startAt).toISOString(),
    end_date: new Date(cur.endAt).toISOString(),
    recurrence: cur.recurrence && recurrenceBody(cur.recurrence),
    timezone: cur.timezone,
    monitors: cur.monitors,
    statuspages: cur.statuspages,
    title: cur.title,
    updates: cur.updates.map((u) => ({ text: u.text, date: new Date(u.date).toISOString() })),
    notificationOption: cur.notificationOption,
    notificationMinutes: cur.notificationMinutes,
    ...definedOnly(a.body),
  };
  const window = tx.maintenance.update(a.uuid, resolved(tx, merged, a.now), a.now);
  audit(tx, a, 'update', cur, window);
  return { window, queued: notifyNow(tx, window, a) };
});

const deleteWindow = procedure('maintenance.delete', (tx: Store, a: Common & { uuid: string }): MaintenanceWindow => {
  const found = mustGet(tx, a.uuid, a.now);
  tx.maintenance.delete(a.uuid);
  audit(tx, a, 'delete', found, found);
  return found;
});

/**
 * "End now": the occurrence ongoing at `now` ends at `now` (a one-off window's end becomes `now`);
 * later occurrences of a recurring window are kept.
 * @throws AppError 404, 409 `maintenance.not_ongoing` when no occurrence is ongoing at `now`
 */
const endWindowNow = procedure('maintenance.endNow', (tx: Store, a: Common & { uuid: string }): MaintenanceWindow => {
  const cur = mustGet(tx, a.uuid, a.now);
  if (maintenanceStatus(cur, a.now) !== 'ongoing') throw new AppError(409, 'maintenance.not_ongoing', 'The maintenance window is not ongoing: nothing to end');
  const window = tx.maintenance.cutAt(a.uuid, a.now);
  audit(tx, a, 'update', cur, window);
  return window;
});

/** A `scheduled` window's notices, once per window. @returns messages queued */
const notifyScheduledWindow = procedure('maintenance.notifyScheduled', (tx: Store, a: Common & { uuid: string }): number => {
  const w = tx.maintenance.get(a.uuid, a.now);
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
  const common = (actor?: AuditActor): Common => ({ now: clock.now(), publicUrl: deps.publicUrl, actor });
  const wake = (queued: number) => {
    if (queued > 0) bus.emit('notices.queued', { count: queued });
  };

  return {
    /** Every window as of now (recurring ones at their ongoing, next or last occurrence). */
    list: (): Promise<MaintenanceWindow[]> => store.async.maintenance.list(clock.now()),
    /** Per window uuid: who created it, as the audit log names them (the hosted service's `createdBy`); absent for windows older than the audit log. */
    createdBy: (uuids: string[]): Promise<Record<string, string>> => (uuids.length === 0 ? Promise.resolve({}) : store.async.auditLog.createdBy('maintenance_window', uuids)),
    /** @throws AppError 404 `maintenance.not_found` */
    async get(uuid: string): Promise<MaintenanceWindow> {
      const w = await store.async.maintenance.get(uuid, clock.now());
      if (!w) throw notFound('maintenance', 'Maintenance window');
      return w;
    },
    /** `actor`, when given, goes to the audit log. @throws AppError 400 naming the field */
    async create(body: MaintenanceBodyInput, actor?: AuditActor): Promise<MaintenanceWindow> {
      const { window, queued } = await store.async.tx(createWindow, { ...common(actor), uuid: newId(ID_PREFIX.maintenance), body });
      wake(queued);
      bus.emit('maintenance.changed', { window });
      return window;
    },
    /**
     * Partial update: the fields given are merged into the stored window and the result is checked
     * as a whole; nothing is stored when it breaks a rule (CONTRACT.md "Errors and validation").
     * @throws AppError 404 / 400
     */
    async update(uuid: string, body: Partial<MaintenanceBodyInput>, actor?: AuditActor): Promise<MaintenanceWindow> {
      const { window, queued } = await store.async.tx(updateWindow, { ...common(actor), uuid, body });
      wake(queued);
      bus.emit('maintenance.changed', { window });
      return window;
    },
    /** @throws AppError 404 */
    async delete(uuid: string, actor?: AuditActor): Promise<void> {
      const window = await store.async.tx(deleteWindow, { ...common(actor), uuid });
      bus.emit('maintenance.deleted', { window });
    },
    /**
     * Ends the ongoing occurrence now (issue 33 point 6); `maintenance.changed` has MaintenanceGate
     * let held alerts flow at once. @throws AppError 404, 409 `maintenance.not_ongoing`
     */
    async endNow(uuid: string, actor?: AuditActor): Promise<MaintenanceWindow> {
      const window = await store.async.tx(endWindowNow, { ...common(actor), uuid });
      bus.emit('maintenance.changed', { window });
      return window;
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
