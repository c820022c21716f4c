import { alertTracking } from '../../../domain/alert.ts';
import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import { cut, facts, joinUrl, jsonRequest } from '../render.ts';
import type { AlertMessage, Channel, ChannelPlugin } from '../types.ts';

/** An Events API v2 event. */
export type PagerDutyEvent =
  | {
      routing_key: string;
      event_action: 'trigger';
      dedup_key: string;
      payload: { summary: string; source: string; severity: 'critical' | 'error' | 'warning' | 'info'; timestamp: string; component?: string; custom_details: Record<string, string> };
      links: { href: string; text: string }[];
      client: 'Pharos';
      client_url?: string;
    }
  | { routing_key: string; event_action: 'acknowledge' | 'resolve'; dedup_key: string };

const SEVERITY = { critical: 'critical', major: 'error', minor: 'warning' } as const;

/**
 * The event for a message (PagerDuty Events API v2, https://developer.pagerduty.com/docs/events-api-v2/trigger-events/
 * and …/resolve-events/: events with the same `dedup_key` act on one alert; `acknowledge` and
 * `resolve` need only `routing_key`, `event_action` and `dedup_key`; a key is at most 255 chars).
 * The key and action come from {@link alertTracking}: an outage's alert (and its escalation
 * repeats) triggers under the outage's uuid, acknowledging in Pharos acknowledges, the recovery
 * resolves; a notice about something that ends (`cert:<monitor>:<threshold>`, `flood:<region>`)
 * triggers an `info` event under its key and its end resolves it. A one-off notice triggers an
 * `info` event keyed by its delivery id. Severity: critical → critical, major → error, minor → warning.
 */
export function pagerDutyEvent(message: AlertMessage, routingKey: string, deliveryId: string): PagerDutyEvent {
  const o = message.outage;
  const tracking = alertTracking(message);
  if (tracking && tracking.action !== 'trigger') return { routing_key: routingKey, event_action: tracking.action, dedup_key: tracking.key };
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: tracking?.key ?? deliveryId,
    payload: {
      summary: cut(message.title || 'Pharos', 1024),
      source: o?.monitor?.url || o?.monitor?.name || 'pharos',
      severity: o ? SEVERITY[o.severity] : 'info',
      timestamp: o?.startDate ?? message.createdAt,
      ...(o?.monitor ? { component: o.monitor.name } : {}),
      custom_details: Object.fromEntries([['text', message.text], ...facts(message).map((f) => [f.label.toLowerCase(), f.value])]),
    },
    links: message.link ? [{ href: message.link, text: 'Open in Pharos' }] : [],
    client: 'Pharos',
    ...(message.link ? { client_url: message.link } : {}),
  };
}

/**
 * A PagerDuty channel: `POST <api_url>/v2/enqueue` with {@link pagerDutyEvent}. PagerDuty answers
 * 202 `{status, message, dedup_key}`; 400 (invalid event, bad routing key) is permanent, 429 and
 * 5xx are retried.
 */
export function createPagerDutyChannel(config: ChannelConfigOf<'pagerduty'>): Channel {
  const http = createHttpSender({ label: `pagerduty ${config.name}`, timeoutSeconds: config.timeout_seconds });
  const url = joinUrl(config.api_url, 'v2/enqueue');
  return {
    name: config.name,
    send: (message, delivery) => http.request(jsonRequest(url, pagerDutyEvent(message, config.routing_key, delivery.deliveryId)), delivery),
    close: () => http.close(),
  };
}

/** The PagerDuty plugin. */
export const pagerduty: ChannelPlugin<'pagerduty'> = {
  create: createPagerDutyChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'pagerduty', routing_key: 'R0SECRET123', api_url: base, timeout_seconds: 5 }),
  secrets: ['SECRET123'],
};
