import type { Protocol } from '../../domain/monitor.ts';
import { httpProbe } from './http.ts';
import { icmpProbe } from './icmp.ts';
import { tcpProbe } from './tcp.ts';
import type { Probe, ProbeFactory, ProbeOptions } from './types.ts';

/** The probe registry (house rule 1): adding a protocol is one file plus one line here. */
export const PROBES = { http: httpProbe, port: tcpProbe, icmp: icmpProbe } as const satisfies Record<Protocol, ProbeFactory>;

/** One probe instance per protocol, sharing `options`. Close each with `probe.close()` at shutdown. */
export function createProbes(options: ProbeOptions): Record<Protocol, Probe> {
  return { http: PROBES.http(options), port: PROBES.port(options), icmp: PROBES.icmp(options) };
}
