import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import { KIND_COLORS, facts, jsonRequest } from '../render.ts';
import type { AlertMessage, Channel, ChannelPlugin } from '../types.ts';

/** The JSON body of a Mattermost incoming webhook (one message attachment). */
export interface MattermostPayload {
  username?: string;
  channel?: string;
  attachments: { fallback: string; color: string; title: string; title_link?: string; text: string; fields: { title: string; value: string; short: boolean }[] }[];
}

/** Renders a message as one Mattermost attachment: title (linked to the console), text, facts. */
export function mattermostPayload(message: AlertMessage, config: Pick<ChannelConfigOf<'mattermost'>, 'username' | 'channel'>): MattermostPayload {
  return {
    ...(config.username ? { username: config.username } : {}),
    ...(config.channel ? { channel: config.channel } : {}),
    attachments: [
      {
        fallback: message.title,
        color: KIND_COLORS[message.kind],
        title: message.title,
        ...(message.link ? { title_link: message.link } : {}),
        text: message.text,
        fields: facts(message).map((f) => ({ title: f.label, value: f.value, short: f.label !== 'Cause' && f.label !== 'Link' })),
      },
    ],
  };
}

/** A Mattermost channel: `POST <webhook url>` with {@link mattermostPayload}. */
export function createMattermostChannel(config: ChannelConfigOf<'mattermost'>): Channel {
  const http = createHttpSender({ label: `mattermost ${config.name}`, timeoutSeconds: config.timeout_seconds });
  return {
    name: config.name,
    send: (message, delivery) => http.request(jsonRequest(config.url, mattermostPayload(message, config)), delivery),
    close: () => http.close(),
  };
}

/** The Mattermost plugin. */
export const mattermost: ChannelPlugin<'mattermost'> = {
  create: createMattermostChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'mattermost', url: `${base}/hooks/SECRET123`, channel: 'ops', timeout_seconds: 5 }),
  secrets: ['SECRET123'],
};
