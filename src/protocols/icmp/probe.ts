import ping from 'ping';
import type { CheckOutcome } from '../../domain/check.ts';
import type { ProbeFactory } from '../types.ts';
import { DESCRIPTORS_EXHAUSTED_REASON, isDescriptorExhaustion } from '../descriptors.ts';

const UNRESOLVED = /Name or service not known|Temporary failure in name resolution|unknown host|cannot resolve/i;

/**
 * ICMP echo checks through the system `ping` (Debian `iputils-ping`, found through PATH) driven by
 * the `ping` package: up when one reply arrives within `timeoutSeconds`.
 */
export const icmpProbe: ProbeFactory = (options) => ({
  async check(spec) {
    const started = performance.now();
    const { host } = spec.target;
    const latency = () => Math.round(performance.now() - started);
    try {
      const res = await ping.promise.probe(host, {
        timeout: spec.timeoutSeconds,
        deadline: spec.timeoutSeconds,
        min_reply: 1,
        ...(options.sourceAddress ? { sourceAddr: options.sourceAddress } : {}),
        ...(host.includes(':') ? { v6: true } : {}),
      });
      if (res.alive) {
        const rtt = typeof res.time === 'number' ? Math.round(res.time) : latency();
        return { ok: true, latencyMs: rtt, statusCode: 0, reason: null } satisfies CheckOutcome;
      }
      const reason = UNRESOLVED.test(res.output ?? '') ? `DNS lookup failed for ${host}` : `No ICMP reply within ${spec.timeoutSeconds} s`;
      return { ok: false, latencyMs: latency(), statusCode: 0, reason };
    } catch (e) {
      // Spawning `ping` without descriptors left is Pharos's fault: the wheel retries (engine/connections.ts).
      if (isDescriptorExhaustion(e)) return { ok: false, latencyMs: latency(), statusCode: 0, reason: `${DESCRIPTORS_EXHAUSTED_REASON} (spawning ping)` };
      return { ok: false, latencyMs: latency(), statusCode: 0, reason: `ICMP check failed: ${(e as Error).message}` };
    }
  },
  async close() {},
});
