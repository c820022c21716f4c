import type { TLSSocket } from 'node:tls';
import { buildConnector, request, type Dispatcher } from 'undici';
import type { CheckOutcome } from '../../domain/check.ts';
import { statusMatches } from '../../domain/monitor.ts';
import { describeNetworkError } from './errors.ts';
import { checkDispatchers } from '../connections.ts';
import type { Probe, ProbeFactory, ProbeSpec } from './types.ts';

/** Bodies are read only for keyword checks, and only this far (bytes). */
const MAX_KEYWORD_BODY_BYTES = 2 * 1024 * 1024;
const DAY_MS = 86_400_000;

/**
 * HTTP(S) checks with undici (CONTRACT.md "Monitors"): up when the final status matches
 * `expectedStatusCode` (redirects followed up to 10 when `followRedirects`), the body contains
 * `requiredKeyword` (case-sensitive) when set, all within `timeoutSeconds`, over valid TLS.
 *
 * Each check makes a fresh connection, closed after it (src/engine/connections.ts). The served
 * certificate is read when a TLS connection is made (a wrapped connector).
 * Timing phases go to `options.observePhase`: the connector times each new connection (TCP + TLS),
 * each check times its time to first byte and its body read.
 */
export const httpProbe: ProbeFactory = (options) => {
  /** `host:port` → certificate `valid_to`, epoch ms. */
  const certExpiry = new Map<string, number>();
  // The BuildOptions type demands a port, which undici fills per connection.
  const base = buildConnector({} as buildConnector.BuildOptions);
  const connect: buildConnector.connector = (opts, cb) => {
    const connectStarted = performance.now();
    // undici passes a per-connection localAddress (undefined) that overrides the connector's own.
    base(options.sourceAddress ? { ...opts, localAddress: options.sourceAddress } : opts, (err, socket) => {
      if (!err) options.observePhase?.('connect', performance.now() - connectStarted);
      if (!err && socket && opts.protocol === 'https:') {
        const cert = (socket as TLSSocket).getPeerCertificate?.();
        if (cert?.valid_to) certExpiry.set(`${opts.hostname}:${opts.port || 443}`, Date.parse(cert.valid_to));
      }
      if (err) cb(err, null);
      else cb(null, socket!);
    });
  };
  const dispatchers = checkDispatchers(connect);

  const check = async (spec: ProbeSpec): Promise<CheckOutcome> => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const url = new URL(spec.target.url);
    const headers: Record<string, string> = { 'user-agent': options.userAgent };
    for (const h of spec.requestHeaders) headers[h.name.toLowerCase()] = h.value;
    const hasBody = spec.requestBody != null && spec.httpMethod !== 'GET' && spec.httpMethod !== 'HEAD';
    let res: Dispatcher.ResponseData;
    let ttfbMs: number;
    try {
      res = await request(url, {
        dispatcher: spec.followRedirects ? dispatchers.following : dispatchers.direct,
        method: spec.httpMethod,
        headers,
        body: hasBody ? spec.requestBody : undefined,
        signal: AbortSignal.timeout(spec.timeoutSeconds * 1000),
      });
      ttfbMs = elapsed();
    } catch (e) {
      return { ok: false, latencyMs: elapsed(), statusCode: 0, reason: describeNetworkError(e, url.hostname, spec.timeoutSeconds), ...ssl(url) };
    }
    const statusCode = res.statusCode;
    let reason: string | null = null;
    try {
      if (spec.requiredKeyword) {
        const text = await readCapped(res.body, MAX_KEYWORD_BODY_BYTES);
        if (!statusMatches(spec.expectedStatusCode, statusCode)) reason = `Expected ${spec.expectedStatusCode}, got ${statusCode}`;
        else if (!text.includes(spec.requiredKeyword)) reason = `Keyword "${spec.requiredKeyword}" not found`;
      } else {
        await res.body.dump({ limit: MAX_KEYWORD_BODY_BYTES });
        if (!statusMatches(spec.expectedStatusCode, statusCode)) reason = `Expected ${spec.expectedStatusCode}, got ${statusCode}`;
      }
    } catch (e) {
      reason = describeNetworkError(e, url.hostname, spec.timeoutSeconds);
    }
    const latencyMs = elapsed();
    options.observePhase?.('ttfb', ttfbMs);
    options.observePhase?.('body', latencyMs - ttfbMs);
    return { ok: reason === null, latencyMs, statusCode, reason, timings: { ttfbMs }, ...ssl(url) };
  };

  const ssl = (url: URL): Pick<CheckOutcome, 'sslExpirationDays'> => {
    if (url.protocol !== 'https:') return { sslExpirationDays: null };
    const validTo = certExpiry.get(`${url.hostname}:${url.port || 443}`);
    return { sslExpirationDays: validTo === undefined ? null : Math.floor((validTo - Date.now()) / DAY_MS) };
  };

  const probe: Probe = {
    check,
    async close() {
      await dispatchers.close();
    },
  };
  return probe;
};

/** Reads a body as UTF-8 text, keeping at most `maxBytes` and discarding the rest. */
async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const b = chunk as Buffer;
    if (size < maxBytes) chunks.push(b.subarray(0, maxBytes - size));
    size += b.length;
    if (size >= maxBytes) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
