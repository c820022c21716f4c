import type { z } from 'zod';
import { dns } from './dns/index.ts';
import { grpc } from './grpc/index.ts';
import { http } from './http/index.ts';
import { icmp } from './icmp/index.ts';
import { mysql } from './mysql/index.ts';
import { port } from './port/index.ts';
import { postgres } from './postgres/index.ts';
import { tls } from './tls/index.ts';
import type { ProtocolDefinition } from './types.ts';

/**
 * The protocol registry (house rule 1; docs/architecture.md "Adding a protocol"): one line per
 * protocol. `PROTOCOLS`, the API's `protocol` enum and body fields, the OpenAPI document, the
 * stored settings' validation, the probes of the main and of `pharos agent`, and the contract
 * test matrix all derive from it. The first three are API.md's seed and keep its order.
 */
export const PROTOCOL_DEFINITIONS = {
  http,
  port,
  icmp,
  dns,
  tls,
  grpc,
  postgres,
  mysql,
} as const satisfies Record<string, ProtocolDefinition<z.ZodRawShape>>;

/** A monitor protocol name. */
export type Protocol = keyof typeof PROTOCOL_DEFINITIONS;

/** Monitor protocols, in registry order (API.md §2.1's three first). */
export const PROTOCOLS = Object.keys(PROTOCOL_DEFINITIONS) as [Protocol, ...Protocol[]];

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

export type { CheckSpec, Probe, ProbeFactory, ProbeOptions, ProbeTarget, ProtocolDefinition } from './types.ts';
