import type { IncomingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Dispatcher } from 'undici';
import { request, type buildConnector } from '../../lib/undici.ts';
import type { CheckOutcome } from '../../domain/check.ts';
import { describeNetworkError } from '../errors.ts';
import { statusMatches } from '../seed.ts';
import type { Probe, ProbeFactory, CheckSpec } from '../types.ts';
import { failedAssertion } from './assertions.ts';
import type { http } from './index.ts';

type HttpSettings = typeof http.defaults;
import { checkDispatchers, KEEP_ALIVE } from './dispatchers.ts';
import { AuthFailure, authenticator, needsOwnDispatchers, ownDispatchers } from './options.ts';
import { headersOnly } from './headers-only.ts';
import { connectorsByProfile, sessionConnector, TlsSessionCache, type CheckTlsOptions } from './tls-sessions.ts';

/** Bodies are read only for keyword checks, and only this far (bytes). */
const MAX_KEYWORD_BODY_BYTES = 2 * 1024 * 1024;
const DAY_MS = 86_400_000;

/**
 * HTTP(S) checks with undici (CONTRACT.md "Monitors"): up when the final status matches
 * `expected_status_code` (redirects followed up to 10 when `follow_redirects`), the body contains
 * `required_keyword` (case-sensitive) when set, every assertion holds, all within
 * `timeoutSeconds`, over valid TLS. A passing check slower than `degraded_after_ms` is `degraded`.
 *
 * Each check makes a fresh connection, closed after it (src/engine/connections.ts), except that a
 * busy origin's connection may be kept for its next check (at most 32 idle in all; dispatchers.ts
 * `KeepAlivePolicy`). The served
 * certificate is read when a TLS connection is made (a wrapped connector).
 * Timing phases go to `options.observePhase`: the connector times each new connection (TCP + TLS),
 * each check times its time to first byte and its body read.
 */
