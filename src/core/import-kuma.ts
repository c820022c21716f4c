import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { z } from 'zod';
import { AppError, invalid } from '../lib/errors.ts';
import { HealthcheckBody, pingUrl, resolveHealthcheckSettings, type Healthcheck, type HealthcheckBodyInput } from '../domain/healthcheck.ts';
import { MonitorBody, type Monitor, type MonitorBodyInput } from '../domain/monitor.ts';
import type { MaintenanceBodyInput, MaintenanceWindow } from '../domain/maintenance.ts';
import { currentCapabilities, mapMaintenanceTimes, mapMonitor, type PharosCapabilities } from '../domain/kuma/map.ts';
import { kumaPolicy, mapNotification } from '../domain/kuma/notifications.ts';
import type { KumaData } from '../domain/kuma/types.ts';
import type { Store } from '../store/index.ts';
import type { EscalationService } from './escalation.ts';
import { systemActor } from './audit-log.ts';
import { createHealthcheck } from './healthcheck-tx.ts';
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
const KUMA_IMPORT = systemActor('kuma-import', 'pharos import kuma');

/** The {@link KumaWriters} of a configuration. */
export function kumaWriters(config: Pick<Config, 'probe' | 'escalation_policies' | 'channels' | 'public_url'>): KumaWriters {
  const knownPolicy = (uuid: string) => config.escalation_policies.some((p) => p.uuid === uuid);
  return {
    monitor: (tx, body, now) => createMonitorIn(tx, config, body, now, KUMA_IMPORT),
    healthcheck: (tx, body, now) => createHealthcheck.run(tx, { settings: resolveHealthcheckSettings(body, null, knownPolicy), now, actor: KUMA_IMPORT }),
    maintenance: (tx, body, now) => createWindowIn(tx, body, config.public_url, now),
  };
}

/** One line of the import report. */
export interface KumaImportItem {
  kind: 'monitor' | 'healthcheck' | 'statuspage' | 'maintenance' | 'notification';
  kumaId: number;
  name: string;
  /** `created` now, `unchanged` (imported by an earlier run), `skipped` (not mapped: see `reason`). */
  result: 'created' | 'unchanged' | 'skipped';
  uuid?: string;
  reason?: string;
  /** What changed on the way (rounded interval, dropped header, …). */
  notes: string[];
  /** For a push monitor turned healthcheck: its new ping URL. */
  pingUrl?: string;
}

/** What `pharos import kuma` did, and the channels/policies for `config.kuma.yaml`. */
export interface KumaImportReport {
  source: KumaData['source'];
  items: KumaImportItem[];
  /** The `channels` and `escalation_policies` to merge into config.yaml by hand. */
  config: { channels: Record<string, unknown>[]; escalation_policies: ReturnType<typeof kumaPolicy>[] };
}

/** A valid status-page subdomain from a Kuma slug. */
const subdomainOf = (slug: string) => slug.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 63).replace(/-+$/, '') || 'status';

/**
 * Imports Kuma data in **one transaction**: monitors (and push monitors as healthchecks), status
 * pages with their groups as sections, fixed-time maintenance windows. Idempotent by Kuma ids: a
 * Kuma object imported before (table `kuma_imports`) is left as it is, so a second run with the
 * same input changes nothing. What cannot be mapped is reported per object with the reason, and
 * so is an object the core refuses (its 400 message). Notifications become channel entries and
 * one escalation policy per set of notifications a monitor uses; a monitor gets that policy only
 * when config.yaml already declares it (after `config.kuma.yaml` was merged: run the import again,
 * or set the policy per monitor).
 *
 * Meant for the CLI, with Pharos stopped: the core's change events have no listeners there.
 */
