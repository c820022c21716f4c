import { urlTarget } from '../target.ts';
import type { ProtocolDefinition } from '../types.ts';

const fields = {};

/**
 * redis: connect to `url` (`redis://[user:password@]host:port[/db]`, or `rediss://` for TLS; port
 * 6379 by default), authenticate, `PING`; up on `PONG`.
 */
export const redis = {
  fields,
  defaults: {},
  urlMeaning: 'a connection URL redis://user:password@host:port/db (rediss:// for TLS)',
  label: 'Redis',
  target: (url) => urlTarget(url, ['redis:', 'rediss:'], 'a connection URL redis://user:password@host:port/db', 6379),
  loadProbe: async () => (await import('./probe.ts')).redisProbe,
} satisfies ProtocolDefinition<typeof fields>;
