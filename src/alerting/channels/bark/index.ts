import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import { cut, joinUrl, jsonRequest, plainBody } from '../render.ts';
import { ChannelError, type AlertMessage, type Channel, type ChannelPlugin } from '../types.ts';

/** The JSON body of bark-server's `POST /push` (API v2). */
export interface BarkPayload {
  device_key: string;
  title: string;
  body: string;
  level: ChannelConfigOf<'bark'>['level'];
  group: string;
  url?: string;
  sound?: string;
  icon?: string;
}

/**
 * Renders a message for Bark: title, the text and facts as body (the console link is the
 * notification's `url`, opened on tap), the configured level for alerts (`active` otherwise).
 */
export function barkPayload(message: AlertMessage, config: Pick<ChannelConfigOf<'bark'>, 'device_key' | 'level' | 'group' | 'sound' | 'icon'>): BarkPayload {
  return {
    device_key: config.device_key,
    title: cut(message.title || 'Pharos', 250),
    body: cut(plainBody(message, { link: false }), 4000),
    level: message.kind === 'alert' ? config.level : 'active',
    group: config.group,
    ...(message.link ? { url: message.link } : {}),
    ...(config.sound ? { sound: config.sound } : {}),
    ...(config.icon ? { icon: config.icon } : {}),
  };
}

/**
 * A Bark channel: `POST <server>/push` with {@link barkPayload}
 * (https://github.com/Finb/bark-server/blob/master/docs/API_V2.md). bark-server answers 400 for
 * an unknown device key, quoting the key: the answer a failure carries has it replaced by `***`.
 */
export function createBarkChannel(config: ChannelConfigOf<'bark'>): Channel {
  const http = createHttpSender({ label: `bark ${config.name}`, timeoutSeconds: config.timeout_seconds });
  const url = joinUrl(config.server, 'push');
  return {
    name: config.name,
    async send(message, delivery) {
      try {
        return await http.request(jsonRequest(url, barkPayload(message, config)), delivery);
      } catch (e) {
        if (!(e instanceof ChannelError) || !e.answer) throw e;
        const body = e.answer.body.split(config.device_key).join('***');
        throw new ChannelError(e.message, e.permanent, { status: e.answer.status, body });
      }
    },
    close: () => http.close(),
  };
}

/** The Bark plugin. */
export const bark: ChannelPlugin<'bark'> = {
  create: createBarkChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'bark', server: base, device_key: 'kSECRET123', level: 'timeSensitive', group: 'Pharos', timeout_seconds: 5 }),
  secrets: ['SECRET123'],
};
