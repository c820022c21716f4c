import { isIP, connect as tcpConnect, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { connect as tlsConnect } from 'node:tls';
import type { CheckOutcome } from '../../domain/check.ts';
import { describeNetworkError } from '../errors.ts';
import type { ProbeFactory } from '../types.ts';

/** One SMTP reply (RFC 5321 §4.2): its code and its lines' texts. */
interface Reply {
  code: number;
  lines: string[];
}

/** The server's words, for a reason: `554 5.7.1 no thanks` (the last line of the reply). */
const said = (r: Reply) => `${r.code} ${r.lines.at(-1) ?? ''}`.trim();

/** A failure whose message is already the reason a person reads. */
class SmtpRefusal extends Error {}

/** Reads replies off `socket`, one `next()` per reply (multi-line replies end at `250 …`, not `250-…`). */
function replies(socket: Socket): { next(): Promise<Reply>; detach(): void } {
  let buf = '';
  let lines: string[] = [];
  const ready: Reply[] = [];
  let waiting: { resolve: (r: Reply) => void; reject: (e: unknown) => void } | null = null;
  let failed: unknown = null;
  const onData = (d: Buffer) => {
    buf += d.toString('latin1');
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i).replace(/\r$/, '');
      buf = buf.slice(i + 1);
      lines.push(line.slice(4));
      if (!/^\d{3}-/.test(line)) {
        ready.push({ code: Number(line.slice(0, 3)) || 0, lines });
        lines = [];
      }
    }
    if (waiting && ready.length) {
      const w = waiting;
      waiting = null;
      w.resolve(ready.shift()!);
    }
  };
  const onEnd = (e?: unknown) => {
    failed = e ?? new SmtpRefusal('Connection closed by the server');
    if (waiting) waiting.reject(failed);
  };
  const onError = (e: unknown) => onEnd(e);
  const onClose = () => onEnd();
  socket.on('data', onData);
  socket.on('error', onError);
  socket.on('close', onClose);
  return {
    next: () => (ready.length ? Promise.resolve(ready.shift()!) : failed ? Promise.reject(failed) : new Promise((resolve, reject) => (waiting = { resolve, reject }))),
    detach() {
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
    },
  };
}

/**
 * SMTP checks: connect (TCP, or TLS at once for `smtp_tls: "tls"`) from `probe.source_address` when
 * set, expect the 220 greeting, `EHLO <this host's name>` → 250; with `starttls` the server must offer
 * STARTTLS and grant it (220), the upgraded connection verifies against the system's roots, EHLO
 * again; then QUIT. All within the check's timeout. Reasons are the server's words
 * (`greeting was 554 5.3.2 busy`, `EHLO refused: 501 …`, `STARTTLS not offered`, `STARTTLS refused:
 * 454 4.7.0 TLS not available`), TLS errors (`TLS error: DEPTH_ZERO_SELF_SIGNED_CERT`) or the network's.
 */
export const smtpProbe: ProbeFactory = (options) => ({
  async check(spec): Promise<CheckOutcome> {
    const mode = String(spec.settings.smtp_tls ?? 'none');
    const { host } = spec.target;
    const port = spec.target.port ?? 25;
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const local = options.sourceAddress ? { localAddress: options.sourceAddress } : {};
    const servername = isIP(host) ? {} : { servername: host };
    const helo = /^[A-Za-z0-9.-]+$/.test(hostname()) ? hostname() : 'pharos';
    const sockets: Socket[] = [];
    const timer = setTimeout(() => {
      const e = Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' });
      for (const s of sockets) s.destroy(e);
    }, spec.timeoutSeconds * 1000);
    try {
      let socket: Socket = mode === 'tls' ? tlsConnect({ host, port, ...servername, ...local }) : tcpConnect({ host, port, ...local });
      sockets.push(socket);
      let r = replies(socket);
      const greeting = await r.next();
      if (greeting.code !== 220) throw new SmtpRefusal(`greeting was ${said(greeting)}`);
      socket.write(`EHLO ${helo}\r\n`);
      let ehlo = await r.next();
      if (ehlo.code !== 250) throw new SmtpRefusal(`EHLO refused: ${said(ehlo)}`);
      if (mode === 'starttls') {
        if (!ehlo.lines.some((l) => /^STARTTLS\b/i.test(l))) throw new SmtpRefusal('STARTTLS not offered');
        socket.write('STARTTLS\r\n');
        const granted = await r.next();
        if (granted.code !== 220) throw new SmtpRefusal(`STARTTLS refused: ${said(granted)}`);
        r.detach();
        const plain = socket;
        socket = tlsConnect({ socket: plain, host, ...servername });
        sockets.push(socket);
        r = replies(socket);
        await new Promise<void>((resolve, reject) => {
          socket.once('secureConnect', resolve);
          socket.once('error', reject);
        });
        socket.write(`EHLO ${helo}\r\n`);
        ehlo = await r.next();
        if (ehlo.code !== 250) throw new SmtpRefusal(`EHLO after STARTTLS refused: ${said(ehlo)}`);
      }
      socket.write('QUIT\r\n');
      await r.next().catch(() => null); // a server that hangs up instead of answering 221 is still up
      return { ok: true, latencyMs: latency(), statusCode: 0, reason: null };
    } catch (e) {
      const reason = e instanceof SmtpRefusal ? e.message : describeNetworkError(e, host, spec.timeoutSeconds);
      return { ok: false, latencyMs: latency(), statusCode: 0, reason };
    } finally {
      clearTimeout(timer);
      for (const s of sockets) s.destroy();
    }
  },
  async close() {},
});
