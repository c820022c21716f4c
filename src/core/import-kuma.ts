import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { z } from 'zod';
import { AppError, invalid } from '../lib/errors.ts';
import { HealthcheckBody, pingUrl, resolveHealthcheckSettings, type Healthcheck, type HealthcheckBodyInput } from '../domain/healthcheck.ts';
import { MonitorBody, type Monitor, type MonitorBodyInput } from '../domain/monitor.ts';
import type { MaintenanceBodyInput, MaintenanceWindow } from '../domain/maintenance.ts';
import { currentCapabilities, mapMaintenanceTimes, mapMonitor, type PharosCapabilities } from '../domain/kuma/map.ts';
import { mapKumaRecurring } from '../domain/kuma/maintenance.ts';
import type { KumaData } from '../domain/kuma/types.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { TagName } from '../domain/tags.ts';
import type { Store } from '../store/index.ts';
import { systemActor } from './audit-log.ts';
import { createHealthcheck } from './healthcheck-tx.ts';
import { kumaAlerting, prepareNotifications, type KumaImportItem } from './import-kuma-alerting.ts';
import { createWindowIn } from './maintenance.ts';
import { createMonitorIn } from './monitors.ts';
import type { StatuspagesService } from './statuspages.ts';

/**
 * How the import creates what it maps, inside its one transaction (`tx`): the same rules and writes
 * as the core's create use cases (the procedures' bodies), without their events (the CLI has none).
 */
export interface KumaWriters {
  monitor(tx: Store, body: MonitorBodyInput, now: number): Monitor;
  healthcheck(tx: Store, body: HealthcheckBodyInput, now: number): Healthcheck;
  maintenance(tx: Store, body: MaintenanceBodyInput, now: number): MaintenanceWindow;
}

/** Who the audit log names for what the import creates. */
export const KUMA_IMPORT = systemActor('kuma-import', 'pharos import kuma');

/** The {@link KumaWriters} of a configuration. */
export function kumaWriters(config: Pick<Config, 'probe' | 'escalation_policies' | 'channels' | 'public_url'>): KumaWriters {
  const knownPolicy = (uuid: string) => config.escalation_policies.some((p) => p.uuid === uuid);
  return {
    monitor: (tx, body, now) => createMonitorIn(tx, config, body, now, KUMA_IMPORT),
    healthcheck: (tx, body, now) => createHealthcheck.run(tx, { settings: resolveHealthcheckSettings(body, null, knownPolicy), now, actor: KUMA_IMPORT }),
    maintenance: (tx, body, now) => createWindowIn(tx, body, config.public_url, now),
  };
}

/** One line of the import report (core/import-kuma-alerting.ts). */
export type { KumaImportItem } from './import-kuma-alerting.ts';

/** What `pharos import kuma` did: one item per Kuma object (and per policy), in report order. */
export interface KumaImportReport {
  source: KumaData['source'];
  items: KumaImportItem[];
}

/** A valid status-page subdomain from a Kuma slug. */
const subdomainOf = (slug: string) => slug.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 63).replace(/-+$/, '') || 'status';

/**
 * Imports Kuma data in **one transaction** (issue 18; issue 32 point 6): notifications as
 * integrations (secrets sealed with `seal` before the transaction), one escalation policy per set of
 * notifications a monitor sends to (one step, at once, to all of them), monitors (push monitors as
 * healthchecks) linked to their policy, status pages with their groups as sections, fixed-time
 * maintenance windows. Idempotent by Kuma ids (table `kuma_imports`): a Kuma object imported before
 * is left as it is, and what an earlier run created is reused, so a second run with the same input
 * changes nothing — except that an earlier-imported monitor without its policy gets it (once). What
 * cannot be mapped is reported per object with the reason, and so is an object the core refuses (its
 * 400 message). Every creation and link has its audit entry (actor `kuma-import`) in the same
 * transaction.
 *
 * Meant for the CLI, with Pharos stopped: the core's change events have no listeners there.
 * @param deps.seal seals one secret's JSON text (lib/secret-box.ts `SecretBox.seal`)
 */
