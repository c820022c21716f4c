import { Agent, request, type buildConnector } from '../../lib/undici.ts';
import { REFUSED_ADDRESS_CODE } from '../public-connector.ts';
import { ChannelError, type Delivery, type ProviderAnswer } from './types.ts';

/**
 * The HTTP side shared by every HTTP channel: send one request and turn whatever happens into the
 * provider's answer or a {@link ChannelError}.
 *
 * Error messages name the channel and the URL's host only: Slack, Teams, Discord and Telegram put
 * their secret token in the path, so neither the path, the query, userinfo nor the raw error text (which may quote
 * the URL) ever reaches a message.
 */

/** Settings of an {@link HttpSender}. */
export interface HttpSenderOptions {
  /** Prefix of error messages, e.g. `slack ops-slack` (channel type and name). */
  label: string;
  /** Limit for connecting, for the response headers and for body inactivity, each, in seconds. */
  timeoutSeconds: number;
  /**
   * Connector of the pool; default undici's. Subscriber webhooks pass `publicOnlyConnector` so only
   * public addresses are reached (docs/api.md "Hardening (security)").
   */
  connect?: buildConnector.connector | undefined;
}

/** One request of a channel. */
export interface HttpRequest {
  /** The target (http or https); may carry a secret in its path or query. */
  url: string;
  /** Default POST. */
  method?: 'POST' | 'PUT';
  /** Names are lower case; `user-agent: Pharos` and `idempotency-key` are added unless given. */
  headers: Record<string, string>;
  body: string;
}

/** Sends a channel's HTTP requests over its own connection pool. */
export interface HttpSender {
  /**
   * Sends one request for `delivery`, adding `idempotency-key: <deliveryId>`. Resolves with the
   * answer on any 2xx or 3xx (redirects are not followed).
   * @throws ChannelError retryable (`permanent: false`) on network errors, timeouts, HTTP 408, 429
   *   and 5xx; permanent on any other 4xx; the error carries the answer when there was one
   */
  request(req: HttpRequest, delivery: Delivery): Promise<ProviderAnswer>;
  /** Closes the pooled connections; later requests fail. */
  close(): Promise<void>;
}

/** Longest part of an answer's body kept (for `pharos alert test` and logs of failures). */
const ANSWER_MAX = 2_000;

/** Creates an {@link HttpSender} with one undici Agent (keep-alive pool). */
export function createHttpSender(options: HttpSenderOptions): HttpSender {
  const timeoutMs = options.timeoutSeconds * 1000;
  const agent = new Agent({
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: options.connect ?? { timeout: timeoutMs },
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 10_000,
  });

  return {
    async request(req, delivery) {
      const url = new URL(req.url);
      const headers: Record<string, string> = { 'user-agent': 'Pharos', 'idempotency-key': delivery.deliveryId, ...req.headers };
      let answer: ProviderAnswer;
      try {
        const res = await request(url, { dispatcher: agent, method: req.method ?? 'POST', headers, body: req.body });
        // The status decides; a body that fails to arrive after a 2xx does not undo the delivery.
        const text = await readStart(res.body).catch(() => '');
        answer = { status: res.statusCode, body: text.slice(0, ANSWER_MAX) };
      } catch (e) {
        // A refused (non-public) address stays refused: permanent, not retried.
        throw new ChannelError(`${options.label}: ${describeHttpFailure(e, url.host, options.timeoutSeconds)}`, hasCode(e, REFUSED_ADDRESS_CODE));
      }
      if (answer.status < 400) return answer;
      throw new ChannelError(`${options.label}: HTTP ${answer.status}`, !isRetryableStatus(answer.status), answer);
    },
    async close() {
      await agent.close();
    },
  };
}

/** Reads the first {@link ANSWER_MAX} characters of a body (as UTF-8) and drops the rest. */
async function readStart(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= ANSWER_MAX * 4) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, ANSWER_MAX);
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
