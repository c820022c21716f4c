import { escalationLine, type AlertMessage } from '../../domain/alert.ts';

/**
 * Rendering shared by the channels: the label/value facts every message shows, and a plain-text
 * form for providers that take text (Telegram, ntfy, Gotify, Pushover, Matrix, SMS). Each channel
 * still owns its own format; these only keep the wording the same everywhere.
 */

/** One label/value line; `href` marks a value that is a link. */
export interface Fact {
  label: string;
  value: string;
  href?: string;
}

/**
 * The facts of a message, each only when known: `Monitor` (name and target; a healthcheck's
 * console page, never its ping URL), `Cause`, `Started`, `Resolved`, `Incident` (`INC-42 (major)`),
 * `Escalation` (`Default, step 2 of 2, repeat 1`), `Link` (the console's outage page).
 */
export function facts(message: AlertMessage): Fact[] {
  const out: Fact[] = [];
  const o = message.outage;
  if (o) {
    if (o.monitor) out.push({ label: 'Monitor', value: o.monitor.url ? `${o.monitor.name} (${o.monitor.url})` : o.monitor.name });
    out.push({ label: 'Cause', value: o.description });
    out.push({ label: 'Started', value: o.startDate });
    if (o.endDate) out.push({ label: 'Resolved', value: o.endDate });
    out.push({ label: 'Incident', value: `INC-${o.incidentNumber} (${o.severity})` });
  }
  if (message.escalation) out.push({ label: 'Escalation', value: escalationLine(message.escalation) });
  if (message.link) out.push({ label: 'Link', value: message.link, href: message.link });
  return out;
}

/** The text below the title: the message's text, a blank line, then `Label: value` lines. */
export function plainBody(message: AlertMessage, options: { link?: boolean } = {}): string {
  const lines = facts(message)
    .filter((f) => options.link !== false || f.label !== 'Link')
    .map((f) => `${f.label}: ${f.value}`);
  return [message.text, '', ...lines].join('\n').trim();
}

/** Cuts `s` to `max` characters, marking the cut with `…`. */
export function cut(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Escapes `& < > " '` for HTML text and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** A color per kind: red alerts, green recoveries, amber acknowledgements, blue notices (`#rrggbb`). */
export const KIND_COLORS = { alert: '#d93025', recovery: '#1e8e3e', acknowledge: '#f9ab00', notice: '#1a73e8' } as const;

/** Joins a base URL and a path, with exactly one `/` between them. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** A JSON request (`content-type: application/json`) of `body` to `url`, with extra `headers`. */
export function jsonRequest(url: string, body: unknown, headers: Record<string, string> = {}): { url: string; headers: Record<string, string>; body: string } {
  return { url, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}
