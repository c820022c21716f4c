import { alertTracking } from '../../../domain/alert.ts';
import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender, type HttpRequest } from '../http.ts';
import { cut, facts, joinUrl, jsonRequest, plainBody } from '../render.ts';
import type { AlertMessage, Channel, ChannelPlugin } from '../types.ts';

const PRIORITY = { critical: 'P1', major: 'P2', minor: 'P3' } as const;

/**
 * The Alert API request for a message (Opsgenie Alert API, https://docs.opsgenie.com/docs/alert-api:
 * `alias` de-duplicates, only one open alert per alias, at most 512 chars; acknowledge and close
 * address an alert by alias with `identifierType=alias`). The alias and action come from
 * {@link alertTracking}: the outage's uuid for an outage, the notice's key for a notice about
 * something that ends (`cert:<monitor>:<threshold>`, `flood:<region>`), else its delivery id.
 * - alert / notice: `POST /v2/alerts` `{message (≤130), alias, description, priority, source:
 *   "Pharos", entity, details, responders}` (critical → P1, major → P2, minor → P3, a notice P5);
 * - acknowledge: `POST /v2/alerts/<alias>/acknowledge?identifierType=alias` `{source, note}`;
 * - recovery, a notice's end: `POST /v2/alerts/<alias>/close?identifierType=alias` `{source, note}`.
 */
export function opsgenieRequest(message: AlertMessage, config: Pick<ChannelConfigOf<'opsgenie'>, 'api_url' | 'teams'>, deliveryId: string): Omit<HttpRequest, 'headers'> & { headers: Record<string, string> } {
  const o = message.outage;
  const tracking = alertTracking(message);
  if (tracking && tracking.action !== 'trigger') {
    const action = tracking.action === 'resolve' ? 'close' : 'acknowledge';
    return jsonRequest(joinUrl(config.api_url, `v2/alerts/${encodeURIComponent(tracking.key)}/${action}?identifierType=alias`), { source: 'Pharos', note: cut(message.text, 25_000) });
  }
  return jsonRequest(joinUrl(config.api_url, 'v2/alerts'), {
    message: cut(message.title || 'Pharos', 130),
    alias: tracking?.key ?? deliveryId,
    description: cut(plainBody(message), 15_000),
    priority: o ? PRIORITY[o.severity] : 'P5',
    source: 'Pharos',
    ...(o?.monitor ? { entity: cut(o.monitor.name, 512) } : {}),
    details: Object.fromEntries(facts(message).map((f) => [f.label.toLowerCase(), cut(f.value, 8_000)])),
    ...(config.teams.length > 0 ? { responders: config.teams.map((name) => ({ type: 'team', name })) } : {}),
  });
}

/**
 * An Opsgenie channel (header `Authorization: GenieKey <api_key>`). Opsgenie answers 202
 * `{result, took, requestId}`; 4xx (bad key, invalid alert) is permanent, 429 and 5xx are retried.
 */
export function createOpsgenieChannel(config: ChannelConfigOf<'opsgenie'>): Channel {
  const http = createHttpSender({ label: `opsgenie ${config.name}`, timeoutSeconds: config.timeout_seconds });
  return {
    name: config.name,
    send(message, delivery) {
      const req = opsgenieRequest(message, config, delivery.deliveryId);
      return http.request({ ...req, headers: { ...req.headers, authorization: `GenieKey ${config.api_key}` } }, delivery);
    },
    close: () => http.close(),
  };
}

/** The Opsgenie plugin. */
export const opsgenie: ChannelPlugin<'opsgenie'> = {
  create: createOpsgenieChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'opsgenie', api_key: 'key-SECRET123', api_url: base, teams: ['ops'], timeout_seconds: 5 }),
  secrets: ['SECRET123'],
};
