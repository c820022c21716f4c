import type { CheckOutcome } from '../../domain/check.ts';
import { PROTOCOLS, protocolDefinition, type Protocol } from '../../protocols/index.ts';
import type { Probe, ProbeOptions, ProbeSpec } from './types.ts';

/**
 * One probe per protocol of the registry (src/protocols/index.ts), sharing `options`; the main's
 * local probe and `pharos agent` both build theirs here. A protocol's check code (and its driver)
 * is loaded on its first check, so a Pharos without postgres monitors never loads `pg`.
 * Close each with `probe.close()` at shutdown.
 */
export function createProbes(options: ProbeOptions): Record<Protocol, Probe> {
  return Object.fromEntries(PROTOCOLS.map((p) => [p, lazyProbe(p, options)])) as Record<Protocol, Probe>;
}

function lazyProbe(protocol: Protocol, options: ProbeOptions): Probe {
  let loading: Promise<Probe> | null = null;
  let probe: Probe | null = null;
  const load = () => (loading ??= protocolDefinition(protocol).loadProbe().then((factory) => (probe = factory(options))));
  return {
    check(spec: ProbeSpec): Promise<CheckOutcome> {
      if (probe) return probe.check(spec);
      return load().then(
        (p) => p.check(spec),
        (e: Error) => ({ ok: false, latencyMs: 0, statusCode: 0, reason: `Probe for ${protocol} failed to load: ${e.message}` }),
      );
    },
    async close() {
      if (loading) await (await loading.catch(() => null))?.close();
    },
  };
}
