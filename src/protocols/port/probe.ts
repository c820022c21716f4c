import { connect } from 'node:net';
import type { CheckOutcome } from '../../domain/check.ts';
import { describeNetworkError } from '../errors.ts';
import type { ProbeFactory } from '../types.ts';

/** TCP port checks: up when a connection to host:port opens within `timeoutSeconds` (CONTRACT.md "Monitors"). */
export const tcpProbe: ProbeFactory = (options) => ({
  check(spec) {
    const started = performance.now();
    const { host, port } = spec.target;
    return new Promise<CheckOutcome>((resolve) => {
      const socket = connect({ host, port: port ?? 0, ...(options.sourceAddress ? { localAddress: options.sourceAddress } : {}) });
      const done = (reason: string | null) => {
        clearTimeout(timer);
        socket.destroy();
        resolve({ ok: reason === null, latencyMs: Math.round(performance.now() - started), statusCode: 0, reason });
      };
      const timer = setTimeout(() => done(`Timeout after ${spec.timeoutSeconds} s`), spec.timeoutSeconds * 1000);
      socket.once('connect', () => done(null));
      socket.once('error', (e) => done(describeNetworkError(e, host, spec.timeoutSeconds)));
    });
  },
  async close() {},
});
