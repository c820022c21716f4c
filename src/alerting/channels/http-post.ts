import { Agent, request, type buildConnector } from 'undici';
import { REFUSED_ADDRESS_CODE } from '../public-connector.ts';
import { ChannelError } from './types.ts';

/**
 * The HTTP side shared by the webhook, Slack and Teams channels: POST a JSON body to one URL and
 * turn whatever happens into success or a {@link ChannelError}.
 *
 * Error messages name the channel and the URL's host only: Slack and Teams put their secret token
 * in the path, so neither the path, the query, userinfo nor the raw error text (which may quote
 * the URL) ever reaches a message.
 */

/** Settings of a {@link JsonPoster}. */
export interface JsonPosterOptions {
  /** Prefix of error messages, e.g. `slack ops-slack` (channel type and name). */
  label: string;
  /** The target URL (http or https); may carry a secret in its path or query. */
  url: string;
  /** Limit for connecting, for the response headers and for body inactivity, each, in seconds. */
  timeoutSeconds: number;
  /**
   * Connector of the pool; default undici's. Subscriber webhooks pass `publicOnlyConnector` so only
   * public addresses are reached (docs/api.md "Hardening (security)").
   */
  connect?: buildConnector.connector | undefined;
}

/** POSTs JSON to one fixed URL over its own connection pool. */
export interface JsonPoster {
  /**
   * POSTs `body` (already serialized JSON) with `headers` (names are case-insensitive; pass
   * `content-type` yourself). The response body is read and discarded.
   * Resolves on any 2xx or 3xx answer (redirects are not followed).
   * @throws ChannelError retryable (`permanent: false`) on network errors, timeouts, HTTP 408, 429
   *   and 5xx; permanent on any other 4xx
   */
  post(body: string, headers: Record<string, string>): Promise<void>;
  /** Closes the pooled connections; later posts fail. */
  close(): Promise<void>;
}

/**
 * Creates a {@link JsonPoster} with one undici Agent (keep-alive pool) for `options.url`.
 * @throws TypeError when the URL does not parse (config validation prevents this)
 */
export function createJsonPoster(options: JsonPosterOptions): JsonPoster {
  const url = new URL(options.url);
  const host = url.host;
  const timeoutMs = options.timeoutSeconds * 1000;
  const agent = new Agent({
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: options.connect ?? { timeout: timeoutMs },
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 10_000,
  });

  return {
    async post(body, headers) {
      let statusCode: number;
      try {
        const res = await request(url, { dispatcher: agent, method: 'POST', headers, body });
        statusCode = res.statusCode;
        // The status decides; a body that fails to arrive after a 2xx does not undo the delivery.
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      } catch (e) {
        // A refused (non-public) address stays refused: permanent, not retried.
        throw new ChannelError(`${options.label}: ${describeHttpFailure(e, host, options.timeoutSeconds)}`, hasCode(e, REFUSED_ADDRESS_CODE));
      }
      if (statusCode < 400) return;
      throw new ChannelError(`${options.label}: HTTP ${statusCode}`, !isRetryableStatus(statusCode));
    },
    async close() {
      await agent.close();
    },
  };
}

/** True when `err` or an error in its `cause` chain carries `code`. */
function hasCode(err: unknown, code: string): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === code) return true;
  }
  return false;
}

/** True for the HTTP statuses worth retrying: 408, 429 and every 5xx. */
export function isRetryableStatus(statusCode: number): boolean {
  return statusCode === 408 || statusCode === 429 || statusCode >= 500;
}

/**
 * Describes a failed request without its URL: `connection refused (hooks.slack.com)`,
 * `timeout after 10 s (hooks.slack.com)`, … Reads error codes along the `cause` chain and never
 * quotes an error's message, which could contain the URL.
 * @param host the URL's host (with port when given), the only part of the URL that is named
 * @param timeoutSeconds the configured timeout, named in timeouts
 */
export function describeHttpFailure(err: unknown, host: string, timeoutSeconds: number): string {
  const codes: string[] = [];
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, name } = e as { code?: unknown; name?: unknown };
    if (typeof code === 'string') codes.push(code);
    if (name === 'TimeoutError' || name === 'AbortError') codes.push('TIMEOUT');
    else if (typeof name === 'string' && name !== 'Error' && typeof code !== 'string') codes.push(name);
  }
  const has = (...c: string[]) => codes.some((x) => c.includes(x));
  let what: string;
  if (has(REFUSED_ADDRESS_CODE)) what = 'refused: not a public address';
  else if (has('TIMEOUT', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT')) what = `timeout after ${timeoutSeconds} s`;
  else if (has('ECONNREFUSED')) what = 'connection refused';
  else if (has('ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL')) what = 'DNS lookup failed';
  else if (has('ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED')) what = 'connection reset';
  else if (has('EHOSTUNREACH', 'ENETUNREACH')) what = 'host unreachable';
  else {
    const tls = codes.find((c) => /CERT|SSL|TLS|SIGNATURE|ISSUER|SELF_SIGNED/.test(c));
    what = tls ? `TLS error ${tls}` : `request failed: ${codes[0] ?? 'unknown error'}`;
  }
  return `${what} (${host})`;
}
