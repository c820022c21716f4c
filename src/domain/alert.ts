/**
 * Alert messages (pure data): what the outbox stores and every notification channel renders.
 */

import { formatDuration } from './duration.ts';

/** What an alert is about: a problem, its recovery, or an operator notice (e.g. a probe losing connectivity). */
export type AlertKind = 'alert' | 'recovery' | 'notice';

/** The outage an alert is about, in the API's terms (API.md §2.6). Times are ISO 8601 strings. */
export interface AlertOutage {
  uuid: string;
  incidentNumber: number;
  description: string;
  severity: 'critical' | 'major' | 'minor';
  startDate: string;
  endDate: string | null;
  durationMs: number;
  /** The monitor or healthcheck (`protocol: "healthcheck"`), null for a manual outage. */
  monitor: { uuid: string; name: string; url: string; protocol: string } | null;
}

/** One message, rendered by each channel in its own format. */
export interface AlertMessage {
  kind: AlertKind;
  /** One line, e.g. `DOWN: API (https://api.example.com)` or `RECOVERED: API after 4m 10s`. */
  title: string;
  /** A few sentences for a person: cause, start time, escalation step. */
  text: string;
  outage: AlertOutage | null;
  /** Escalation context when sent by a policy step. */
  escalation: { policyUuid: string; policyName: string; step: number; totalSteps: number } | null;
  /** Where a person can look at it (built from `public_url`), or null. */
  link: string | null;
  /** When the alert was created (ISO 8601). */
  createdAt: string;
}

/** What {@link renderAlert} needs of an outage (a stored outage with its monitor or healthcheck). */
export interface AlertSource {
  uuid: string;
  incidentNumber: number;
  description: string;
  severity: AlertOutage['severity'];
  startAt: number;
  endAt: number | null;
  monitor: AlertOutage['monitor'];
}

/**
 * Renders the message for an outage's alert or recovery at `now` (epoch ms).
 * @param escalation the policy step being sent (null for a recovery)
 * @param link where a person can look at the outage, or null
 */
export function renderAlert(kind: 'alert' | 'recovery', o: AlertSource, escalation: AlertMessage['escalation'], link: string | null, now: number): AlertMessage {
  const durationMs = Math.max(0, (o.endAt ?? now) - o.startAt);
  const what = o.monitor ? `${o.monitor.name} (${o.monitor.url})` : o.description;
  const started = new Date(o.startAt).toISOString();
  const ref = `INC-${o.incidentNumber}`;
  let title: string;
  let text: string;
  if (kind === 'alert') {
    title = o.monitor ? `DOWN: ${what}` : `INCIDENT: ${o.description}`;
    text = `${o.description}. Down since ${started} (${ref}, ${o.severity}).`;
    if (escalation) text += ` Escalation "${escalation.policyName}", step ${Math.min(escalation.step, escalation.totalSteps)} of ${escalation.totalSteps}.`;
  } else {
    title = `RECOVERED: ${what} after ${formatDuration(durationMs / 1000)}`;
    text = `${ref} is resolved: it started ${started} (${o.description}) and ended ${new Date(o.endAt ?? now).toISOString()}.`;
  }
  return {
    kind,
    title,
    text,
    outage: {
      uuid: o.uuid,
      incidentNumber: o.incidentNumber,
      description: o.description,
      severity: o.severity,
      startDate: started,
      endDate: o.endAt === null ? null : new Date(o.endAt).toISOString(),
      durationMs,
      monitor: o.monitor,
    },
    escalation,
    link,
    createdAt: new Date(now).toISOString(),
  };
}
