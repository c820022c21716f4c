import { invalid } from '../../lib/errors.ts';
import { SEED_DEFAULTS, SEED_FIELDS, SEED_SECRETS, validateSeed } from '../seed.ts';
import { hostTarget } from '../target.ts';
import type { ProtocolDefinition } from '../types.ts';

/** TCP port checks (API.md): up when a connection to host:port opens. Takes API.md's fields, uses none of them. */
export const port = {
  fields: SEED_FIELDS,
  defaults: SEED_DEFAULTS,
  secrets: SEED_SECRETS,
  urlMeaning: 'a host name or IP (or host:port, or a URL whose host is taken); `port` required unless the url carries one',
  label: 'TCP port',
  formFields: [],
  target(url, p) {
    const t = hostTarget(url, p);
    if (t.port === null) throw invalid('port', 'is required for protocol "port" unless the url carries a port');
    return t;
  },
  validate: validateSeed,
  loadProbe: async () => (await import('./probe.ts')).tcpProbe,
} satisfies ProtocolDefinition<typeof SEED_FIELDS>;
