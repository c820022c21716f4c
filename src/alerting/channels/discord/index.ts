import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import { KIND_COLORS, cut, facts, jsonRequest } from '../render.ts';
import type { AlertMessage, Channel, ChannelPlugin } from '../types.ts';

/** The JSON body of a Discord webhook execution (one embed). */
export interface DiscordPayload {
  username?: string;
  allowed_mentions: { parse: [] };
  embeds: [
    {
      title: string;
      description: string;
      url?: string;
      color: number;
      fields: { name: string; value: string; inline: boolean }[];
      timestamp: string;
      footer: { text: 'Pharos' };
    },
  ];
}

/**
 * Renders a message as one Discord embed: title (≤256), text (≤4096), the message's facts as
 * inline fields (≤1024 each, the link as the embed's `url`), the kind's color, `createdAt` as
 * timestamp. Mentions are disabled (`allowed_mentions.parse: []`) so a monitor name cannot ping
 * `@everyone`.
 */
export function discordPayload(message: AlertMessage, username?: string): DiscordPayload {
  return {
    ...(username ? { username } : {}),
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title: cut(message.title || 'Pharos', 256),
        description: cut(message.text, 4096),
        ...(message.link ? { url: message.link } : {}),
        color: Number.parseInt(KIND_COLORS[message.kind].slice(1), 16),
        fields: facts(message)
          .slice(0, 25)
          .map((f) => ({ name: f.label, value: cut(f.value, 1024), inline: f.label !== 'Link' && f.label !== 'Cause' })),
        timestamp: message.createdAt,
        footer: { text: 'Pharos' },
      },
    ],
  };
}

/**
 * A Discord channel: `POST <webhook url>?wait=true` (Discord then answers 200 with the message it
 * created, instead of an empty 204) with {@link discordPayload}. Errors name the host only: the
 * webhook token is in the path.
 */
export function createDiscordChannel(config: ChannelConfigOf<'discord'>): Channel {
  const http = createHttpSender({ label: `discord ${config.name}`, timeoutSeconds: config.timeout_seconds });
  const url = new URL(config.url);
  url.searchParams.set('wait', 'true');
  return {
    name: config.name,
    send: (message, delivery) => http.request(jsonRequest(url.href, discordPayload(message, config.username)), delivery),
    close: () => http.close(),
  };
}

/** The Discord plugin. */
export const discord: ChannelPlugin<'discord'> = {
  create: createDiscordChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'discord', url: `${base}/api/webhooks/123456/SECRET123`, timeout_seconds: 5 }),
  secrets: ['SECRET123'],
};
