import { createHash } from 'node:crypto';
import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import { cut, joinUrl, jsonRequest, plainBody } from '../render.ts';
import type { AlertMessage, Channel, ChannelPlugin, Delivery } from '../types.ts';

/** The JSON body of Talk's "Sending a new chat message". */
export interface NextcloudTalkPayload {
  message: string;
  /** At most 64 characters; Talk returns it with the message, so a repeat can be recognised. */
  referenceId: string;
}

/**
 * Renders a message for Talk: the title, a blank line, the text and facts (plain; Talk links URLs
 * itself), cut to Talk's 32,000 characters; `referenceId` is the SHA-256 (hex) of the delivery id,
 * the same on every attempt of one delivery.
 */
export function nextcloudTalkPayload(message: AlertMessage, delivery: Delivery): NextcloudTalkPayload {
  return {
    message: cut(`${message.title || 'Pharos'}\n\n${plainBody(message)}`, 32_000),
    referenceId: createHash('sha256').update(delivery.deliveryId).digest('hex'),
  };
}

/**
 * A Nextcloud Talk channel: `POST <base_url>/ocs/v2.php/apps/spreed/api/v1/chat/<conversation>`
 * with `OCS-APIRequest: true`, `Accept: application/json`, basic auth of `user` and its app
 * password, and {@link nextcloudTalkPayload}
 * (https://nextcloud-talk.readthedocs.io/en/latest/chat/). Talk answers 201; 404 for an unknown
 * conversation or a user not in it, 401 for a bad login, 413 for a message too long (permanent).
 */
export function createNextcloudTalkChannel(config: ChannelConfigOf<'nextcloudtalk'>): Channel {
  const http = createHttpSender({ label: `nextcloudtalk ${config.name}`, timeoutSeconds: config.timeout_seconds });
  const url = joinUrl(config.base_url, `ocs/v2.php/apps/spreed/api/v1/chat/${config.conversation}`);
  const headers = {
    'ocs-apirequest': 'true',
    accept: 'application/json',
    authorization: `Basic ${Buffer.from(`${config.user}:${config.password}`).toString('base64')}`,
  };
  return {
    name: config.name,
    send: (message, delivery) => http.request(jsonRequest(url, nextcloudTalkPayload(message, delivery), headers), delivery),
    close: () => http.close(),
  };
}

/** The Nextcloud Talk plugin. */
export const nextcloudtalk: ChannelPlugin<'nextcloudtalk'> = {
  create: createNextcloudTalkChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'nextcloudtalk', base_url: base, conversation: 'a1b2c3d4', user: 'pharos', password: 'pwSECRET123', timeout_seconds: 5 }),
  secrets: ['SECRET123'],
};
