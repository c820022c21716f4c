import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import { cut, joinUrl, jsonRequest, plainBody } from '../render.ts';
import type { AlertKind, AlertMessage, Channel, ChannelPlugin } from '../types.ts';

const KIND_TAGS: Record<AlertKind, string> = { alert: 'rotating_light', recovery: 'white_check_mark', acknowledge: 'eyes', notice: 'information_source' };

/** The JSON body of an ntfy publish (`POST /` with the topic in the body). */
export interface NtfyPayload {
  topic: string;
  title: string;
  message: string;
  priority: number;
  tags: string[];
  click?: string;
}

/**
 * Renders a message for ntfy: the title, the text and facts as message (≤4000), the configured
 * priority for alerts (3, default, otherwise), the kind's emoji tag then the configured tags, and
 * the console link as `click`.
 */
export function ntfyPayload(message: AlertMessage, config: Pick<ChannelConfigOf<'ntfy'>, 'topic' | 'priority' | 'tags'>): NtfyPayload {
  return {
    topic: config.topic,
    title: cut(message.title || 'Pharos', 250),
    message: cut(plainBody(message), 4000),
    priority: message.kind === 'alert' ? config.priority : 3,
    tags: [KIND_TAGS[message.kind], ...config.tags],
    ...(message.link ? { click: message.link } : {}),
  };
}

/** An ntfy channel: `POST <server>/` with {@link ntfyPayload}; `Authorization: Bearer <token>` when set. */
export function createNtfyChannel(config: ChannelConfigOf<'ntfy'>): Channel {
  const http = createHttpSender({ label: `ntfy ${config.name}`, timeoutSeconds: config.timeout_seconds });
  const auth: Record<string, string> = config.token ? { authorization: `Bearer ${config.token}` } : {};
  return {
    name: config.name,
    send: (message, delivery) => http.request(jsonRequest(joinUrl(config.server, ''), ntfyPayload(message, config), auth), delivery),
    close: () => http.close(),
  };
}

/** The ntfy plugin. */
export const ntfy: ChannelPlugin<'ntfy'> = {
  create: createNtfyChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'ntfy', server: base, topic: 'pharos-alerts', priority: 5, tags: ['pharos'], token: 'tk_SECRET123', timeout_seconds: 5 }),
  secrets: ['SECRET123'],
};
