import { z } from 'zod';
import { urlTarget } from '../target.ts';
import type { ProtocolDefinition } from '../types.ts';

const fields = {
  ws_send: z.string({ error: 'must be a string or null' }).max(4096, 'must be at most 4096 characters').nullable(),
  ws_expected: z.string({ error: 'must be a string or null' }).max(1024, 'must be at most 1024 characters').nullable(),
};

/**
 * websocket: the HTTP upgrade of `url` (`ws://` or `wss://`, TLS verified with the system's roots)
 * must be answered `101 Switching Protocols` with the right `Sec-WebSocket-Accept`; then, optionally,
 * `ws_send` is sent as a text message and a message containing `ws_expected` must come back within
 * the timeout (null `ws_send`: wait for one the server sends by itself).
 */
export const websocket = {
  fields,
  defaults: { ws_send: null as string | null, ws_expected: null as string | null },
  urlMeaning: 'a WebSocket URL ws://host/path or wss://host/path',
  label: 'WebSocket',
  target: (url) => urlTarget(url, ['ws:', 'wss:'], 'a WebSocket URL ws://… or wss://…'),
  loadProbe: async () => (await import('./probe.ts')).websocketProbe,
} satisfies ProtocolDefinition<typeof fields>;
