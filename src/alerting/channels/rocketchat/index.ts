import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import { KIND_COLORS, facts, jsonRequest } from '../render.ts';
import type { AlertMessage, Channel, ChannelPlugin } from '../types.ts';

/** The JSON body of a Rocket.Chat incoming webhook (text plus one attachment). */
export interface RocketChatPayload {
  text: string;
  channel?: string;
  alias?: string;
  emoji?: string;
  attachments: { title: string; title_link?: string; text: string; color: string; fields: { short: boolean; title: string; value: string }[] }[];
}

/** Renders a message as Rocket.Chat text (the title) and one attachment: linked title, text, color, facts. */
export function rocketChatPayload(message: AlertMessage, config: Pick<ChannelConfigOf<'rocketchat'>, 'channel' | 'alias' | 'emoji'>): RocketChatPayload {
  return {
    text: message.title,
    ...(config.channel ? { channel: config.channel } : {}),
    ...(config.alias ? { alias: config.alias } : {}),
    ...(config.emoji ? { emoji: config.emoji } : {}),
    attachments: [
      {
        title: message.title,
        ...(message.link ? { title_link: message.link } : {}),
        text: message.text,
        color: KIND_COLORS[message.kind],
        fields: facts(message).map((f) => ({ short: f.label !== 'Cause' && f.label !== 'Link', title: f.label, value: f.value })),
      },
    ],
  };
}

/**
 * A Rocket.Chat channel: `POST <webhook url>` with {@link rocketChatPayload}
 * (https://docs.rocket.chat/docs/integrations). A wrong id or token answers 400 (permanent).
 */
export function createRocketChatChannel(config: ChannelConfigOf<'rocketchat'>): Channel {
  const http = createHttpSender({ label: `rocketchat ${config.name}`, timeoutSeconds: config.timeout_seconds });
  return {
    name: config.name,
    send: (message, delivery) => http.request(jsonRequest(config.url, rocketChatPayload(message, config)), delivery),
    close: () => http.close(),
  };
}

/** The Rocket.Chat plugin. */
export const rocketchat: ChannelPlugin<'rocketchat'> = {
  create: createRocketChatChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'rocketchat', url: `${base}/hooks/abc/SECRET123`, channel: '#ops', timeout_seconds: 5 }),
  secrets: ['SECRET123'],
};
