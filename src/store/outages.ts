import type { Outage, OutageEvent, OutageFilter, OutageRecord, Severity } from '../domain/outage.ts';
import { parseIncidentRef } from '../domain/outage.ts';
import type { User } from '../domain/user.ts';
import type { Db } from './db.ts';

interface Row {
  uuid: string;
  incident_number: number;
  kind: Outage['kind'];
  monitor_id: number | null;
  healthcheck_id: number | null;
  start_at: number;
  end_at: number | null;
  status_code: number;
  description: string;
  detected_location: string;
  confirmed_locations: string;
  protocol: string;
  severity: Severity;
  acknowledged_at: number | null;
  acknowledged_by: string | null;
  reported_by: string | null;
  escalation_policy_uuid: string | null;
  alerted_steps: number;
  escalation_start_at: number | null;
  next_alert_at: number | null;
  summary: string | null;
  postmortem: string | null;
  m_uuid: string | null;
  m_name: string | null;
  m_url: string | null;
  m_protocol: string | null;
  h_uuid: string | null;
  h_name: string | null;
  h_public_uuid: string | null;
  a_email: string | null;
  a_name: string | null;
  r_email: string | null;
  r_name: string | null;
}

const SELECT = `SELECT o.*, m.uuid AS m_uuid, m.name AS m_name, m.url AS m_url, m.protocol AS m_protocol,
    h.uuid AS h_uuid, h.name AS h_name, h.public_uuid AS h_public_uuid, a.email AS a_email, a.name AS a_name, r.email AS r_email, r.name AS r_name
  FROM outages o
  LEFT JOIN monitors m ON m.id = o.monitor_id
  LEFT JOIN healthchecks h ON h.id = o.healthcheck_id
  LEFT JOIN users a ON a.uuid = o.acknowledged_by
  LEFT JOIN users r ON r.uuid = o.reported_by`;

const toRecord = (r: Row): OutageRecord => ({
  uuid: r.uuid,
  incidentNumber: r.incident_number,
  kind: r.kind,
  monitorId: r.monitor_id,
  healthcheckId: r.healthcheck_id,
  startAt: r.start_at,
  endAt: r.end_at,
  statusCode: r.status_code,
  description: r.description,
  detectedLocation: r.detected_location,
  confirmedLocations: r.confirmed_locations,
  protocol: r.protocol,
  severity: r.severity,
  acknowledgedAt: r.acknowledged_at,
  acknowledgedBy: r.acknowledged_by,
  reportedBy: r.reported_by,
  escalationPolicyUuid: r.escalation_policy_uuid,
  alertedSteps: r.alerted_steps,
  escalationStartAt: r.escalation_start_at,
  nextAlertAt: r.next_alert_at,
  summary: r.summary,
  postmortem: r.postmortem,
  monitor: r.m_uuid ? { uuid: r.m_uuid, name: r.m_name!, url: r.m_url!, protocol: r.m_protocol! } : null,
  healthcheck: r.h_uuid ? { uuid: r.h_uuid, name: r.h_name!, publicUuid: r.h_public_uuid! } : null,
  acknowledgedByUser: r.acknowledged_by && r.a_email ? { uuid: r.acknowledged_by, email: r.a_email, name: r.a_name! } : null,
  reportedByUser: r.reported_by && r.r_email ? { uuid: r.reported_by, email: r.r_email, name: r.r_name! } : null,
});

