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
 * The event for a message. The `dedup_key` is the outage's uuid, so PagerDuty keeps one alert per
 * outage: an alert (and its escalation repeats) triggers, acknowledging in Pharos acknowledges,
 * the recovery resolves. A notice (no outage) triggers an `info` event keyed by its delivery id.
 * Severity: critical → critical, major → error, minor → warning.
 */
export function pagerDutyEvent(message: AlertMessage, routingKey: string, deliveryId: string): PagerDutyEvent {
  const o = message.outage;
  if (o && (message.kind === 'recovery' || message.kind === 'acknowledge')) {
    return { routing_key: routingKey, event_action: message.kind === 'recovery' ? 'resolve' : 'acknowledge', dedup_key: o.uuid };
  }
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: o?.uuid ?? deliveryId,
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
