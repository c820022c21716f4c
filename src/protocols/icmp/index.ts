import { SEED_DEFAULTS, SEED_FIELDS, SEED_SECRETS, validateSeed } from '../seed.ts';
import { hostTarget } from '../target.ts';
import type { ProtocolDefinition } from '../types.ts';

/** ICMP echo checks (API.md). Takes API.md's fields, uses none of them. */
export const icmp = {
  fields: SEED_FIELDS,
  defaults: SEED_DEFAULTS,
  secrets: SEED_SECRETS,
  urlMeaning: 'a host name or IP (a URL is accepted and its host taken)',
  label: 'ICMP ping',
  formFields: [],
  target: (url, p) => hostTarget(url, p),
  validate: validateSeed,
  loadProbe: async () => (await import('./probe.ts')).icmpProbe,
} satisfies ProtocolDefinition<typeof SEED_FIELDS>;
