import type { CheckOutcome } from '../../domain/check.ts';
import { PROTOCOLS, protocolDefinition, type Protocol } from '../../protocols/index.ts';
import type { Probe, ProbeOptions, ProbeSpec } from './types.ts';
import { isUpsideDown, turnUpsideDown } from '../../protocols/upside-down.ts';

/** The outcome of a check whose protocol's probe could not be loaded. */
const loadFailure = (protocol: Protocol, e: Error): CheckOutcome => ({ ok: false, latencyMs: 0, statusCode: 0, reason: `Probe for ${protocol} failed to load: ${e.message}` });

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
      // Upside-down mode (every protocol's) turns the probe's verdict around; a probe that failed to load stays a failure.
      if (isUpsideDown(spec.settings)) return (probe ? probe.check(spec) : load().then((p) => p.check(spec))).then(turnUpsideDown, (e: Error) => loadFailure(protocol, e));
      if (probe) return probe.check(spec);
      return load().then(
        (p) => p.check(spec),
        (e: Error) => loadFailure(protocol, e),
      );
    },
    async close() {
      if (loading) await (await loading.catch(() => null))?.close();
    },
  };
}
