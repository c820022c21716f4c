import type { Clock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import type { Monitor } from '../domain/monitor.ts';
import type { AuditActor } from '../domain/audit.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import type { Config } from '../config/schema.ts';
import type { EventBus } from './events.ts';
import { deleteMonitor, updateMonitor } from './monitors.ts';

/** Most monitors one bulk action takes (a page holds at most 200; the API may send more). */
export const MAX_BULK = 1_000;

/** A bulk change of monitors (the overview's bulk bar, issue 33 point 5). `policy: null` detaches. */
export type BulkChange = { action: 'pause' } | { action: 'resume' } | { action: 'delete' } | { action: 'policy'; policy: string | null };

type Rules = Parameters<typeof updateMonitor.run>[1]['config'];

/**
 * Applies one change to every monitor of `uuids` in ONE transaction, each through the same body as a
 * single edit (`monitors.update` / `monitors.delete`: same rules, same audit entry per monitor, same
 * certificate-notice handling); all or nothing (an unknown policy fails the whole action). Uuids of
 * monitors gone meanwhile are skipped. @returns the updated monitors, the deleted ones and outbox rows queued
 */
const bulkMonitors = procedure('monitors.bulk', (tx: Store, a: { uuids: string[]; change: BulkChange; config: Rules; now: number; actor: AuditActor }) => {
  const updated: Monitor[] = [];
  const deleted: Array<{ id: number; uuid: string }> = [];
  let queued = 0;
  const c = a.change;
  for (const uuid of a.uuids) {
    if (!tx.monitors.get(uuid)) continue;
    if (c.action === 'delete') {
      const r = deleteMonitor.run(tx, { uuid, config: a.config, now: a.now, actor: a.actor });
      deleted.push({ id: r.monitor.id, uuid });
      queued += r.queued;
      continue;
    }
    const body = c.action === 'policy' ? { escalation_policy: c.policy ?? 'none' } : { paused: c.action === 'pause' };
    const r = updateMonitor.run(tx, { uuid, body, config: a.config, now: a.now, actor: a.actor });
    updated.push(r.monitor);
    queued += r.queued;
  }
  return { updated, deleted, queued };
});

/**
 * Bulk actions on monitors (issue 33 point 5): pause, resume, delete, attach (or detach) an escalation
 * policy. One transaction per action; the events of each monitor (`monitor.updated`, `monitor.deleted`)
 * go out after the commit, as for single edits (the scheduler and the live console follow them).
 */
export function monitorsBulkService(deps: { store: Store; clock: Clock; bus: EventBus; config: Pick<Config, 'probe' | 'escalation_policies' | 'channels' | 'public_url'> }) {
  const { store, clock, bus, config } = deps;
  return {
    /**
     * @param uuids monitor uuids (duplicates ignored; unknown ones skipped)
     * @returns how many monitors were changed (or deleted)
     * @throws AppError 400 `validation.invalid` (more than {@link MAX_BULK}; an unknown escalation policy: field `escalation_policy`)
     */
    async apply(uuids: string[], change: BulkChange, actor: AuditActor): Promise<number> {
      const list = [...new Set(uuids)];
      if (list.length > MAX_BULK) throw new AppError(400, 'validation.invalid', `uuids: at most ${MAX_BULK} monitors at once`);
      if (list.length === 0) return 0;
      const rules = { probe: config.probe, escalation_policies: config.escalation_policies, channels: config.channels, public_url: config.public_url };
      const r = await store.async.tx(bulkMonitors, { uuids: list, change, config: rules, now: clock.now(), actor });
      for (const monitor of r.updated) bus.emit('monitor.updated', { monitor });
      for (const d of r.deleted) bus.emit('monitor.deleted', { monitorId: d.id, uuid: d.uuid });
      if (r.queued > 0) bus.emit('notices.queued', { count: r.queued });
      return r.updated.length + r.deleted.length;
    },
  };
}

/** The bulk service's interface. */
export type MonitorsBulkService = ReturnType<typeof monitorsBulkService>;
