import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import { cut, joinUrl, jsonRequest, plainBody } from '../render.ts';
import type { AlertMessage, Channel, ChannelPlugin } from '../types.ts';

/** The JSON body of Gotify's `POST /message`. */
export interface GotifyPayload {
  title: string;
  message: string;
  priority: number;
  extras: { 'client::display': { contentType: 'text/plain' }; 'client::notification'?: { click: { url: string } } };
}

/** Renders a message for Gotify: plain text, alerts at the configured priority, others at half of it. */
export function gotifyPayload(message: AlertMessage, priority: number): GotifyPayload {
  return {
    title: cut(message.title || 'Pharos', 250),
    message: plainBody(message),
    priority: message.kind === 'alert' ? priority : Math.floor(priority / 2),
    extras: { 'client::display': { contentType: 'text/plain' }, ...(message.link ? { 'client::notification': { click: { url: message.link } } } : {}) },
  };
}

/** A Gotify channel: `POST <server>/message` with `X-Gotify-Key: <token>` and {@link gotifyPayload}. */
export function createGotifyChannel(config: ChannelConfigOf<'gotify'>): Channel {
  const http = createHttpSender({ label: `gotify ${config.name}`, timeoutSeconds: config.timeout_seconds });
  const url = joinUrl(config.server, 'message');
  return {
    name: config.name,
    send: (message, delivery) => http.request(jsonRequest(url, gotifyPayload(message, config.priority), { 'x-gotify-key': config.token }), delivery),
    close: () => http.close(),
  };
}

/** The Gotify plugin. */
export const gotify: ChannelPlugin<'gotify'> = {
  create: createGotifyChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'gotify', server: base, token: 'ASECRET123', priority: 8, timeout_seconds: 5 }),
  secrets: ['SECRET123'],
};
