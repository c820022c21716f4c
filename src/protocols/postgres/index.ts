import { urlTarget } from '../target.ts';
import type { ProtocolDefinition } from '../types.ts';

const fields = {};

/**
 * postgres: connect to `url` (`postgres://user:password@host:port/db`, libpq's URL form; port 5432
 * by default), authenticate, run `SELECT 1`; up when it answers. Latency = the whole exchange.
 */
export const postgres = {
  fields,
  defaults: {},
  urlMeaning: 'a connection URL postgres://user:password@host:port/db',
  label: 'PostgreSQL',
  target: (url) => urlTarget(url, ['postgres:', 'postgresql:'], 'a connection URL postgres://user:password@host:port/db', 5432),
  loadProbe: async () => (await import('./probe.ts')).postgresProbe,
} satisfies ProtocolDefinition<typeof fields>;
