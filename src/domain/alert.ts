/**
 * Alert messages (pure data): what the outbox stores and every notification channel renders.
 */

import { formatDuration } from './duration.ts';

/**
 * What an alert is about: a problem, its recovery, its acknowledgement (sent only to channels that
 * track an alert's state: PagerDuty, Opsgenie), or an operator notice (e.g. a probe losing
 * connectivity, a test).
 */
export type AlertKind = 'alert' | 'recovery' | 'acknowledge' | 'notice';

/**
 * The escalation step an alert was sent by. `step` is never above `totalSteps`: the sends of
 * `repeat_every_minutes` after the last step are that step again with `repeat` 1, 2, …
 */
export interface AlertEscalation {
  policyUuid: string;
  policyName: string;
  /** 1-based step, at most `totalSteps`. */
  step: number;
  totalSteps: number;
  /** 0 for the step's own send; n for its n-th repeat. */
  repeat: number;
}

/** `Default, step 2 of 2` or, for repeats, `Default, step 2 of 2, repeat 3`. */
export function escalationLine(e: AlertEscalation): string {
  return `${e.policyName}, step ${e.step} of ${e.totalSteps}${e.repeat > 0 ? `, repeat ${e.repeat}` : ''}`;
}

/**
 * The escalation context of send number `sent` (0-based, repeats included) of a policy with
 * `totalSteps` steps: sends past the last step are repeats of it.
 */
export function escalationOfSend(policy: { uuid: string; name: string; totalSteps: number }, sent: number): AlertEscalation {
  const step = Math.min(sent + 1, policy.totalSteps);
  return { policyUuid: policy.uuid, policyName: policy.name, step, totalSteps: policy.totalSteps, repeat: sent + 1 - step };
}

/** The outage an alert is about, in the API's terms (API.md §2.6). Times are ISO 8601 strings. */
export interface AlertOutage {
  uuid: string;
  incidentNumber: number;
  description: string;
  severity: 'critical' | 'major' | 'minor';
  startDate: string;
  endDate: string | null;
  durationMs: number;
  /**
   * The monitor or healthcheck (`protocol: "healthcheck"`), null for a manual outage. For a
   * healthcheck `url` is its console page (`<public_url>/healthchecks/<uuid>`), never the secret
   * ping URL.
   */
  monitor: { uuid: string; name: string; url: string; protocol: string } | null;
}

/**
 * What a notice is about, when that can end (issue #30): channels that keep one alert per subject
 * (PagerDuty's `dedup_key`, Opsgenie's `alias`) open it under `key` and close it with the notice
 * that has `resolve: true`, as they do with an outage's uuid for outage alerts. Keys come from
 * {@link noticeKey}.
 */
export interface NoticeSubject {
  /** Stable for the subject: `cert:<monitor uuid>:<threshold days>`, `flood:<probe region>`, `backup:failed`, `tls:failed:<host>`, `domain:<monitor uuid>:<threshold days>` ({@link noticeKey}). */
  key: string;
  /** True for the notice that says it is over (certificate renewed, flood ended, monitor deleted). */
  resolve: boolean;
}

/** The keys of {@link NoticeSubject}, in one place. */
export const noticeKey = {
  /** A certificate of a monitor under an expiry threshold (days). */
  cert: (monitorUuid: string, thresholdDays: number) => `cert:${monitorUuid}:${thresholdDays}`,
  /** The flood guard's connectivity loss of the local probe (its region). */
  flood: (region: string) => `flood:${region}`,
  /** Scheduled backups failing (one subject however many fail in a row). */
  backup: () => 'backup:failed',
  /** A certificate ACME could not obtain for `host`. */
  tls: (host: string) => `tls:failed:${host}`,
  /** The registrable domain of a monitor under an expiry threshold (days). */
  domain: (monitorUuid: string, thresholdDays: number) => `domain:${monitorUuid}:${thresholdDays}`,
};

