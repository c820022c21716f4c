import type { Monitor, MonitorSettings, MonitorStatus, Protocol } from '../domain/monitor.ts';
import type { Region } from '../domain/regions.ts';
import type { Db } from './db.ts';
import { tagLinks } from './tags.ts';
import { dependencyLinks } from './dependencies.ts';
import type { MonitorTag } from '../domain/tags.ts';

interface MonitorRow {
  id: number;
  uuid: string;
  name: string;
  url: string;
  protocol: string;
  check_frequency_s: number;
  regions: string;
  status: string;
  paused: number;
  port: number | null;
  ssl_expiration_days: number | null;
  alerts_wait_min: number;
  escalation_policy_uuid: string | null;
  timeout_s: number;
  settings: string;
  degraded: number;
  public_badges: number;
  group_name: string | null;
  /** Since migration 33 (issue 36). */
  domain_expires_at?: number | null;
  created_at: number;
  updated_at: number;
}

const toMonitor = (r: MonitorRow, tags: MonitorTag[], dependsOn: string[] = []): Monitor => ({
  id: r.id,
  uuid: r.uuid,
  name: r.name,
  url: r.url,
  protocol: r.protocol as Protocol,
  checkFrequencySeconds: r.check_frequency_s,
  regions: JSON.parse(r.regions) as Region[],
  status: r.status as MonitorStatus,
  paused: r.paused === 1,
  port: r.port,
  sslExpirationDays: r.ssl_expiration_days,
  ...(r.domain_expires_at != null ? { domainExpiresAt: Number(r.domain_expires_at) } : {}),
  degraded: r.degraded === 1,
  alertsWaitMinutes: r.alerts_wait_min,
  escalationPolicyUuid: r.escalation_policy_uuid,
  timeoutSeconds: r.timeout_s,
  settings: JSON.parse(r.settings) as Monitor['settings'],
  publicBadges: r.public_badges === 1,
  tags,
  group: r.group_name,
  dependsOn,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const settingsParams = (s: MonitorSettings) => ({
  name: s.name,
  url: s.url,
  protocol: s.protocol,
  check_frequency_s: s.checkFrequencySeconds,
  regions: JSON.stringify(s.regions),
  paused: s.paused ? 1 : 0,
  port: s.port,
  alerts_wait_min: s.alertsWaitMinutes,
  escalation_policy_uuid: s.escalationPolicyUuid,
  timeout_s: s.timeoutSeconds,
  settings: JSON.stringify(s.settings),
  public_badges: s.publicBadges ? 1 : 0,
  group_name: s.group,
});

/** Monitor rows. All reads return domain {@link Monitor}s. */
export function monitorsStore(db: Db) {
  const all = db.prepare<[], MonitorRow>('SELECT * FROM monitors ORDER BY id');
  const byUuid = db.prepare<[string], MonitorRow>('SELECT * FROM monitors WHERE uuid = ?');
  const byId = db.prepare<[number], MonitorRow>('SELECT * FROM monitors WHERE id = ?');
  const insert = db.prepare(
    `INSERT INTO monitors(uuid, name, url, protocol, check_frequency_s, regions, status, paused,
       port, ssl_expiration_days, alerts_wait_min, escalation_policy_uuid, timeout_s, settings, public_badges, group_name, created_at, updated_at)
     VALUES (@uuid, @name, @url, @protocol, @check_frequency_s, @regions, 'up', @paused,
       @port, NULL, @alerts_wait_min, @escalation_policy_uuid, @timeout_s, @settings, @public_badges, @group_name, @now, @now)`,
  );
  const update = db.prepare(
    `UPDATE monitors SET name=@name, url=@url, protocol=@protocol,
       check_frequency_s=@check_frequency_s, regions=@regions, paused=@paused, port=@port,
       alerts_wait_min=@alerts_wait_min, escalation_policy_uuid=@escalation_policy_uuid,
       timeout_s=@timeout_s, settings=@settings, public_badges=@public_badges, group_name=@group_name, updated_at=@now
     WHERE uuid=@uuid`,
  );
  const del = db.prepare('DELETE FROM monitors WHERE uuid = ?');
  const setStatus = db.prepare('UPDATE monitors SET status = ? WHERE id = ?');
  const setSsl = db.prepare('UPDATE monitors SET ssl_expiration_days = ? WHERE id = ? AND ssl_expiration_days IS NOT ?');
  const setDegraded = db.prepare('UPDATE monitors SET degraded = ? WHERE id = ? AND degraded IS NOT ?');
  const setSslPg =
    db.dialect === 'postgres'
      ? db.prepare<[number[], (number | null)[]], { id: number; days: number | null }>(
          `UPDATE monitors m SET ssl_expiration_days = u.d FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[])) AS u(id, d)
           WHERE m.id = u.id AND m.ssl_expiration_days IS DISTINCT FROM u.d RETURNING m.id, m.ssl_expiration_days AS days`,
        )
      : undefined;
  // PostgreSQL: every monitor of a flush in one statement (one round trip through the driver's worker, not one per result).
  const setDegradedPg =
    db.dialect === 'postgres'
      ? db.prepare<[number[], number[]], { id: number; degraded: number }>(
          `UPDATE monitors m SET degraded = u.d FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[])) AS u(id, d)
           WHERE m.id = u.id AND m.degraded IS DISTINCT FROM u.d RETURNING m.id, m.degraded`,
        )
      : undefined;
  const getAlerted = db.prepare<[number], { tls_alerted_days: number | null }>('SELECT tls_alerted_days FROM monitors WHERE id = ?');
  const setAlerted = db.prepare('UPDATE monitors SET tls_alerted_days = ? WHERE id = ?');
  const getDomain = db.prepare<[number], { domain_expires_at: number | null; domain_alerted_days: number | null }>('SELECT domain_expires_at, domain_alerted_days FROM monitors WHERE id = ?');
  const setDomain = db.prepare('UPDATE monitors SET domain_expires_at = ?, domain_alerted_days = ? WHERE id = ?');

  // A monitor's tags (issue 33 point 5) live in monitor_tags: read with its row, replaced with its settings.
  const links = tagLinks(db);
  // Its dependencies (issue 36) live in monitor_dependencies: read with its row, replaced with its settings when given.
  const dependencies = dependencyLinks(db);
  const one = (r: MonitorRow): Monitor => toMonitor(r, links.of(r.id), dependencies.parents(r.id).map((p) => p.uuid));
  const setDependencies = (id: number, uuids: readonly string[] | undefined): void => {
    if (uuids) dependencies.set(id, uuids.map((u) => byUuid.get(u)?.id).filter((x): x is number => x !== undefined));
  };

  return {
    list(): Monitor[] {
      const tags = links.all();
      const deps = dependencies.all();
      return all.all().map((r) => toMonitor(r, tags.get(r.id) ?? [], deps.get(r.id) ?? []));
    },
    get(uuid: string): Monitor | undefined {
      const r = byUuid.get(uuid);
      return r && one(r);
    },
    getById(id: number): Monitor | undefined {
      const r = byId.get(id);
      return r && one(r);
    },
    /** Inserts a new monitor with status `up` (API.md §2.2); returns it as stored. */
    insert(uuid: string, s: MonitorSettings, now: number): Monitor {
      insert.run({ ...settingsParams(s), uuid, now });
      const r = byUuid.get(uuid)!;
      links.set(r.id, s.tags, now);
      setDependencies(r.id, s.dependsOn);
      return one(r);
    },
    /** Replaces the settings of a monitor; returns it as stored, or undefined when unknown. */
    update(uuid: string, s: MonitorSettings, now: number): Monitor | undefined {
      if (update.run({ ...settingsParams(s), uuid, now }).changes === 0) return undefined;
      const r = byUuid.get(uuid)!;
      links.set(r.id, s.tags, now);
      setDependencies(r.id, s.dependsOn);
      return one(r);
    },
    /** The monitors `monitorId` depends on (issue 36), with what the dependency rule reads of them. */
    dependencyParents: (monitorId: number) => dependencies.parents(monitorId),
    /** Every dependency edge [dependent id, parent id] (cycle checks). */
    dependencyEdges: () => dependencies.edges(),
    /** Deletes a monitor; its results, rollups, flips and outages go with it (ON DELETE CASCADE). */
    delete: (uuid: string): boolean => del.run(uuid).changes === 1,
    setStatus(id: number, status: MonitorStatus): void {
      setStatus.run(status, id);
    },
    /** Stores the latest days-to-expiry of the served certificate (no write when unchanged). @returns true when it changed */
    setSslExpiration(id: number, days: number | null): boolean {
      return setSsl.run(days, id, days).changes === 1;
    },
    /**
     * Stores whether the last check passed slower than its degraded threshold (no write when unchanged).
     * @returns true when the flag changed
     */
    setDegraded(id: number, degraded: boolean): boolean {
      const v = degraded ? 1 : 0;
      return setDegraded.run(v, id, v).changes > 0;
    },
    /**
     * {@link setSslExpiration} for many monitors at once (a flush's worth; PostgreSQL: one statement).
     * @returns the monitors whose stored days changed, with the new value
     */
    setSslExpirationMany(days: ReadonlyMap<number, number | null>): Map<number, number | null> {
      const changed = new Map<number, number | null>();
      if (setSslPg) {
        if (days.size === 0) return changed;
        const ids = [...days.keys()];
        for (const r of setSslPg.all(ids, ids.map((id) => days.get(id)!))) changed.set(r.id, r.days);
        return changed;
      }
      for (const [id, d] of days) if (setSsl.run(d, id, d).changes === 1) changed.set(id, d);
      return changed;
    },
    /**
     * {@link setDegraded} for many monitors at once (a flush's worth).
     * @returns the monitors whose flag changed, with the new flag
     */
    setDegradedMany(flags: ReadonlyMap<number, boolean>): Map<number, boolean> {
      const changed = new Map<number, boolean>();
      if (setDegradedPg) {
        if (flags.size === 0) return changed;
        const ids = [...flags.keys()];
        for (const r of setDegradedPg.all(ids, ids.map((id) => (flags.get(id) ? 1 : 0)))) changed.set(r.id, r.degraded === 1);
        return changed;
      }
      for (const [id, d] of flags) {
        const v = d ? 1 : 0;
        if (setDegraded.run(v, id, v).changes > 0) changed.set(id, d);
      }
      return changed;
    },
    /** The smallest certificate-expiry threshold (days) already alerted for this monitor's certificate, or null. */
    tlsAlertedDays: (id: number): number | null => getAlerted.get(id)?.tls_alerted_days ?? null,
    /** Records the threshold just alerted (null again once a renewed certificate is above every threshold). */
    setTlsAlertedDays(id: number, days: number | null): void {
      setAlerted.run(days, id);
    },
    /** The domain's expiration read over RDAP (epoch ms) and the smallest domain-expiry threshold alerted (issue 36); nulls when never read. */
    domainExpiry(id: number): { expiresAt: number | null; alertedDays: number | null } {
      const r = getDomain.get(id);
      return { expiresAt: r?.domain_expires_at == null ? null : Number(r.domain_expires_at), alertedDays: r?.domain_alerted_days ?? null };
    },
    /** Records the domain's expiration (epoch ms) and the threshold alerted (null: none open). */
    setDomainExpiry(id: number, expiresAt: number | null, alertedDays: number | null): void {
      setDomain.run(expiresAt, alertedDays, id);
    },
  };
}

/** The monitors store's interface. */
export type MonitorsStore = ReturnType<typeof monitorsStore>;
