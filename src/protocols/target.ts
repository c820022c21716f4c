import { isIP } from 'node:net';
import { invalid } from '../lib/errors.ts';
import type { ProbeTarget } from './types.ts';

const HOSTNAME = /^(?=.{1,253}$)(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)*\.?$/;

/** True for a host name or an IP address (brackets already removed). */
export function isHost(host: string): boolean {
  return host.length > 0 && (isIP(host) !== 0 || HOSTNAME.test(host));
}

/**
 * An absolute URL with one of `schemes` (e.g. `['http:', 'https:']`) → target; the URL's port or
 * `defaultPort`. @throws AppError 400 `url: must be …` naming `expected`
 */
export function urlTarget(raw: string, schemes: readonly string[], expected: string, defaultPort: number | null = null): ProbeTarget {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw invalid('url', `must be ${expected}`);
  }
  if (!schemes.includes(u.protocol)) throw invalid('url', `must be ${expected}`);
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  if (!host) throw invalid('url', 'must name a host');
  return { url: u.href, host, port: u.port ? Number(u.port) : defaultPort };
}

/**
 * A host name or IP, `host:port`, or a URL whose host is taken (CONTRACT.md "Monitors") → target.
 * An explicit `port` wins over a port in the url; `defaultPort` fills in when neither gives one.
 * @throws AppError 400 (`url: …`) when no host can be read
 */
export function hostTarget(url: string, port: number | null, defaultPort: number | null = null): ProbeTarget {
  const raw = url.trim();
  let host = raw;
  let urlPort: number | null = null;
  if (raw.includes('://')) {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw invalid('url', 'must be a host name, an IP address or a URL');
    }
    host = u.hostname;
    urlPort = u.port ? Number(u.port) : null;
  } else if (/^[^:\[\]]+:\d{1,5}$/.test(raw)) {
    const i = raw.lastIndexOf(':');
    host = raw.slice(0, i);
    urlPort = Number(raw.slice(i + 1));
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (!isHost(host)) throw invalid('url', 'must be a host name, an IP address or a URL');
  const p = port ?? urlPort ?? defaultPort;
  if (p !== null && (p < 1 || p > 65535)) throw invalid('url', 'port must be from 1 to 65535');
  return { url: raw, host, port: p };
}

/** What a secret is shown as, and what a writer sends to keep the stored one (src/protocols/secrets.ts). */
export const MASK = '***';

/** The schemes whose URLs end their authority at a backslash too (WHATWG URL "special schemes"). */
const SPECIAL = new Set(['http', 'https', 'ws', 'wss', 'ftp', 'file']);

/** Where a URL's password sits (src/protocols/secrets.ts) in the string as given: [start, end) offsets, or null when it has none. */
export function passwordSpan(url: string): [number, number] | null {
  const m = /^\s*([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url);
  if (!m) return null;
  const from = m[0].length;
  const stop = SPECIAL.has(m[1]!.toLowerCase()) ? /[/?#\\]/ : /[/?#]/;
  const rest = url.slice(from);
  const authority = rest.slice(0, rest.search(stop) < 0 ? rest.length : rest.search(stop));
  // The last @ ends the userinfo (WHATWG), the first : in it starts the password.
  const at = authority.lastIndexOf('@');
  if (at < 0) return null;
  const colon = authority.indexOf(':');
  if (colon < 0 || colon > at || colon + 1 === at) return null;
  return [from + colon + 1, from + at];
}

/**
 * `url` with the password of its userinfo replaced by `***`, the rest exactly as given
 * (`postgres://app:s3cret@db/app` → `postgres://app:***@db/app`); a URL without one, or a bare host,
 * unchanged. When WHATWG parsing finds a password the string scan missed (an odd URL), the whole
 * parsed URL is returned with its password masked instead: nothing is ever shown unmasked.
 */
export function maskUrl(url: string): string {
  const span = passwordSpan(url);
  const masked = span ? url.slice(0, span[0]) + MASK + url.slice(span[1]) : url;
  try {
    const parsed = new URL(masked.trim());
    if (parsed.password && parsed.password !== MASK) {
      parsed.password = MASK;
      return parsed.href;
    }
  } catch {
    // Not a URL (a host name, host:port): it has no password.
  }
  return masked;
}

/**
 * A URL with its password replaced by `***` (database monitors carry credentials in `url`), for
 * alerts and outage listings: {@link maskUrl}, under its older name.
 */
export function redactCredentials(url: string): string {
  return maskUrl(url);
}