/** One message, rendered by each channel in its own format. */
export interface AlertMessage {
  kind: AlertKind;
  /** One line, e.g. `DOWN: API (https://api.example.com)` or `RECOVERED: API after 4m 10s`. */
  title: string;
  /** A few sentences for a person: cause, start time, escalation step. */
  text: string;
  outage: AlertOutage | null;
  /** Escalation context when sent by a policy step. */
  escalation: AlertEscalation | null;
  /** Where a person can look at it: the console's outage page `<public_url>/outages/<uuid>`, or null. */
  link: string | null;
  /** When the alert was created (ISO 8601). */
  createdAt: string;
  /**
   * For a notice about something that can end: its key and whether this notice ends it. Absent on
   * one-off notices (a test alert) and on rows queued before issue #30.
   */
  subject?: NoticeSubject;
}

/**
 * The state an alert sets at a provider that tracks alerts (PagerDuty, Opsgenie), under which key:
 * an outage's alert triggers under the outage's uuid, its acknowledgement acknowledges and its
 * recovery resolves it; a notice with a {@link NoticeSubject} triggers or resolves under its key.
 * Null for a one-off notice (the channel keys it by its delivery id and never resolves it).
 */
export function alertTracking(m: AlertMessage): { key: string; action: 'trigger' | 'acknowledge' | 'resolve' } | null {
  if (m.outage) return { key: m.outage.uuid, action: m.kind === 'recovery' ? 'resolve' : m.kind === 'acknowledge' ? 'acknowledge' : 'trigger' };
  if (m.subject) return { key: m.subject.key, action: m.subject.resolve ? 'resolve' : 'trigger' };
  return null;
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
 * Renders the message for an outage's alert, recovery or acknowledgement at `now` (epoch ms).
 * Titles name a monitor with its target (`DOWN: API (https://api.example.com)`) and a healthcheck
 * by name only (`DOWN: nightly-backup (healthcheck)`): its ping URL is a secret.
 * @param escalation the policy step being sent (null for a recovery or acknowledgement)
 * @param link where a person can look at the outage, or null
 */
export function renderAlert(kind: 'alert' | 'recovery' | 'acknowledge', o: AlertSource, escalation: AlertMessage['escalation'], link: string | null, now: number): AlertMessage {
  const durationMs = Math.max(0, (o.endAt ?? now) - o.startAt);
  const what = !o.monitor ? o.description : o.monitor.protocol === 'healthcheck' ? `${o.monitor.name} (healthcheck)` : `${o.monitor.name} (${o.monitor.url})`;
  const started = new Date(o.startAt).toISOString();
  const ref = `INC-${o.incidentNumber}`;
  let title: string;
  let text: string;
  if (kind === 'alert') {
    title = o.monitor ? `DOWN: ${what}` : `INCIDENT: ${o.description}`;
    text = `${o.description}. Down since ${started} (${ref}, ${o.severity}).`;
    if (escalation) text += ` Escalation ${escalationLine(escalation)}.`;
  } else if (kind === 'acknowledge') {
    title = `ACKNOWLEDGED: ${what}`;
    text = `${ref} was acknowledged at ${new Date(now).toISOString()}; it started ${started} (${o.description}).`;
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

/** The kinds of outbox rows (see alerting/channels/types.ts `AlertKind`). */
export type AlertRowKind = 'alert' | 'recovery' | 'acknowledge' | 'notice';

/** One outbox row. Times are epoch ms; `message` is the rendered AlertMessage as JSON. */
export interface AlertRow {
  id: number;
  outageUuid: string | null;
  channel: string;
  kind: AlertRowKind;
  step: number | null;
  message: string;
  createdAt: number;
  attempts: number;
  nextAttemptAt: number;
  deliveredAt: number | null;
  failedAt: number | null;
  lastError: string | null;
  /** Idempotency id of the row (`dlv_…`), the same on every attempt. */
  deliveryId: string;
}
