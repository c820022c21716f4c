import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import { cut, joinUrl, jsonRequest, plainBody } from '../render.ts';
import type { AlertMessage, Channel, ChannelPlugin } from '../types.ts';

/** The JSON body of signal-cli-rest-api's `POST /v2/send`. */
export interface SignalPayload {
  message: string;
  number: string;
  recipients: string[];
  text_mode: 'normal';
}

/** Renders a message for Signal: the title, a blank line, the text and facts (plain, ≤4000). */
export function signalPayload(message: AlertMessage, config: Pick<ChannelConfigOf<'signal'>, 'number' | 'recipients'>): SignalPayload {
  return {
    message: cut(`${message.title || 'Pharos'}\n\n${plainBody(message)}`, 4000),
    number: config.number,
    recipients: config.recipients,
    text_mode: 'normal',
  };
}

/**
 * A Signal channel: `POST <base_url>/v2/send` with {@link signalPayload}, and basic auth when
 * `basic_auth` is set (https://github.com/bbernhard/signal-cli-rest-api). The API answers 201 when
 * signal-cli sent the message and 400 with `{"error": …}` when it refused (permanent).
 */
export function createSignalChannel(config: ChannelConfigOf<'signal'>): Channel {
  const http = createHttpSender({ label: `signal ${config.name}`, timeoutSeconds: config.timeout_seconds });
  const url = joinUrl(config.base_url, 'v2/send');
  const auth: Record<string, string> = config.basic_auth
    ? { authorization: `Basic ${Buffer.from(`${config.basic_auth.user}:${config.basic_auth.password}`).toString('base64')}` }
    : {};
  return {
    name: config.name,
    send: (message, delivery) => http.request(jsonRequest(url, signalPayload(message, config), auth), delivery),
    close: () => http.close(),
  };
}

/** The Signal plugin. */
export const signal: ChannelPlugin<'signal'> = {
  create: createSignalChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'signal', base_url: base, number: '+15550001111', recipients: ['+15552223333'], basic_auth: { user: 'pharos', password: 'pwSECRET123' }, timeout_seconds: 5 }),
  secrets: ['SECRET123'],
};
