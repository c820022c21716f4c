import { isIP, connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type PeerCertificate, type TLSSocket } from 'node:tls';
import type { CheckOutcome } from '../../domain/check.ts';
import { describeNetworkError } from '../errors.ts';
import type { ProbeFactory } from '../types.ts';
import type { tls } from './index.ts';

type Settings = typeof tls.defaults;
const DAY_MS = 86_400_000;

/** Reads SMTP replies until a final line (`250 …`, not `250-…`); resolves with its code. */
function smtpReply(socket: Socket): Promise<number> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString('latin1');
      const lines = buf.split('\r\n');
      const last = lines.slice(0, -1).find((l) => /^\d{3} /.test(l));
      if (last) {
        socket.off('data', onData);
        socket.off('error', reject);
        resolve(Number(last.slice(0, 3)));
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

/** Plain SMTP up to a granted STARTTLS (greeting, EHLO, STARTTLS). @throws Error naming the refusal */
async function smtpStartTls(socket: Socket): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  if ((await smtpReply(socket)) !== 220) throw new Error('SMTP greeting was not 220');
  socket.write('EHLO pharos\r\n');
  if ((await smtpReply(socket)) !== 250) throw new Error('SMTP EHLO refused');
  socket.write('STARTTLS\r\n');
  const code = await smtpReply(socket);
  if (code !== 220) throw new Error(`STARTTLS refused (${code})`);
}

/** Why a handshake's verification failed, for a person. */
function verifyReason(code: string, cert: PeerCertificate | null, host: string, daysLeft: number | null): string {
  if (code === 'CERT_HAS_EXPIRED' && daysLeft !== null) {
    const ago = Math.max(0, Math.floor((Date.now() - Date.parse(cert!.valid_to)) / DAY_MS));
    return ago === 0 ? 'certificate expired today' : `certificate expired ${ago} day${ago === 1 ? '' : 's'} ago`;
  }
  if (code === 'CERT_NOT_YET_VALID') return 'certificate is not valid yet';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `certificate is not valid for ${host}${cert?.subjectaltname ? ` (it names ${cert.subjectaltname.replace(/DNS:|IP Address:/g, '')})` : ''}`;
  if (code === 'DEPTH_ZERO_SELF_SIGNED_CERT') return 'self-signed certificate';
  if (code === 'SELF_SIGNED_CERT_IN_CHAIN') return 'self-signed certificate in the chain';
  if (code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' || code === 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY') return 'certificate chain does not lead to a trusted root';
  return `certificate not trusted: ${code}`;
}

/**
 * TLS certificate checks: connect to host:port (or SMTP then STARTTLS), verify the chain and the
 * host name as Node's TLS does (system roots), read days to expiry. Down with `certificate expired
 * 3 days ago`, `certificate is not valid for …`, `self-signed certificate`, a network error, …;
 * `sslExpirationDays` is reported whenever a certificate was seen.
 */
export const tlsProbe: ProbeFactory = (options) => ({
  async check(spec): Promise<CheckOutcome> {
    const s = spec.settings as Settings;
    const { host } = spec.target;
    const port = spec.target.port ?? 443;
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const local = options.sourceAddress ? { localAddress: options.sourceAddress } : {};
    let raw: Socket | null = null;
    let secure: TLSSocket | null = null;
    const timer = setTimeout(() => {
      const e = Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' });
      (secure ?? raw)?.destroy(e);
    }, spec.timeoutSeconds * 1000);
    try {
      if (s.tls_starttls === 'smtp') {
        raw = tcpConnect({ host, port, ...local });
        await smtpStartTls(raw);
      }
      secure = tlsConnect({
        ...(raw ? { socket: raw, host } : { host, port, ...local }),
        ...(isIP(host) ? {} : { servername: host }),
        rejectUnauthorized: false,
      });
      await new Promise<void>((resolve, reject) => {
        secure!.once('secureConnect', resolve);
        secure!.once('error', reject);
      });
      const cert = secure.getPeerCertificate();
      const daysLeft = cert?.valid_to ? Math.floor((Date.parse(cert.valid_to) - Date.now()) / DAY_MS) : null;
      const err = secure.authorized ? null : String(secure.authorizationError ?? 'unknown');
      const reason = err === null ? null : verifyReason(err, cert, host, daysLeft);
      return { ok: reason === null, latencyMs: latency(), statusCode: 0, reason, sslExpirationDays: daysLeft };
    } catch (e) {
      const msg = (e as Error).message;
      const reason = /^(SMTP|STARTTLS)/.test(msg) ? msg : describeNetworkError(e, host, spec.timeoutSeconds);
      return { ok: false, latencyMs: latency(), statusCode: 0, reason };
    } finally {
      clearTimeout(timer);
      secure?.destroy();
      raw?.destroy();
    }
  },
  async close() {},
});