export function importKuma(
  deps: { store: Store; clock: Clock; publicUrl: string; writers: KumaWriters; statuspages: Pick<StatuspagesService, 'createWithoutPassword'>; escalation: Pick<EscalationService, 'policyOf'> },
  data: KumaData,
  options: { withSecrets: boolean; capabilities?: PharosCapabilities },
): KumaImportReport {
  const { store, clock } = deps;
  const caps = options.capabilities ?? currentCapabilities();
  const items: KumaImportItem[] = [];
  const channelOf = new Map<number, string>();
  const channels: Record<string, unknown>[] = [];
  for (const n of data.notifications) {
    const m = mapNotification(n, options.withSecrets);
    if (m.kind === 'skipped') {
      items.push({ kind: 'notification', kumaId: n.id, name: n.name, result: 'skipped', reason: m.reason, notes: [] });
      continue;
    }
    channelOf.set(n.id, m.entry.name as string);
    channels.push(m.entry);
    items.push({ kind: 'notification', kumaId: n.id, name: n.name, result: 'created', notes: [`channel ${String(m.entry.name)} in config.kuma.yaml`, ...m.notes] });
  }
  const policies = new Map<string, ReturnType<typeof kumaPolicy>>();

  const run = (tx: Store) => {
    const now = clock.now();
    for (const m of data.monitors) {
      const done = tx.kumaImports.uuidOf('monitor', m.id);
      if (done) {
        items.push({ kind: m.type === 'push' ? 'healthcheck' : 'monitor', kumaId: m.id, name: m.name, result: 'unchanged', uuid: done, notes: [] });
        continue;
      }
      const ids = m.notificationIds.filter((id) => channelOf.has(id));
      const notes: string[] = [];
      let policyUuid: string | null = null;
      if (ids.length > 0) {
        const policy = kumaPolicy(ids, ids.map((id) => channelOf.get(id)!));
        policies.set(policy.uuid, policy);
        if (deps.escalation.policyOf(policy.uuid)) policyUuid = policy.uuid;
        else notes.push(`notifications → policy ${policy.uuid} in config.kuma.yaml (not yet in config.yaml: the monitor has no policy)`);
      }
      const mapped = mapMonitor(m, caps, policyUuid);
      const kind = mapped.kind === 'healthcheck' ? 'healthcheck' : 'monitor';
      if (mapped.kind === 'skipped') {
        items.push({ kind, kumaId: m.id, name: m.name, result: 'skipped', reason: mapped.reason, notes });
        continue;
      }
      try {
        if (mapped.kind === 'healthcheck') {
          const hc = deps.writers.healthcheck(tx, parsed(HealthcheckBody, mapped.body), now);
          tx.kumaImports.remember('monitor', m.id, hc.uuid, now);
          items.push({ kind, kumaId: m.id, name: m.name, result: 'created', uuid: hc.uuid, notes: [...mapped.notes, ...notes], pingUrl: pingUrl(deps.publicUrl, hc.uuid) });
        } else {
          const mon = deps.writers.monitor(tx, parsed(MonitorBody, mapped.body), now);
          tx.kumaImports.remember('monitor', m.id, mon.uuid, now);
          items.push({ kind, kumaId: m.id, name: m.name, result: 'created', uuid: mon.uuid, notes: [...mapped.notes, ...notes] });
        }
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        items.push({ kind, kumaId: m.id, name: m.name, result: 'skipped', reason: `refused by Pharos: ${e.message}`, notes });
      }
    }

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
        const page = deps.statuspages.createWithoutPassword({ name: p.title, subdomain: subdomainOf(p.slug), description: p.description ?? null, sections }, KUMA_IMPORT);
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
      const times = mapMaintenanceTimes(w);
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
        const win = deps.writers.maintenance(tx, { name: w.title, start_date: new Date(times.startAt).toISOString(), end_date: new Date(times.endAt).toISOString(), monitors, statuspages }, now);
        tx.kumaImports.remember('maintenance', w.id, win.uuid, now);
        items.push({ kind: 'maintenance', kumaId: w.id, name: w.title, result: 'created', uuid: win.uuid, notes });
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        items.push({ kind: 'maintenance', kumaId: w.id, name: w.title, result: 'skipped', reason: `refused by Pharos: ${e.message}`, notes });
      }
    }
  };
  store.tx(run);
  return { source: data.source, items, config: { channels, escalation_policies: [...policies.values()] } };
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
