import type { AlertMessage } from './alert.ts';
import { isIncidentResolved, type Incident } from './incident.ts';
import { localize } from './localized.ts';
import type { MaintenanceWindow } from './maintenance.ts';

/** What happened to an incident, for its subscribers. */
export type IncidentChange = 'created' | 'updated' | 'resolved';

/** The change an incident write made: `resolved` when its newest update is a resolution, else `created`/`updated`. */
export function incidentChange(incident: Incident, isNew: boolean): IncidentChange {
  if (isIncidentResolved(incident.updates)) return 'resolved';
  return isNew ? 'created' : 'updated';
}

const notice = (title: string, text: string, link: string | null, now: number): AlertMessage => ({
  kind: 'notice',
  title,
  text,
  outage: null,
  escalation: null,
  link,
  createdAt: new Date(now).toISOString(),
});

/**
 * The message status-page subscribers get about an incident, its texts in `lang` (the subscriber's
 * language, else the page's first; LocalizedText's fallback):
 * title `[<page>] New incident|Incident update|Resolved: <title>`, text = the newest update
 * (`<type>: <text>`).
 * @param link the page's public address
 */
export function incidentNotice(pageName: string, lang: string, incident: Incident, change: IncidentChange, link: string, now: number): AlertMessage {
  const head = change === 'created' ? 'New incident' : change === 'resolved' ? 'Resolved' : 'Incident update';
  const last = incident.updates.at(-1);
  const text = last ? `${last.type}: ${localize(last.text, lang)}` : `${localize(incident.title, lang)} (${incident.type})`;
  return notice(`[${pageName}] ${head}: ${localize(incident.title, lang)}`, text, link, now);
}

/** The message about a maintenance window: `[<page>] Scheduled maintenance: <title>` with its times (UTC, ISO 8601). */
export function maintenanceNotice(pageName: string, lang: string, w: MaintenanceWindow, link: string, now: number): AlertMessage {
  const title = localize(w.title, lang) || w.name;
  const text = `From ${new Date(w.startAt).toISOString()} to ${new Date(w.endAt).toISOString()}.${w.updates.length ? ` ${localize(w.updates.at(-1)!.text, lang)}` : ''}`;
  return notice(`[${pageName}] Scheduled maintenance: ${title}`, text, link, now);
}

/** The double opt-in mail: the confirm link, and what happens if it is ignored. */
export function confirmNotice(pageName: string, confirmUrl: string, now: number): AlertMessage {
  return notice(
    `Confirm your subscription to ${pageName}`,
    `Someone (hopefully you) asked to get updates about ${pageName} by email. To confirm, open this link: ${confirmUrl}\n\nIf it was not you, ignore this mail: nothing more will be sent.`,
    confirmUrl,
    now,
  );
}

/** The text with the code that confirms an SMS subscription (no link: the code is typed on the page). */
export function smsCodeNotice(pageName: string, code: string, now: number): AlertMessage {
  return notice(`${pageName} code: ${code}`, `Enter ${code} on the status page to get SMS updates. If you did not ask for this, ignore this message.`, null, now);
}

/** The first message to a webhook (Slack, Teams) subscription: it proves the hook works. */
export function welcomeNotice(pageName: string, link: string, now: number): AlertMessage {
  return notice(`Subscribed to ${pageName}`, `This channel will get incident and maintenance updates from ${pageName}.`, link, now);
}
