import { urlTarget } from '../target.ts';
import type { ProtocolDefinition } from '../types.ts';

const fields = {};

/**
 * mysql: connect to `url` (`mysql://user:password@host:port/db`, port 3306 by default; MySQL and
 * MariaDB), authenticate, run `SELECT 1`; up when it answers.
 */
export const mysql = {
  fields,
  defaults: {},
  urlMeaning: 'a connection URL mysql://user:password@host:port/db',
  label: 'MySQL / MariaDB',
  target: (url) => urlTarget(url, ['mysql:', 'mariadb:'], 'a connection URL mysql://user:password@host:port/db', 3306),
  loadProbe: async () => (await import('./probe.ts')).mysqlProbe,
} satisfies ProtocolDefinition<typeof fields>;
