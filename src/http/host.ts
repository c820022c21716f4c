import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/schema.ts';
import { errorBody } from './errors.ts';

/** `host[:port]`: a registered name (letters, digits, `.`, `-`, `_`), an IPv4 address or a bracketed IPv6 address. */
const HOST_SHAPE = /^(?:\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9._-]{1,253})(?::\d{1,5})?$/;

/**
 * True when a Host header value can name this server: the shape above, and accepted by the WHATWG
 * URL parser that Hono's request URL goes through (which refuses, e.g., `a.1`: a name whose last
 * label is numeric must be an IPv4 address), with a port up to 65535. A missing Host (HTTP/1.0)
 * passes: Node itself refuses HTTP/1.1 requests without one.
 */
export function validHostHeader(host: string | undefined): boolean {
  if (host === undefined) return true;
  if (!HOST_SHAPE.test(host)) return false;
  try {
    const url = new URL(`http://${host}/`);
    return url.port === '' || Number(url.port) <= 65535;
  } catch {
    return false;
  }
}

/**
 * A guard for the node:http server wrapper, ahead of the ping endpoint and the Hono app: a request
 * whose Host header is invalid gets `400 {error, message}` and its connection closed, instead of
 * reaching routes that build URLs from it (issue #14 point 4: a 500 with a stack trace per request).
 * The last valid host is remembered, so the common case costs one string comparison.
 * @returns a function that answers a bad request and returns false, or returns true to go on
 */
export function hostGuard(): (req: IncomingMessage, res: ServerResponse) => boolean {
  let lastGood: string | undefined;
  const body = JSON.stringify(errorBody('invalid Host header: must be a host name or IP address with an optional port'));
  return (req, res) => {
    const host = req.headers.host;
    if (host === lastGood || validHostHeader(host)) {
      lastGood = host;
      return true;
    }
    req.resume();
    res.writeHead(400, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), connection: 'close' });
    res.end(body);
    return false;
  };
}

/**
 * The hosted domain status pages live under (`<subdomain>.<hosted domain>`): config
 * `status_pages.hosted_domain`, else the host of `public_url`.
 */
export function hostedDomain(config: Pick<Config, 'status_pages' | 'public_url'>): string {
  return config.status_pages.hosted_domain ?? new URL(config.public_url).hostname;
}