export function importKuma(
  deps: { store: Store; clock: Clock; publicUrl: string; writers: KumaWriters; statuspages: Pick<StatuspagesService, 'createWithoutPassword'>; seal: (plaintext: string) => string },
  data: KumaData,
  options: { capabilities?: PharosCapabilities } = {},
): KumaImportReport {
  const { store, clock } = deps;
  const caps = options.capabilities ?? currentCapabilities();
  const prepared = prepareNotifications(data.notifications, deps.seal);
  const items: KumaImportItem[] = [];
  const policyItems: KumaImportItem[] = [];

  const run = (tx: Store) => {
    const now = clock.now();
    const alerting = kumaAlerting(tx, { actor: KUMA_IMPORT, now }, items, policyItems);
    alerting.integrations(prepared);
    const monitorItems: KumaImportItem[] = [];
    // Kuma's tag colours (issue 33 point 5): a tag not stored yet is made with its Kuma colour first.
    for (const t of data.monitors.flatMap((m) => m.tags)) {
      const color = /^#[0-9a-fA-F]{6}$/.test(t.color) ? t.color.toLowerCase() : null;
      if (color && TagName.safeParse(t.name).success && !tx.tags.byName(t.name.trim())) tx.tags.insert(newId(ID_PREFIX.tag), t.name.trim(), color, now);
    }
    // Kuma's group monitors become groups: a child's group is its parent's name.
    const groupOf = new Map(data.monitors.filter((m) => m.type === 'group').map((m) => [m.id, m.name.trim().slice(0, 100)]));
    for (const m of data.monitors) {
      const kind = m.type === 'push' ? 'healthcheck' : 'monitor';
      const done = tx.kumaImports.uuidOf('monitor', m.id);
      if (done) {
        const l = alerting.link(kind, done, m.id, m.notificationIds);
        monitorItems.push({ kind, kumaId: m.id, name: m.name, result: l.linked ? 'linked' : 'unchanged', uuid: done, notes: l.linked ? l.notes : [] });
        continue;
      }
      const mapped = mapMonitor(m, caps, null);
      const group = m.parentId === null ? undefined : groupOf.get(m.parentId);
      if (mapped.kind === 'monitor' && group) (mapped.body as Record<string, unknown>).group = group;
      // A description comes over where Pharos has the field (issue 36), else the report names it.
      if (mapped.kind !== 'skipped' && m.description?.trim()) {
        if (mapped.kind === 'monitor' && caps.monitorFields.has('description')) (mapped.body as Record<string, unknown>).description = m.description.trim();
        else mapped.notes.push(`description not carried (Pharos ${kind}s have no description): "${m.description.trim().slice(0, 200)}"`);
      }
      if (mapped.kind === 'skipped') {
        monitorItems.push({ kind, kumaId: m.id, name: m.name, result: 'skipped', reason: mapped.reason, notes: [] });
        continue;
      }
      try {
        const created =
          mapped.kind === 'healthcheck'
            ? { uuid: deps.writers.healthcheck(tx, parsed(HealthcheckBody, mapped.body), now).uuid, healthcheck: true }
            : { uuid: deps.writers.monitor(tx, parsed(MonitorBody, mapped.body), now).uuid, healthcheck: false };
        tx.kumaImports.remember('monitor', m.id, created.uuid, now);
        // Kuma's push URL keeps working (issue 36): its token is an alias of the healthcheck's (http/kuma-push.ts).
        if (created.healthcheck && m.pushToken && /^[A-Za-z0-9_-]{1,100}$/.test(m.pushToken) && !tx.kumaImports.pushAlias(m.pushToken)) {
          tx.kumaImports.remember(`push-token:${m.pushToken}`, m.id, created.uuid, now);
          mapped.notes.splice(0, mapped.notes.length, ...mapped.notes.filter((n) => !n.startsWith('new ping URL')), `Kuma's push URL ${deps.publicUrl.replace(/\/+$/, '')}/api/push/${m.pushToken} keeps working`);
        }
        const l = alerting.link(kind, created.uuid, m.id, m.notificationIds);
        monitorItems.push({ kind, kumaId: m.id, name: m.name, result: 'created', uuid: created.uuid, notes: [...mapped.notes, ...l.notes], ...(created.healthcheck ? { pingUrl: pingUrl(deps.publicUrl, created.uuid) } : {}) });
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        monitorItems.push({ kind, kumaId: m.id, name: m.name, result: 'skipped', reason: `refused by Pharos: ${e.message}`, notes: [] });
      }
    }
    items.push(...policyItems, ...monitorItems);

    const pageUuidOf = new Map<number, string>();
    for (const p of data.statusPages) {
      const done = tx.kumaImports.uuidOf('statuspage', p.id);
      if (done) {
        pageUuidOf.set(p.id, done);
        items.push({ kind: 'statuspage', kumaId: p.id, name: p.title, result: 'unchanged', uuid: done, notes: [] });
        continue;
      }
      const notes: string[] = [];
      const sections = p.groups.map((g) => ({
        name: g.name || 'Services',
        services: g.monitorIds.flatMap((id) => {
          const uuid = tx.kumaImports.uuidOf('monitor', id);
          if (!uuid) notes.push(`group "${g.name}": monitor ${id} was not imported, left out`);
          return uuid ? [{ monitor_uuid: uuid }] : [];
        }),
      }));
      try {
        // Kuma's footer and theme (issue 36): `auto` is Pharos's `system`, light and dark stay.
        const theme = p.theme === 'light' || p.theme === 'dark' ? p.theme : 'system';
        const footer = p.footerText?.trim() ? { footer_text: p.footerText.trim().slice(0, 500) } : {};
        const page = deps.statuspages.createWithoutPassword({ name: p.title, subdomain: subdomainOf(p.slug), description: p.description ?? null, sections, theme, ...footer }, KUMA_IMPORT);
        if (page.subdomain !== subdomainOf(p.slug)) notes.push(`subdomain ${subdomainOf(p.slug)} is taken: ${page.subdomain}`);
        tx.kumaImports.remember('statuspage', p.id, page.uuid, now);
        pageUuidOf.set(p.id, page.uuid);
        items.push({ kind: 'statuspage', kumaId: p.id, name: p.title, result: 'created', uuid: page.uuid, notes });
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        items.push({ kind: 'statuspage', kumaId: p.id, name: p.title, result: 'skipped', reason: `refused by Pharos: ${e.message}`, notes });
      }
    }

    for (const w of data.maintenance) {
      const done = tx.kumaImports.uuidOf('maintenance', w.id);
      if (done) {
        items.push({ kind: 'maintenance', kumaId: w.id, name: w.title, result: 'unchanged', uuid: done, notes: [] });
        continue;
      }
      // One-off (and manual) windows map to start and end; recurring ones to a recurrence (domain/kuma/maintenance.ts).
      const recurring = w.strategy !== 'single' && w.strategy !== 'manual';
      const times = recurring ? mapKumaRecurring(w) : mapMaintenanceTimes(w);
      if (times.kind === 'skipped') {
        items.push({ kind: 'maintenance', kumaId: w.id, name: w.title, result: 'skipped', reason: times.reason, notes: [] });
        continue;
      }
      const notes = [...times.notes];
      const monitors = w.monitorIds.flatMap((id) => {
        const uuid = tx.kumaImports.uuidOf('monitor', id);
        const isMonitor = uuid !== undefined && tx.monitors.get(uuid) !== undefined;
        if (!isMonitor) notes.push(`Kuma monitor ${id} is not a Pharos monitor (a healthcheck, or not imported): left out`);
        return isMonitor ? [uuid] : [];
      });
      const statuspages = w.statusPageIds.flatMap((id) => (pageUuidOf.has(id) ? [pageUuidOf.get(id)!] : []));
      try {
        const when =
          times.kind === 'recurring'
            ? { recurrence: times.recurrence, timezone: times.timezone }
            : { start_date: new Date(times.startAt).toISOString(), end_date: new Date(times.endAt).toISOString() };
        const win = deps.writers.maintenance(tx, { name: w.title, ...when, monitors, statuspages }, now);
        tx.kumaImports.remember('maintenance', w.id, win.uuid, now);
        items.push({ kind: 'maintenance', kumaId: w.id, name: w.title, result: 'created', uuid: win.uuid, notes });
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        items.push({ kind: 'maintenance', kumaId: w.id, name: w.title, result: 'skipped', reason: `refused by Pharos: ${e.message}`, notes });
      }
    }
  };
  store.tx(run);
  return { source: data.source, items };
}

/**
 * A mapped body checked by the API's own schema, as a request body would be: the core's create
 * takes parsed input, so nothing from a Kuma database reaches the store unchecked.
 * @throws AppError 400 naming the first field that breaks a rule
 */
function parsed<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  throw invalid(issue.path.join('.') || 'body', issue.message);
}
