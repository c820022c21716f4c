import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import { facts, jsonRequest } from '../render.ts';
import type { AlertMessage, Channel, ChannelPlugin } from '../types.ts';

/** The JSON body of a Google Chat webhook message, threaded per outage. */
export interface GoogleChatPayload {
  text: string;
  thread?: { threadKey: string };
}

/**
 * Renders a message in Google Chat's text format: `*title*`, the text, facts, and
 * `<link|Open in Pharos>`; alerts, acknowledgements and the recovery of one outage share a thread
 * (`threadKey` = the outage's uuid).
 */
export function googleChatPayload(message: AlertMessage): GoogleChatPayload {
  const lines = facts(message)
    .filter((f) => f.label !== 'Link')
    .map((f) => `*${f.label}:* ${f.value}`);
  const text = [`*${message.title}*`, message.text, ...lines, ...(message.link ? [`<${message.link}|Open in Pharos>`] : [])].join('\n');
  return { text, ...(message.outage ? { thread: { threadKey: message.outage.uuid } } : {}) };
}

/**
 * A Google Chat channel: `POST <webhook url>&messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD`
 * with {@link googleChatPayload}. Errors name the host only: key and token are in the query.
 */
export function createGoogleChatChannel(config: ChannelConfigOf<'googlechat'>): Channel {
  const http = createHttpSender({ label: `googlechat ${config.name}`, timeoutSeconds: config.timeout_seconds });
  const url = new URL(config.url);
  url.searchParams.set('messageReplyOption', 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD');
  return {
    name: config.name,
    send: (message, delivery) => http.request(jsonRequest(url.href, googleChatPayload(message), { 'content-type': 'application/json; charset=UTF-8' }), delivery),
    close: () => http.close(),
  };
}

/** The Google Chat plugin. */
export const googlechat: ChannelPlugin<'googlechat'> = {
  create: createGoogleChatChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'googlechat', url: `${base}/v1/spaces/AAAA/messages?key=SECRET111&token=SECRET123`, timeout_seconds: 5 }),
  secrets: ['SECRET111', 'SECRET123'],
};
