import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import { cut, joinUrl, jsonRequest, plainBody } from '../render.ts';
import type { AlertMessage, Channel, ChannelPlugin } from '../types.ts';

/**
 * Renders a message for Pushover's `POST /1/messages.json`: `token`, `user`, `title` (≤250),
 * `message` (≤1024, plain), `priority` (the configured one for alerts, 0 otherwise), the console
 * link as `url` with `url_title: "Open in Pharos"`, `timestamp` (Unix s), and `device`/`sound`
 * when configured.
 */
export function pushoverPayload(message: AlertMessage, config: ChannelConfigOf<'pushover'>): Record<string, unknown> {
  return {
    token: config.app_token,
    user: config.user_key,
    title: cut(message.title || 'Pharos', 250),
    message: cut(plainBody(message, { link: false }), 1024),
    priority: message.kind === 'alert' ? config.priority : 0,
    timestamp: Math.floor(Date.parse(message.createdAt) / 1000),
    ...(message.link ? { url: message.link, url_title: 'Open in Pharos' } : {}),
    ...(config.device ? { device: config.device } : {}),
    ...(config.sound ? { sound: config.sound } : {}),
  };
}

/**
 * A Pushover channel. Pushover answers 4xx with `{status: 0, errors: [...]}` for a bad token or
 * user (permanent) and 5xx when it is down (retried).
 */
export function createPushoverChannel(config: ChannelConfigOf<'pushover'>): Channel {
  const http = createHttpSender({ label: `pushover ${config.name}`, timeoutSeconds: config.timeout_seconds });
  const url = joinUrl(config.api_url, '1/messages.json');
  return {
    name: config.name,
    send: (message, delivery) => http.request(jsonRequest(url, pushoverPayload(message, config)), delivery),
    close: () => http.close(),
  };
}

/** The Pushover plugin. */
export const pushover: ChannelPlugin<'pushover'> = {
  create: createPushoverChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'pushover', user_key: 'uSECRET111', app_token: 'aSECRET123', priority: 1, api_url: base, timeout_seconds: 5 }),
  secrets: ['SECRET111', 'SECRET123'],
};
