import { escalationLine } from '../../../domain/alert.ts';
import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import type { AlertKind, AlertMessage, Channel, ChannelPlugin } from '../types.ts';

/** A `type: teams` channel as parsed from config.yaml (defaults applied). */
export type TeamsConfig = ChannelConfigOf<'teams'>;

/** The Adaptive Card elements Pharos sends. */
export type TeamsCardElement =
  | { type: 'TextBlock'; text: string; wrap: true; size?: 'Medium'; weight?: 'Bolder'; color?: 'Attention' | 'Good' | 'Warning' }
  | { type: 'FactSet'; facts: { title: string; value: string }[] };

/** The JSON body of a Teams Workflows / incoming-webhook request: one Adaptive Card 1.4. */
export interface TeamsPayload {
  type: 'message';
  attachments: [
    {
      contentType: 'application/vnd.microsoft.card.adaptive';
      contentUrl: null;
      content: {
        $schema: 'http://adaptivecards.io/schemas/adaptive-card.json';
        type: 'AdaptiveCard';
        version: '1.4';
        body: TeamsCardElement[];
        actions: { type: 'Action.OpenUrl'; title: string; url: string }[];
      };
    },
  ];
}

const COLORS: Record<AlertKind, 'Attention' | 'Good' | 'Warning'> = { alert: 'Attention', recovery: 'Good', acknowledge: 'Warning', notice: 'Warning' };

/**
 * Renders a message as a Teams Adaptive Card message:
 *
 * ```json
 * { "type": "message",
 *   "attachments": [{
 *     "contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": null,
 *     "content": {
 *       "$schema": "http://adaptivecards.io/schemas/adaptive-card.json", "type": "AdaptiveCard", "version": "1.4",
 *       "body": [
 *         { "type": "TextBlock", "text": "<title>", "size": "Medium", "weight": "Bolder",
 *           "color": "Attention" (alert) | "Good" (recovery) | "Warning" (notice), "wrap": true },
 *         { "type": "TextBlock", "text": "<text>", "wrap": true },
 *         // with an outage (Monitor "name (url)", Cause, Started ISO, Incident "INC-42 (major)",
 *         // Resolved once ended) and/or escalation ("<policy>, step 1 of 3"):
 *         { "type": "FactSet", "facts": [{ "title": "Monitor", "value": "…" }, …] } ],
 *       "actions": [{ "type": "Action.OpenUrl", "title": "Open in Pharos", "url": "<link>" }] or [] } }] }
 * ```
 */
export function teamsPayload(message: AlertMessage): TeamsPayload {
  const body: TeamsCardElement[] = [
    { type: 'TextBlock', text: message.title || 'Pharos', size: 'Medium', weight: 'Bolder', color: COLORS[message.kind], wrap: true },
  ];
  if (message.text) body.push({ type: 'TextBlock', text: message.text, wrap: true });
  const facts: { title: string; value: string }[] = [];
  const o = message.outage;
  if (o) {
    if (o.monitor) facts.push({ title: 'Monitor', value: o.monitor.url ? `${o.monitor.name} (${o.monitor.url})` : o.monitor.name });
    facts.push({ title: 'Cause', value: o.description });
    facts.push({ title: 'Started', value: o.startDate });
    facts.push({ title: 'Incident', value: `INC-${o.incidentNumber} (${o.severity})` });
    if (o.endDate) facts.push({ title: 'Resolved', value: o.endDate });
  }
  const e = message.escalation;
  if (e) facts.push({ title: 'Escalation', value: escalationLine(e) });
  if (facts.length > 0) body.push({ type: 'FactSet', facts });
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          actions: message.link ? [{ type: 'Action.OpenUrl', title: 'Open in Pharos', url: message.link }] : [],
        },
      },
    ],
  };
}

/**
 * A Microsoft Teams channel (Workflows "post to a channel when a webhook request is received", or a
 * legacy incoming webhook): each message is one `POST <url>` (`content-type: application/json`)
 * with the body of {@link teamsPayload}.
 *
 * `send` throws ChannelError as described in `http.ts` (5xx/408/429/network: retryable; other
 * 4xx: permanent); messages name only the host, never the secret path or query (`sig=`).
 */
export function createTeamsChannel(config: TeamsConfig): Channel {
  const http = createHttpSender({ label: `teams ${config.name}`, timeoutSeconds: config.timeout_seconds });
  return {
    name: config.name,
    send: (message, delivery) => http.request({ url: config.url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(teamsPayload(message)) }, delivery),
    close: () => http.close(),
  };
}

/** The Teams plugin. */
export const teams: ChannelPlugin<'teams'> = {
  create: createTeamsChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'teams', url: `${base}/workflows/SECRET123?sig=SECRET456`, timeout_seconds: 5 }),
  secrets: ['SECRET123', 'SECRET456'],
};