export const httpProbe: ProbeFactory = (options) => {
  /** `host:port` → certificate `valid_to`, epoch ms. */
  const certExpiry = new Map<string, number>();
  // The BuildOptions type demands a port, which undici fills per connection.
  const wrap = (base: buildConnector.connector): buildConnector.connector => (opts, cb) => {
    const connectStarted = performance.now();
    // undici passes a per-connection localAddress (undefined) that overrides the connector's own.
    base(options.sourceAddress ? { ...opts, localAddress: options.sourceAddress } : opts, (err, socket) => {
      if (!err) options.observePhase?.('connect', performance.now() - connectStarted);
      // A resumed session shows no certificate (an empty object): the last full handshake's expiry
      // stands, and sessions are offered at most an hour after it (tls-sessions.ts).
      if (!err && socket && opts.protocol === 'https:' && !(socket as TLSSocket).isSessionReused()) {
        const cert = (socket as TLSSocket).getPeerCertificate?.();
        if (cert?.valid_to) certExpiry.set(`${opts.hostname}:${opts.port || 443}`, Date.parse(cert.valid_to));
      }
      if (err) cb(err, null);
      else cb(null, socket!);
    });
  };
  // TLS sessions by origin and TLS profile, resumed by the next check (issue 38; tls-sessions.ts).
  const sessions = new TlsSessionCache();
  const connectorFor = connectorsByProfile((tls: CheckTlsOptions) => wrap(sessionConnector(tls, sessions)));
  // A busy origin's connection may wait for its next check (dispatchers.ts KeepAlivePolicy); only
  // checks with the probe's own TLS settings and no proxy: the others make their dispatchers per check.
  const dispatchers = checkDispatchers(connectorFor({}), options.httpKeepAlive === false ? null : KEEP_ALIVE);
  const authorization = authenticator();

  // Upside-down mode is every protocol's, applied around this check (src/protocols/upside-down.ts).
  const check = async (spec: CheckSpec): Promise<CheckOutcome> => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const s = spec.settings as HttpSettings;
    const url = new URL(spec.target.url);
    const headers: Record<string, string> = { 'user-agent': options.userAgent };
    for (const h of s.request_headers) headers[h.name.toLowerCase()] = h.value;
    const hasBody = s.request_body != null && s.http_method !== 'GET' && s.http_method !== 'HEAD';
    const own = needsOwnDispatchers(s) ? ownDispatchers(s, connectorFor) : null;
    const dispatcher = (own ?? dispatchers)[s.follow_redirects ? 'following' : 'direct'];
    const needsBody = s.required_keyword !== null || s.assertions.some((a) => a.source === 'json' || a.source === 'body' || a.source === 'json_query');
    const networkReason = (e: unknown) => describeNetworkError(e, url.hostname, spec.timeoutSeconds);
    const noResponse = (e: unknown): CheckOutcome => ({ ok: false, latencyMs: elapsed(), statusCode: 0, reason: networkReason(e), ...ssl(url) });
    // One timer cleared when the check ends (AbortSignal.timeout's would stay queued, and fire, for the
    // whole timeout after every check).
    const abort = new AbortController();
    const timer = setTimeout(abortForTimeout, spec.timeoutSeconds * 1000, abort);
    try {
      try {
        const auth = await authorization.header(s, abort.signal);
        if (auth !== null) headers.authorization = auth;
      } catch (e) {
        if (e instanceof AuthFailure) return { ok: false, latencyMs: elapsed(), statusCode: 0, reason: e.message, sslExpirationDays: null };
        return noResponse(e);
      }
      if (!needsBody) {
        // No body needed: read and drop it without a body stream (headers-only.ts).
        let r;
        try {
          r = await headersOnly(dispatcher, url, { method: s.http_method, headers, body: hasBody ? s.request_body! : undefined, signal: abort.signal }, MAX_KEYWORD_BODY_BYTES);
        } catch (e) {
          return noResponse(e);
        }
        return outcome(s, url, r.statusCode, r.headers, '', Math.round(r.headersAt - started), elapsed, r.bodyError === undefined ? null : networkReason(r.bodyError));
      }
      let res: Dispatcher.ResponseData;
      let ttfbMs: number;
      try {
        res = await request(url, { dispatcher, method: s.http_method, headers, body: hasBody ? s.request_body : undefined, signal: abort.signal });
        ttfbMs = elapsed();
      } catch (e) {
        return noResponse(e);
      }
      let text: string;
      try {
        text = await readCapped(res.body, MAX_KEYWORD_BODY_BYTES);
      } catch (e) {
        return outcome(s, url, res.statusCode, res.headers, '', ttfbMs, elapsed, networkReason(e));
      }
      return outcome(s, url, res.statusCode, res.headers, text, ttfbMs, elapsed);
    } finally {
      clearTimeout(timer);
      if (own) void own.close().catch(() => undefined);
    }
  };

  /** The check's outcome from its final response: status, keyword, assertions, degraded; `failure` when the body could not be read. */
  const outcome = async (s: HttpSettings, url: URL, statusCode: number, headers: IncomingHttpHeaders, text: string, ttfbMs: number, elapsed: () => number, failure: string | null = null): Promise<CheckOutcome> => {
    // A body that could not be read is the reason; else status, keyword, assertions in turn.
    const reason =
      failure ??
      (!statusMatches(s.expected_status_code, statusCode)
        ? `Expected ${s.expected_status_code}, got ${statusCode}`
        : s.required_keyword !== null && text.includes(s.required_keyword) === s.keyword_absent
          ? s.keyword_absent
            ? `Keyword "${s.required_keyword}" found (it must not appear)`
            : `Keyword "${s.required_keyword}" not found`
          : s.assertions.length > 0
            ? await failedAssertion(s.assertions, { headers, body: text, latencyMs: elapsed() })
            : null);
    if (statusCode === 401) authorization.rejected(s);
    const latencyMs = elapsed();
    options.observePhase?.('ttfb', ttfbMs);
    options.observePhase?.('body', latencyMs - ttfbMs);
    const degraded = reason === null && s.degraded_after_ms !== null && latencyMs > s.degraded_after_ms;
    return { ok: reason === null, latencyMs, statusCode, reason, timings: { ttfbMs }, ...ssl(url), ...(degraded ? { degraded } : {}) };
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

/** Aborts a check at its timeout with the reason `AbortSignal.timeout` gives (a `TimeoutError` DOMException). */
function abortForTimeout(abort: AbortController): void {
  abort.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
}

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
