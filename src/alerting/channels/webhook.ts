import { createHmac } from 'node:crypto';
import type { ChannelConfig } from '../../config/schema.ts';
import { createJsonPoster } from './http-post.ts';
import type { AlertKind, AlertMessage, Channel } from './types.ts';

/** A `type: webhook` channel as parsed from config.yaml (defaults applied). */
export type WebhookConfig = Extract<ChannelConfig, { type: 'webhook' }>;

/** The `event` of a webhook payload, one per {@link AlertKind}. */
export type WebhookEvent = 'outage.alert' | 'outage.recovery' | 'pharos.notice';

const EVENTS: Record<AlertKind, WebhookEvent> = { alert: 'outage.alert', recovery: 'outage.recovery', notice: 'pharos.notice' };

/**
 * The JSON body of a webhook request. `outage` and `escalation` are exactly the
 * {@link AlertMessage} fields (times ISO 8601, `durationMs` in milliseconds), null when absent.
 */
export interface WebhookPayload {
  event: WebhookEvent;
  title: string;
  text: string;
  outage: AlertMessage['outage'];
  escalation: AlertMessage['escalation'];
  link: string | null;
  /** ISO 8601. */
  createdAt: string;
}

/** Builds the {@link WebhookPayload} for one message. */
export function webhookPayload(message: AlertMessage): WebhookPayload {
  return {
    event: EVENTS[message.kind],
    title: message.title,
    text: message.text,
    outage: message.outage,
    escalation: message.escalation,
    link: message.link,
    createdAt: message.createdAt,
  };
}

/**
 * Computes the `X-Pharos-Signature` value: `sha256=` + hex HMAC-SHA256, keyed with `secret`, of
 * `"<timestamp>.<raw body>"`. Receivers recompute it from the raw body and the `X-Pharos-Timestamp`
 * header, compare in constant time, and should refuse timestamps far from their clock.
 * @param timestamp Unix time in seconds, as sent in `X-Pharos-Timestamp`
 */
export function webhookSignature(secret: string, timestamp: number, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/**
 * A generic webhook channel: each message is one `POST <url>` with the JSON body
 *
 * ```json
 * { "event": "outage.alert" | "outage.recovery" | "pharos.notice",
 *   "title": "DOWN: API (https://api.example.com)", "text": "…",
 *   "outage": { "uuid", "incidentNumber", "description", "severity", "startDate", "endDate",
 *               "durationMs", "monitor": { "uuid", "name", "url", "protocol" } | null } | null,
 *   "escalation": { "policyUuid", "policyName", "step", "totalSteps" } | null,
 *   "link": "https://…" | null, "createdAt": "2025-01-01T00:00:00.000Z" }
 * ```
 *
 * and the headers `content-type: application/json`, `user-agent: Pharos`, then `config.headers`
 * (which may override those two), then, when `config.secret` is set, `X-Pharos-Timestamp` (Unix
 * seconds) and `X-Pharos-Signature` (see {@link webhookSignature}).
 *
 * `send` throws ChannelError as described in `http-post.ts` (5xx/408/429/network: retryable; other
 * 4xx: permanent); messages name only the URL's host.
 */
export function createWebhookChannel(config: WebhookConfig): Channel {
  const poster = createJsonPoster({ label: `webhook ${config.name}`, url: config.url, timeoutSeconds: config.timeout_seconds });
  const baseHeaders: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Pharos' };
  for (const [name, value] of Object.entries(config.headers)) baseHeaders[name.toLowerCase()] = value;

  return {
    name: config.name,
    async send(message) {
      const body = JSON.stringify(webhookPayload(message));
      const headers = { ...baseHeaders };
      if (config.secret !== undefined) {
        const timestamp = Math.floor(Date.now() / 1000);
        headers['x-pharos-timestamp'] = String(timestamp);
        headers['x-pharos-signature'] = webhookSignature(config.secret, timestamp, body);
      }
      await poster.post(body, headers);
    },
    close: () => poster.close(),
  };
}
