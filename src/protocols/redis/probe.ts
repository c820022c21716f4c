import { createClient } from 'redis';
import type { CheckOutcome } from '../../domain/check.ts';
import { describeNetworkError } from '../errors.ts';
import type { ProbeFactory } from '../types.ts';

/** Server replies that mean the credentials were refused. */
const AUTH_REFUSED = /^(WRONGPASS|NOAUTH|ERR invalid password|ERR AUTH)/;

/**
 * Redis checks with the `redis` client: one connection per check (no reconnects, no offline
 * queue) from `probe.source_address` when set, AUTH from the URL, `PING`, close; within the
 * check's timeout. Reasons: `password authentication failed (WRONGPASS …)`, `PING answered …`,
 * or the network's.
 */
export const redisProbe: ProbeFactory = (options) => ({
  async check(spec): Promise<CheckOutcome> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const ms = spec.timeoutSeconds * 1000;
    const client = createClient({
      url: spec.target.url,
      disableOfflineQueue: true,
      socket: { connectTimeout: ms, reconnectStrategy: false, ...(options.sourceAddress ? { localAddress: options.sourceAddress } : {}) },
    });
    let lastError: unknown = null;
    client.on('error', (e) => (lastError = e)); // without a listener a socket error would crash the process
    const timer = setTimeout(() => client.destroy(), ms);
    try {
      await client.connect();
      const pong = await client.ping();
      return pong === 'PONG' ? { ok: true, latencyMs: latency(), statusCode: 0, reason: null } : { ok: false, latencyMs: latency(), statusCode: 0, reason: `PING answered ${JSON.stringify(pong)}` };
    } catch (e) {
      const message = (e as Error).message ?? '';
      const reason = AUTH_REFUSED.test(message)
        ? `password authentication failed (${message.replace(/\.$/, '')})`
        : latency() >= ms - 5 || /timeout/i.test(message)
          ? `Timeout after ${spec.timeoutSeconds} s`
          : describeNetworkError(lastError ?? e, spec.target.host, spec.timeoutSeconds);
      return { ok: false, latencyMs: latency(), statusCode: 0, reason };
    } finally {
      clearTimeout(timer);
      if (client.isOpen) client.destroy();
    }
  },
  async close() {},
});
