import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { invalid, notFound } from '../lib/errors.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { monitorDefaults, resolveMonitorSettings, type Monitor, type MonitorBodyInput, type MonitorSettings } from '../domain/monitor.ts';
import { keepSecrets } from '../protocols/secrets.ts';
import { resolvePolicyRef } from '../domain/escalation.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import { monitorAuditDiff } from '../domain/audit-views.ts';
import type { AuditActor } from '../domain/audit.ts';
import { recordAudit } from './audit-log.ts';
import { certExpiryDeleted, certExpirySettingsChanged, type CertExpiryConfig } from './cert-expiry.ts';
import type { EventBus } from './events.ts';

/** What the monitor procedures need of config.yaml (plain data: it crosses to the store host thread). */
type MonitorRules = Pick<Config, 'probe' | 'escalation_policies' | 'channels' | 'public_url'>;

/** The settings of a new monitor from a validated body. @throws AppError 400 (cross-field rule, `***` with nothing to keep) */
export function newMonitorSettings(config: MonitorRules, body: MonitorBodyInput): MonitorSettings {
  // The policy's existence is checked against the store in the procedure that inserts (createMonitor).
  return resolveMonitorSettings(keepSecrets(body, null), monitorDefaults(config.probe.region), () => true);
}

/** True when escalation policy `uuid` is stored (read in the caller's transaction). */
export const storedPolicy = (tx: Store) => (uuid: string): boolean => tx.escalationPolicies.get(uuid) !== undefined;

/** The stored monitor `uuid` read through `store`. @throws AppError 404 `monitors.not_found` */
function mustGet(store: Store, uuid: string): Monitor {
  const m = store.monitors.get(uuid);
  if (!m) throw notFound('monitors', 'Monitor');
  return m;
}

/**
 * Checks `settings.dependsOn` (issue 36) in the caller's transaction: every uuid names a stored monitor
 * other than `self`, and the new edges make no cycle (a monitor may not depend, through others, on itself).
 * A `group` monitor's `group_members` must name stored monitors other than itself.
 * @throws AppError 400 `depends_on: …` naming the unknown uuid or the monitor that closes the cycle; `group_members: …`
 */
function checkDependencies(tx: Store, self: Monitor | null, settings: MonitorSettings): void {
  if (settings.protocol === 'group') {
    for (const u of (settings.settings.group_members as string[] | undefined) ?? []) {
      if (u === self?.uuid) throw invalid('group_members', 'a group cannot be its own member');
      if (!tx.monitors.get(u)) throw invalid('group_members', `unknown monitor "${u}" (use a uuid from GET /v1/monitors)`);
    }
  }
  const wanted = settings.dependsOn;
  if (!wanted || wanted.length === 0) return;
  const ids: number[] = [];
  for (const u of wanted) {
    const m = tx.monitors.get(u);
    if (!m) throw invalid('depends_on', `unknown monitor "${u}" (use a uuid from GET /v1/monitors)`);
    if (self && m.id === self.id) throw invalid('depends_on', 'a monitor cannot depend on itself');
    ids.push(m.id);
  }
  if (!self) return; // a new monitor has no dependents yet: no cycle possible
  const parents = new Map<number, number[]>();
  for (const [child, parent] of tx.monitors.dependencyEdges()) if (child !== self.id) parents.set(child, [...(parents.get(child) ?? []), parent]);
  for (const start of ids) {
    const seen = new Set<number>();
    const stack = [start];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (id === self.id) throw invalid('depends_on', `cycle: "${tx.monitors.getById(start)?.uuid ?? start}" depends, directly or through others, on this monitor`);
      if (seen.has(id)) continue;
      seen.add(id);
      stack.push(...(parents.get(id) ?? []));
    }
  }
}

/** Inserts a monitor of resolved settings and its audit entry (one transaction). */
const createMonitor = procedure('monitors.create', (tx: Store, a: { uuid: string; settings: MonitorSettings; now: number; actor: AuditActor }): Monitor => {
  // Policies are stored objects (issue 32): the reference is checked in this transaction.
  checkDependencies(tx, null, a.settings);
  const m = tx.monitors.insert(a.uuid, { ...a.settings, escalationPolicyUuid: resolvePolicyRef(a.settings.escalationPolicyUuid, null, storedPolicy(tx)) }, a.now);
  recordAudit(tx, a, { action: 'create', resourceType: 'monitor', resourceUuid: m.uuid, resourceName: m.name, diff: monitorAuditDiff(null, m) });
  return m;
});

/**
 * Reads, merges, checks and stores a partial update in one transaction; resolves an open certificate
 * notice when expiry alerts went off. @returns the monitor and how many outbox rows were queued
 * @throws AppError 404 / 400
 */
