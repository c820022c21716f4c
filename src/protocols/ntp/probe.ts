import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import type { CheckOutcome } from '../../domain/check.ts';
import { describeNetworkError } from '../errors.ts';
import type { ProbeFactory } from '../types.ts';
import { ntpRequest, parseNtp } from './packet.ts';

/** An offset for a reason: `2.31 s` from a second up, else `420 ms`. */
const showMs = (ms: number) => (Math.abs(ms) >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`);

/**
 * NTP checks: one UDP query (SNTP, RFC 4330) from `probe.source_address` when set, the answer within
 * the check's timeout; offset = ((T2 − T1) + (T3 − T4)) / 2 against this host's clock, latency the
 * round trip less the server's time. Reasons: `kiss-o'-death RATE` (stratum 0), `server is not
 * synchronized (leap indicator 3)`, `server is not synchronized (stratum 16)`, `offset +2.31 s,
 * limit 1000 ms`, `stratum 5, limit 3`, `Timeout after 5 s`, the network's.
 */
export const ntpProbe: ProbeFactory = (options) => ({
  async check(spec): Promise<CheckOutcome> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const maxOffset = (spec.settings.ntp_max_offset_ms as number | null | undefined) ?? null;
    const maxStratum = (spec.settings.ntp_max_stratum as number | null | undefined) ?? null;
    const { host } = spec.target;
    const port = spec.target.port ?? 123;
    let socket: ReturnType<typeof createSocket> | null = null;
    let timer: NodeJS.Timeout | undefined;
    try {
      const { address, family } = await lookup(host);
      const s = (socket = createSocket(family === 6 ? 'udp6' : 'udp4'));
      const t1 = Date.now();
      const request = ntpRequest(t1);
      const { msg, t4, rtt } = await new Promise<{ msg: Buffer; t4: number; rtt: number }>((resolve, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), spec.timeoutSeconds * 1000);
        s.on('error', reject);
        s.on('message', (m) => {
          // Only the answer to this request (it echoes our transmit time as its origin).
          if (m.length >= 48 && m.subarray(24, 32).equals(request.subarray(40, 48))) resolve({ msg: m, t4: Date.now(), rtt: performance.now() - started });
        });
        const send = () => s.send(request, port, address, (e) => e && reject(e));
        if (options.sourceAddress) s.bind({ address: options.sourceAddress, port: 0 }, send);
        else send();
      });
      const a = parseNtp(msg);
      const offset = (a.receiveMs - t1 + (a.transmitMs - t4)) / 2;
      const took = Math.max(0, Math.round(rtt - (a.transmitMs - a.receiveMs)));
      const fail = (reason: string): CheckOutcome => ({ ok: false, latencyMs: took, statusCode: 0, reason });
      if (a.stratum === 0) return fail(`kiss-o'-death ${a.refId || '(no code)'}`);
      if (a.leap === 3) return fail('server is not synchronized (leap indicator 3)');
      if (a.stratum > 15) return fail(`server is not synchronized (stratum ${a.stratum})`);
      if (a.mode !== 4) return fail(`not an NTP server answer (mode ${a.mode})`);
      if (maxOffset !== null && Math.abs(offset) > maxOffset) return fail(`offset ${offset >= 0 ? '+' : '−'}${showMs(Math.abs(offset))}, limit ${maxOffset} ms`);
      if (maxStratum !== null && a.stratum > maxStratum) return fail(`stratum ${a.stratum}, limit ${maxStratum}`);
      return { ok: true, latencyMs: took, statusCode: 0, reason: null };
    } catch (e) {
      return { ok: false, latencyMs: latency(), statusCode: 0, reason: describeNetworkError(e, host, spec.timeoutSeconds) };
    } finally {
      clearTimeout(timer);
      socket?.close();
    }
  },
  async close() {},
});
