import { createHmac } from 'node:crypto';
import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import type { AlertKind, AlertMessage, Channel, ChannelPlugin } from '../types.ts';
import { renderTemplate } from './template.ts';

/** A `type: webhook` channel as parsed from config.yaml (defaults applied). */
export type WebhookConfig = ChannelConfigOf<'webhook'>;

/** The `event` of a webhook payload, one per {@link AlertKind}. */
export type WebhookEvent = 'outage.alert' | 'outage.recovery' | 'outage.acknowledged' | 'pharos.notice';

const EVENTS: Record<AlertKind, WebhookEvent> = { alert: 'outage.alert', recovery: 'outage.recovery', acknowledge: 'outage.acknowledged', notice: 'pharos.notice' };

/**
 * The JSON body of a webhook request. `outage` and `escalation` are exactly the
 * {@link AlertMessage} fields (times ISO 8601, `durationMs` in milliseconds), null when absent.
 */
export interface WebhookPayload {
  event: WebhookEvent;
  /** The delivery's idempotency id (also the `Idempotency-Key` header): drop a repeat of one you have. */
  deliveryId: string;
  title: string;
  text: string;
  outage: AlertMessage['outage'];
  escalation: AlertMessage['escalation'];
  link: string | null;
  /** ISO 8601. */
  createdAt: string;
}

/** Builds the {@link WebhookPayload} for one message and delivery. */
export function webhookPayload(message: AlertMessage, deliveryId: string): WebhookPayload {
  return {
    event: EVENTS[message.kind],
    deliveryId,
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
 * { "event": "outage.alert" | "outage.acknowledged" | "outage.recovery" | "pharos.notice", "deliveryId": "dlv_…",
 *   "title": "DOWN: API (https://api.example.com)", "text": "…",
 *   "outage": { "uuid", "incidentNumber", "description", "severity", "startDate", "endDate",
 *               "durationMs", "monitor": { "uuid", "name", "url", "protocol" } | null } | null,
 *   "escalation": { "policyUuid", "policyName", "step", "totalSteps", "repeat" } | null,
 *   "link": "https://…" | null, "createdAt": "2025-01-01T00:00:00.000Z" }
 * ```
 *
 * — or, with `body_template`, that Mustache template rendered over {@link templateView} and sent
 * as `content_type` — and the headers `content-type`, `user-agent: Pharos`, `idempotency-key:
 * <deliveryId>`, then `config.headers` (which may override those), then, when `config.secret` is
 * set, `X-Pharos-Timestamp` (Unix seconds) and `X-Pharos-Signature` (see {@link webhookSignature}).
 *
 * `send` throws ChannelError as described in `http.ts` (5xx/408/429/network: retryable; other
 * 4xx: permanent); messages name only the URL's host.
 */
export function createWebhookChannel(config: WebhookConfig): Channel {
  const http = createHttpSender({ label: `webhook ${config.name}`, timeoutSeconds: config.timeout_seconds });
  const contentType = (config.body_template !== undefined && config.content_type) || 'application/json';
  const baseHeaders: Record<string, string> = { 'content-type': contentType };
  for (const [name, value] of Object.entries(config.headers)) baseHeaders[name.toLowerCase()] = value;

  return {
    name: config.name,
    async send(message, delivery) {
      const payload = webhookPayload(message, delivery.deliveryId);
      const body = config.body_template !== undefined ? renderTemplate(config.body_template, payload, contentType) : JSON.stringify(payload);
      const headers = { ...baseHeaders };
      if (config.secret !== undefined) {
        const timestamp = Math.floor(Date.now() / 1000);
        headers['x-pharos-timestamp'] = String(timestamp);
        headers['x-pharos-signature'] = webhookSignature(config.secret, timestamp, body);
      }
      return http.request({ url: config.url, headers, body }, delivery);
    },
    close: () => http.close(),
  };
}

/** The generic webhook plugin. */
export const webhook: ChannelPlugin<'webhook'> = {
  create: createWebhookChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'webhook', url: `${base}/hooks/SECRET123?sig=SECRET456`, headers: {}, timeout_seconds: 5 }),
  secrets: ['SECRET123', 'SECRET456'],
};
