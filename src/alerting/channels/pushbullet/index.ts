import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import { cut, joinUrl, jsonRequest, plainBody } from '../render.ts';
import type { AlertMessage, Channel, ChannelPlugin } from '../types.ts';

/** The JSON body of Pushbullet's `POST /v2/pushes` (a `link` push, or a `note` without a link). */
export interface PushbulletPayload {
  type: 'note' | 'link';
  title: string;
  body: string;
  url?: string;
  device_iden?: string;
  email?: string;
  channel_tag?: string;
}

/**
 * Renders a message as a push: a `link` push to the console when there is a link (a `note`
 * otherwise), the title, the text and facts as body (the link is the push's `url`, not repeated),
 * and the configured target.
 */
export function pushbulletPayload(message: AlertMessage, config: Pick<ChannelConfigOf<'pushbullet'>, 'device_iden' | 'email' | 'channel_tag'>): PushbulletPayload {
  return {
    type: message.link ? 'link' : 'note',
    title: cut(message.title || 'Pharos', 250),
    body: cut(plainBody(message, { link: false }), 4000),
    ...(message.link ? { url: message.link } : {}),
    ...(config.device_iden ? { device_iden: config.device_iden } : {}),
    ...(config.email ? { email: config.email } : {}),
    ...(config.channel_tag ? { channel_tag: config.channel_tag } : {}),
  };
}

/**
 * A Pushbullet channel: `POST <api_url>/v2/pushes` with `Access-Token: <token>` and
 * {@link pushbulletPayload} (https://docs.pushbullet.com/#create-push). A bad token answers 401
 * (permanent); rate limiting 429 (retried).
 */
export function createPushbulletChannel(config: ChannelConfigOf<'pushbullet'>): Channel {
  const http = createHttpSender({ label: `pushbullet ${config.name}`, timeoutSeconds: config.timeout_seconds });
  const url = joinUrl(config.api_url, 'v2/pushes');
  return {
    name: config.name,
    send: (message, delivery) => http.request(jsonRequest(url, pushbulletPayload(message, config), { 'access-token': config.access_token }), delivery),
    close: () => http.close(),
  };
}

/** The Pushbullet plugin. */
export const pushbullet: ChannelPlugin<'pushbullet'> = {
  create: createPushbulletChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'pushbullet', access_token: 'o.SECRET123', api_url: base, timeout_seconds: 5 }),
  secrets: ['SECRET123'],
};