export const updateMonitor = procedure('monitors.update', (tx: Store, a: { uuid: string; body: Partial<MonitorBodyInput>; config: MonitorRules; now: number; actor: AuditActor }) => {
  const current = mustGet(tx, a.uuid);
  // `***` sent back (a client writing what it read, the console's form) keeps the stored secret.
  const given = keepSecrets(a.body, current);
  const settings = resolveMonitorSettings({ ...given, name: given.name ?? current.name, url: given.url ?? current.url }, current, storedPolicy(tx));
  checkDependencies(tx, current, settings);
  const monitor = tx.monitors.update(a.uuid, settings, a.now)!;
  recordAudit(tx, a, { action: 'update', resourceType: 'monitor', resourceUuid: monitor.uuid, resourceName: monitor.name, diff: monitorAuditDiff(current, monitor) });
  const queued = certExpirySettingsChanged(tx, a.config, monitor, a.now);
  return { monitor, queued };
});

/** Deletes a monitor (history, outages) after queueing the resolve of its certificate notice. @throws AppError 404 */
export const deleteMonitor = procedure('monitors.delete', (tx: Store, a: { uuid: string; config: CertExpiryConfig; now: number; actor: AuditActor }) => {
  const monitor = mustGet(tx, a.uuid);
  recordAudit(tx, a, { action: 'delete', resourceType: 'monitor', resourceUuid: monitor.uuid, resourceName: monitor.name, diff: monitorAuditDiff(monitor, null) });
  const queued = certExpiryDeleted(tx, a.config, monitor, a.now);
  tx.monitors.delete(a.uuid);
  return { monitor, queued };
});

/**
 * Creates a monitor inside a transaction the caller holds (`pharos import kuma`: one transaction for
 * the whole import); no event (the CLI has no listeners); the audit entry names `actor`. @throws AppError 400 as {@link newMonitorSettings}
 */
export function createMonitorIn(tx: Store, config: MonitorRules, body: MonitorBodyInput, now: number, actor: AuditActor): Monitor {
  return createMonitor.run(tx, { uuid: newId(ID_PREFIX.monitor), settings: newMonitorSettings(config, body), now, actor });
}

/**
 * Monitor use cases (API.md §4.1). Every write is one transaction (a procedure, run on the store
 * host thread on PostgreSQL), and events go out after the commit.
 */
export function monitorsService(deps: { store: Store; clock: Clock; bus: EventBus; config: MonitorRules }) {
  const { store, clock, bus } = deps;
  // Plain data for the procedures: the frozen config's parts they read.
  const rules = (): MonitorRules => ({ probe: deps.config.probe, escalation_policies: deps.config.escalation_policies, channels: deps.config.channels, public_url: deps.config.public_url });

  return {
    list: (): Promise<Monitor[]> => store.async.monitors.list(),
    /** @throws AppError 404 `monitors.not_found` */
    async get(uuid: string): Promise<Monitor> {
      const m = await store.async.monitors.get(uuid);
      if (!m) throw notFound('monitors', 'Monitor');
      return m;
    },
    /**
     * Creates a monitor from a validated body; defaults per API.md §2.2, `status` starts `up`. Every
     * write here records `actor` in the audit log in its own transaction (core/audit-log.ts).
     * @throws AppError 400 for a broken cross-field rule, or a secret given as `***` (nothing to keep)
     */
    async create(body: MonitorBodyInput, actor: AuditActor): Promise<Monitor> {
      const settings = newMonitorSettings(deps.config, body);
      const monitor = await store.async.tx(createMonitor, { uuid: newId(ID_PREFIX.monitor), settings, now: clock.now(), actor });
      bus.emit('monitor.created', { monitor });
      return monitor;
    },
    /**
     * Partial update: the fields given are merged into the stored monitor, fields left out keep their
     * values, and the merged settings are checked as a whole; nothing is stored when they break a rule
     * (CONTRACT.md "Errors and validation"). A secret given as `***` keeps its stored value
     * (src/protocols/secrets.ts `keepSecrets`: same target only).
     * @throws AppError 404 / 400
     */
    async update(uuid: string, body: Partial<MonitorBodyInput>, actor: AuditActor): Promise<Monitor> {
      const { monitor, queued } = await store.async.tx(updateMonitor, { uuid, body, config: rules(), now: clock.now(), actor });
      bus.emit('monitor.updated', { monitor });
      if (queued > 0) bus.emit('notices.queued', { count: queued });
      return monitor;
    },
    /**
     * Deletes a monitor with its history and outages (CONTRACT.md "Monitors"); its open certificate
     * expiry notice is resolved at PagerDuty and Opsgenie (cert-expiry.ts).
     * @throws AppError 404
     */
    async delete(uuid: string, actor: AuditActor): Promise<void> {
      const { monitor, queued } = await store.async.tx(deleteMonitor, { uuid, config: rules(), now: clock.now(), actor });
      bus.emit('monitor.deleted', { monitorId: monitor.id, uuid });
      if (queued > 0) bus.emit('notices.queued', { count: queued });
    },
  };
}

/** The monitors service's interface. */
export type MonitorsService = ReturnType<typeof monitorsService>;
