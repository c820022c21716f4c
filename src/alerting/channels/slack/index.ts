import { escalationLine } from '../../../domain/alert.ts';
import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import type { AlertMessage, Channel, ChannelPlugin } from '../types.ts';

/** A `type: slack` channel as parsed from config.yaml (defaults applied). */
export type SlackConfig = ChannelConfigOf<'slack'>;

/** A Block Kit text object. */
export type SlackText = { type: 'plain_text'; text: string; emoji: boolean } | { type: 'mrkdwn'; text: string };

/** The Block Kit blocks Pharos sends. */
export type SlackBlock =
  | { type: 'header'; text: SlackText & { type: 'plain_text' } }
  | { type: 'section'; text: SlackText }
  | { type: 'section'; fields: SlackText[] }
  | { type: 'context'; elements: SlackText[] };

/** The JSON body of a Slack incoming-webhook request. `text` is the notification/fallback line. */
export interface SlackPayload {
  text: string;
  blocks: SlackBlock[];
}

/** Slack's limits: header text 150 characters, section text 3000, each field 2000. */
const HEADER_MAX = 150;
const SECTION_MAX = 3000;
const FIELD_MAX = 2000;

/** Escapes `&`, `<` and `>` as Slack's mrkdwn (and top-level `text`) require; nothing else. */
export function slackEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A mrkdwn link `<url|label>`; the URL is escaped and a `|` in it percent-encoded. */
function link(url: string, label: string): string {
  return `<${slackEscape(url).replace(/\|/g, '%7C')}|${slackEscape(label)}>`;
}

const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** A time shown in the reader's time zone, with the ISO string as fallback (and for search). */
function slackDate(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return slackEscape(iso);
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} {time_secs}|${slackEscape(iso)}>`;
}

/**
 * Renders a message in Slack's incoming-webhook format:
 *
 * ```json
 * { "text": "<title, escaped>",
 *   "blocks": [
 *     { "type": "header", "text": { "type": "plain_text", "text": "<title>", "emoji": true } },
 *     { "type": "section", "text": { "type": "mrkdwn", "text": "<text, escaped>" } },
 *     // with an outage: "*Monitor*\n<url|name>", "*Cause*\n…", "*Started*\n<!date^…|ISO>",
 *     // "*Incident*\nINC-42 (major)" and, once resolved, "*Resolved*\n…"
 *     { "type": "section", "fields": [{ "type": "mrkdwn", "text": "*Monitor*\n…" }, …] },
 *     // with escalation context:
 *     { "type": "context", "elements": [{ "type": "mrkdwn", "text": "Escalation: <policy>, step 1 of 3" }] },
 *     // with a link:
 *     { "type": "section", "text": { "type": "mrkdwn", "text": "<https://…|Open in Pharos>" } } ] }
 * ```
 *
 * User-provided strings are escaped per Slack's mrkdwn rules (`&` `<` `>`); the plain_text header
 * is not parsed by Slack and is sent as is. Texts are cut to Slack's length limits.
 */
export function slackPayload(message: AlertMessage): SlackPayload {
  const blocks: SlackBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: cut(message.title || 'Pharos', HEADER_MAX), emoji: true } },
  ];
  if (message.text) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: slackEscape(cut(message.text, SECTION_MAX - 100)) } });
  const o = message.outage;
  if (o) {
    const field = (label: string, value: string): SlackText => ({ type: 'mrkdwn', text: cut(`*${label}*\n${value}`, FIELD_MAX) });
    const fields: SlackText[] = [];
    if (o.monitor) fields.push(field('Monitor', /^https?:\/\//i.test(o.monitor.url) ? link(o.monitor.url, o.monitor.name) : slackEscape(o.monitor.name)));
    fields.push(field('Cause', slackEscape(cut(o.description, FIELD_MAX - 100))));
    fields.push(field('Started', slackDate(o.startDate)));
    fields.push(field('Incident', `INC-${o.incidentNumber} (${o.severity})`));
    if (o.endDate) fields.push(field('Resolved', slackDate(o.endDate)));
    blocks.push({ type: 'section', fields });
  }
  const e = message.escalation;
  if (e) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `Escalation: ${slackEscape(escalationLine(e))}` }] });
  if (message.link) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: link(message.link, 'Open in Pharos') } });
  return { text: slackEscape(cut(message.title || 'Pharos', SECTION_MAX)), blocks };
}

/**
 * A Slack incoming-webhook channel: each message is one `POST <url>` (`content-type:
 * application/json`) with the body of {@link slackPayload}.
 *
 * `send` throws ChannelError as described in `http.ts` (5xx/408/429/network: retryable; other
 * 4xx, e.g. Slack's 404 `no_service` or 410 `channel_is_archived`: permanent); messages name only
 * the host, never the secret path.
 */
export function createSlackChannel(config: SlackConfig): Channel {
  const http = createHttpSender({ label: `slack ${config.name}`, timeoutSeconds: config.timeout_seconds });
  return {
    name: config.name,
    send: (message, delivery) => http.request({ url: config.url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(slackPayload(message)) }, delivery),
    close: () => http.close(),
  };
}

/** The Slack plugin. */
export const slack: ChannelPlugin<'slack'> = {
  create: createSlackChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'slack', url: `${base}/services/SECRET123?sig=SECRET456`, timeout_seconds: 5 }),
  secrets: ['SECRET123', 'SECRET456'],
};