function where(f: OutageFilter): { sql: string; params: (string | number)[] } {
  const parts: string[] = [];
  const params: (string | number)[] = [];
  if (f.status === 'ongoing') parts.push('o.end_at IS NULL');
  if (f.status === 'resolved') parts.push('o.end_at IS NOT NULL');
  if (f.type === 'manual') parts.push("o.kind = 'manual'");
  if (f.type === 'monitor') parts.push("o.kind <> 'manual'");
  if (f.search && f.search.trim() !== '') {
    const n = parseIncidentRef(f.search);
    if (n !== null) {
      parts.push('o.incident_number = ?');
      params.push(n);
    } else {
      // instr(lower(), lower()) is a literal, case-insensitive substring test: no LIKE wildcards to escape.
      parts.push('instr(lower(o.description), lower(?)) > 0');
      params.push(f.search);
    }
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

/** Outage rows and the installation-wide incident counter. */
export function outagesStore(db: Db) {
  const byUuid = db.prepare<[string], Row>(`${SELECT} WHERE o.uuid = ?`);
  const openForMonitor = db.prepare<[number], Row>(`${SELECT} WHERE o.monitor_id = ? AND o.end_at IS NULL`);
  const openUuidForMonitor = db.prepare<[number], { uuid: string }>('SELECT uuid FROM outages WHERE monitor_id = ? AND end_at IS NULL');
  const openForHealthcheck = db.prepare<[number], Row>(`${SELECT} WHERE o.healthcheck_id = ? AND o.end_at IS NULL`);
  const lastStartForHealthcheck = db.prepare<[number], { at: number | null }>('SELECT max(start_at) AS at FROM outages WHERE healthcheck_id = ?');
  const nextNumber = db.prepare<[], { value: number }>("UPDATE counters SET value = value + 1 WHERE name = 'incident_number' RETURNING value");
  const insert = db.prepare(
    `INSERT INTO outages(uuid, incident_number, kind, monitor_id, healthcheck_id, start_at, end_at, status_code, description,
       detected_location, confirmed_locations, protocol, severity, reported_by, escalation_policy_uuid, summary, created_at)
     VALUES (@uuid, @incidentNumber, @kind, @monitorId, @healthcheckId, @startAt, NULL, @statusCode, @description,
       @detectedLocation, @confirmedLocations, @protocol, @severity, @reportedBy, @escalationPolicyUuid, @summary, @createdAt)`,
  );
  const resolve = db.prepare('UPDATE outages SET end_at = ? WHERE uuid = ? AND end_at IS NULL');
  const ongoingCount = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM outages WHERE end_at IS NULL');
  const del = db.prepare('DELETE FROM outages WHERE uuid = ?');
  const setAck = db.prepare('UPDATE outages SET acknowledged_at = ?, acknowledged_by = ? WHERE uuid = ?');
  const setEscalation = db.prepare('UPDATE outages SET escalation_start_at = ?, next_alert_at = ?, alerted_steps = ? WHERE uuid = ?');
  const scheduled = db.prepare<[], { uuid: string; incident_number: number; next_alert_at: number }>(
    'SELECT uuid, incident_number, next_alert_at FROM outages WHERE next_alert_at IS NOT NULL',
  );
  const insertEvent = db.prepare('INSERT INTO outage_events(outage_uuid, at, type, user_uuid, message) VALUES (?, ?, ?, ?, ?)');
  const eventsOf = db.prepare<[string], { at: number; type: OutageEvent['type']; user_uuid: string | null; message: string | null }>(
    'SELECT at, type, user_uuid, message FROM outage_events WHERE outage_uuid = ? ORDER BY id',
  );

  return {
    get(uuid: string): OutageRecord | undefined {
      const r = byUuid.get(uuid);
      return r && toRecord(r);
    },
    /** The ongoing outage of a monitor, if any (at most one: a partial unique index holds that). */
    openForMonitor(monitorId: number): OutageRecord | undefined {
      const r = openForMonitor.get(monitorId);
      return r && toRecord(r);
    },
    /** The uuid of a monitor's ongoing outage, if any: {@link openForMonitor} without the joins (the hot path of a state change). */
    openUuidForMonitor: (monitorId: number): string | undefined => openUuidForMonitor.get(monitorId)?.uuid,
    /** The ongoing outage of a healthcheck, if any (at most one, as for monitors). */
    openForHealthcheck(healthcheckId: number): OutageRecord | undefined {
      const r = openForHealthcheck.get(healthcheckId);
      return r && toRecord(r);
    },
    /** Per healthcheck id: when its newest outage started (epoch ms), or null when it never had one. */
    lastStartForHealthchecks(healthcheckIds: number[]): Record<number, number | null> {
      return Object.fromEntries(healthcheckIds.map((id) => [id, lastStartForHealthcheck.get(id)?.at ?? null]));
    },
    /**
     * Inserts a new ongoing outage with the next incident number. Call inside a transaction.
     * @returns the incident number given
     */
    insert(o: Omit<Outage, 'incidentNumber' | 'endAt' | 'acknowledgedAt' | 'acknowledgedBy' | 'alertedSteps' | 'escalationStartAt' | 'nextAlertAt' | 'postmortem'>, now: number): number {
      const incidentNumber = nextNumber.get()!.value;
      insert.run({ ...o, incidentNumber, createdAt: now });
      return incidentNumber;
    },
    /** Sets `end_at` of an ongoing outage; false when it was not ongoing. */
    resolve: (uuid: string, at: number): boolean => resolve.run(at, uuid).changes === 1,
    /** One page of outages, newest `startDate` first, and the total count for the filter. */
    list(f: OutageFilter, limit: number, offset: number): { items: OutageRecord[]; total: number } {
      const w = where(f);
      const items = db.prepare<unknown[], Row>(`${SELECT} ${w.sql} ORDER BY o.start_at DESC, o.incident_number DESC LIMIT ? OFFSET ?`).all(...w.params, limit, offset);
      const total = db.prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM outages o ${w.sql}`).get(...w.params)!.n;
      return { items: items.map(toRecord), total };
    },
    ongoingCount: (): number => ongoingCount.get()!.n,
    /** Deletes an outage with its timeline; its sent alerts keep their rows (outage_uuid set NULL). */
    delete: (uuid: string): boolean => del.run(uuid).changes === 1,
    /** Sets (or clears, with nulls) the acknowledgement. */
    setAcknowledged(uuid: string, at: number | null, userUuid: string | null): void {
      setAck.run(at, userUuid, uuid);
    },
    /** Stores escalation progress: start, next send time (null: none scheduled) and sends done. */
    setEscalation(uuid: string, startAt: number | null, nextAlertAt: number | null, alertedSteps: number): void {
      setEscalation.run(startAt, nextAlertAt, alertedSteps, uuid);
    },
    /** Outages with an escalation send scheduled (read at start to rebuild the timers). */
    scheduledEscalations: () => scheduled.all().map((r) => ({ uuid: r.uuid, incidentNumber: r.incident_number, nextAlertAt: r.next_alert_at })),
    /** Appends a timeline entry. */
    addEvent(uuid: string, e: OutageEvent): void {
      insertEvent.run(uuid, e.at, e.type, e.userUuid, e.message);
    },
    /** The timeline, oldest first. */
    events: (uuid: string): OutageEvent[] => eventsOf.all(uuid).map((r) => ({ at: r.at, type: r.type, userUuid: r.user_uuid, message: r.message })),
  };
}

/** The outages store's interface. */
export type OutagesStore = ReturnType<typeof outagesStore>;
