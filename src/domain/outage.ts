import { redactCredentials } from '../protocols/target.ts';
import type { User } from './user.ts';

/** Outage severity (API.md §2.6). */
export const SEVERITIES = ['critical', 'major', 'minor'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Where an outage came from. `monitor` and `healthcheck` are detected, `manual` is reported by a person. */
export type OutageKind = 'monitor' | 'manual' | 'healthcheck';

/** A stored outage. Times are UTC epoch ms; `endAt` null while ongoing. */
export interface Outage {
  uuid: string;
  incidentNumber: number;
  kind: OutageKind;
  monitorId: number | null;
  /** Set on `healthcheck` outages. */
  healthcheckId: number | null;
  startAt: number;
  endAt: number | null;
  statusCode: number;
  description: string;
  detectedLocation: string;
  /** Comma-separated region names (API.md §2.6). */
  confirmedLocations: string;
  protocol: string;
  severity: Severity;
  acknowledgedAt: number | null;
  acknowledgedBy: string | null;
  reportedBy: string | null;
  escalationPolicyUuid: string | null;
  /** Escalation sends done so far (steps, then repeats of the last step). */
  alertedSteps: number;
  /** Escalation start (open + alerts_wait), epoch ms; null when the outage is never alerted. */
  escalationStartAt: number | null;
  /** When the next escalation send is due, epoch ms; null when none is scheduled. */
  nextAlertAt: number | null;
  summary: string | null;
  postmortem: string | null;
}

/** Entries of an outage's timeline. */
export const OUTAGE_EVENT_TYPES = ['opened', 'acknowledged', 'unacknowledged', 'escalated', 'alerted', 'resolved'] as const;
export type OutageEventType = (typeof OUTAGE_EVENT_TYPES)[number];

/** One timeline entry; `userUuid` is the person who acted (null for Pharos itself). */
export interface OutageEvent {
  at: number;
  type: OutageEventType;
  userUuid: string | null;
  message: string | null;
}

/** Filters of GET /v2/outages (API.md §4.4). */
export interface OutageFilter {
  status: 'all' | 'ongoing' | 'resolved';
  type: 'all' | 'manual' | 'monitor';
  /** Case-insensitive substring of the description, or `INC-<n>`. */
  search?: string | undefined;
}

/** Outages per page of GET /v2/outages (CONTRACT.md "Outages"). */
export const OUTAGES_PER_PAGE = 20;

/** `INC-7` (any case, optional spaces) → 7; anything else → null. */
export function parseIncidentRef(search: string): number | null {
  const m = /^\s*inc-?\s*(\d{1,9})\s*$/i.exec(search);
  return m ? Number(m[1]) : null;
}

/** Duration of an outage in ms at `now` (ongoing outages count up to now). */
export function outageDurationMs(o: Pick<Outage, 'startAt' | 'endAt'>, now: number): number {
  return Math.max(0, (o.endAt ?? now) - o.startAt);
}

/** What an outage is about, as the API's `monitor` field shows it: `{uuid, name, url, protocol}`. */
export interface OutageSubject {
  uuid: string;
  name: string;
  url: string;
  protocol: string;
}

/**
 * The `monitor` of an outage: its monitor, or its healthcheck shown as a monitor with the ping URL
 * and protocol `healthcheck` (CONTRACT.md "Healthchecks"), or null for a manual outage.
 * @param pingUrlOf builds a healthcheck's ping URL from its uuid
 */
export function outageSubject(o: { monitor: OutageSubject | null; healthcheck: { uuid: string; name: string } | null }, pingUrlOf: (uuid: string) => string): OutageSubject | null {
  // Database monitors carry a password in `url`: alerts and outage listings never show it.
  if (o.monitor) return { ...o.monitor, url: redactCredentials(o.monitor.url) };
  return o.healthcheck && { uuid: o.healthcheck.uuid, name: o.healthcheck.name, url: pingUrlOf(o.healthcheck.uuid), protocol: 'healthcheck' };
}

/** An outage with the joined records the API shows: the monitor and the users who acknowledged or reported it. */
export interface OutageRecord extends Outage {
  monitor: { uuid: string; name: string; url: string; protocol: string } | null;
  /**
   * The healthcheck of a healthcheck outage (the API shows it as `monitor` with the ping URL).
   * `uuid` is the ping token (a secret); `publicUuid` (`hc_…`) is safe to show in alerts.
   */
  healthcheck: { uuid: string; name: string; publicUuid: string } | null;
  acknowledgedByUser: User | null;
  reportedByUser: User | null;
}
