import type { z } from 'zod';
import * as REGISTERED from './registry.ts';
import type { ProtocolDefinition, SecretKind } from './types.ts';
import { UPSIDE_DOWN_DEFAULTS, UPSIDE_DOWN_FIELDS } from './upside-down.ts';
import { DOMAIN_EXPIRY_DEFAULTS, DOMAIN_EXPIRY_FIELDS } from './domain-expiry.ts';

/**
 * Every protocol, from the registry (src/protocols/registry.ts, one line per protocol; house rule
 * 1). `PROTOCOLS`, the API's `protocol` enum and body fields, the OpenAPI document, the stored
 * settings' validation, the probes of the main and of `pharos agent`, and the contract test
 * matrix all derive from it.
 */
export const PROTOCOL_DEFINITIONS = Object.fromEntries(
  Object.entries(REGISTERED satisfies Record<string, ProtocolDefinition<z.ZodRawShape>>).map(([name, d]) => [name, withUpsideDown(d as unknown as ProtocolDefinition)]),
) as { [P in keyof typeof REGISTERED]: WithUpsideDown<(typeof REGISTERED)[P]> };

/** A registered definition with the settings every protocol has: `upside_down` (src/protocols/upside-down.ts), `domain_expiry_days` (src/protocols/domain-expiry.ts). */
type WithUpsideDown<D> = D extends { fields: infer F; defaults: infer V }
  ? Omit<D, 'fields' | 'defaults'> & { fields: F & typeof UPSIDE_DOWN_FIELDS & typeof DOMAIN_EXPIRY_FIELDS; defaults: V & typeof UPSIDE_DOWN_DEFAULTS & typeof DOMAIN_EXPIRY_DEFAULTS }
  : never;

/**
 * `d` plus `upside_down` and `domain_expiry_days`: in its fields, defaults and console form (after its
 * own fields), and in what the API shows only when set (so API.md's port, icmp and http responses keep their fields).
 */
function withUpsideDown(d: ProtocolDefinition): ProtocolDefinition {
  return {
    ...d,
    fields: { ...d.fields, ...UPSIDE_DOWN_FIELDS, ...DOMAIN_EXPIRY_FIELDS },
    defaults: { ...d.defaults, ...UPSIDE_DOWN_DEFAULTS, ...DOMAIN_EXPIRY_DEFAULTS },
    ...(d.formFields ? { formFields: [...d.formFields, 'upside_down', 'domain_expiry_days'] } : {}),
    show: (settings) => {
      const { upside_down, domain_expiry_days, ...rest } = settings as Record<string, unknown>;
      const shown = d.show ? d.show(rest as typeof settings) : rest;
      return { ...shown, ...(upside_down === true ? { upside_down } : {}), ...(domain_expiry_days != null ? { domain_expiry_days } : {}) };
    },
  };
}

/** A monitor protocol name. */
export type Protocol = keyof typeof PROTOCOL_DEFINITIONS;

/** API.md's three, first and in its order; the default protocol is the first. */
const SEED = ['http', 'port', 'icmp'] as const satisfies readonly Protocol[];

/** Monitor protocols: API.md's three, then the others by name. */
export const PROTOCOLS = [...SEED, ...(Object.keys(PROTOCOL_DEFINITIONS) as Protocol[]).filter((p) => !(SEED as readonly string[]).includes(p)).sort()] as [Protocol, ...Protocol[]];

/** The definition of `protocol`, typed loosely for code that handles every protocol alike. */
export function protocolDefinition(protocol: Protocol): ProtocolDefinition {
  return PROTOCOL_DEFINITIONS[protocol] as unknown as ProtocolDefinition;
}

/**
 * Every protocol field by name → its schema and the protocols that take it. A name two protocols
 * share must be one schema object (they then mean the same thing); anything else is a registry bug.
 * @throws Error at module load when two protocols define one field name differently
 */
export const PROTOCOL_FIELDS: ReadonlyMap<string, { schema: z.ZodType; protocols: Protocol[] }> = (() => {
  const all = new Map<string, { schema: z.ZodType; protocols: Protocol[] }>();
  for (const p of PROTOCOLS) {
    for (const [name, schema] of Object.entries(protocolDefinition(p).fields)) {
      const seen = all.get(name);
      if (!seen) all.set(name, { schema: schema as z.ZodType, protocols: [p] });
      else if (seen.schema !== schema) throw new Error(`protocol field ${name}: ${p} and ${seen.protocols[0]} define it differently`);
      else seen.protocols.push(p);
    }
  }
  return all;
})();

/**
 * Every protocol's secret fields (its definition's `secrets`), for src/protocols/secrets.ts.
 * @throws Error at module load when two protocols declare one shared field's secrecy differently
 */
export const PROTOCOL_SECRETS: Readonly<Record<Protocol, Readonly<Record<string, SecretKind>>>> = (() => {
  const all = {} as Record<Protocol, Record<string, SecretKind>>;
  const kindOf = new Map<string, SecretKind | undefined>();
  for (const p of PROTOCOLS) {
    const declared = (protocolDefinition(p).secrets ?? {}) as Record<string, SecretKind>;
    all[p] = { ...declared };
    for (const field of Object.keys(protocolDefinition(p).fields)) {
      if (kindOf.has(field) && kindOf.get(field) !== declared[field]) throw new Error(`protocol field ${field}: ${p} declares its secrecy differently from another protocol`);
      kindOf.set(field, declared[field]);
    }
  }
  return all;
})();

export type { SecretKind } from './types.ts';
export type { CheckSpec, Probe, ProbeFactory, ProbeOptions, ProbeTarget, ProtocolDefinition } from './types.ts';
