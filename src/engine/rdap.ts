import { isIP } from 'node:net';

/**
 * An RDAP client for domain expiration dates (issue 36; RFC 9083 responses, RFC 7480 over HTTPS,
 * RFC 9224 bootstrap). The RDAP server of a name's TLD comes from the bootstrap file (IANA's
 * `https://data.iana.org/rdap/dns.json` by default, config `probe.rdap_bootstrap_url`); the request
 * goes to that server's base URL + `domain/<name>` and nowhere else: the monitor's host only ever
 * becomes the last path segment, as checked lower-case LDH labels, never an address to connect to.
 *
 * The registrable domain is found without a public-suffix list: candidates from the last two labels
 * up (`shop.example.co.uk` → `co.uk`, `example.co.uk`, `shop.example.co.uk`, at most {@link MAX_TRIES}),
 * the first that the registry knows (200 with an `expiration` event) wins; a 404 tries the next.
 * Readings are kept per host for a day ({@link CACHE_MS}); failures for an hour, so a registry that
 * is down is asked again at the next sweep but not hammered.
 */

/** A day: how long a reading (or the bootstrap file) is kept. */
export const CACHE_MS = 86_400_000;
/** How long a failed lookup is kept before asking again. */
const FAILURE_CACHE_MS = 3_600_000;
/** Candidate names tried per host. */
const MAX_TRIES = 3;
/** Each request's limit, ms. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Responses larger than this are refused (an RDAP domain object is a few kB). */
const MAX_BODY_BYTES = 1_048_576;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** One host's reading: the registrable domain and its expiration, or why there is none. */
export type RdapReading = { domain: string; expiresAt: number } | { error: string };

/** What the client needs: the bootstrap file's URL, the time (epoch ms) and the User-Agent of its requests. */
export interface RdapOptions {
  bootstrapUrl: string;
  now: () => number;
  userAgent: string;
}

/** Looks up domain expirations over RDAP, caching per host. */
export class RdapClient {
  #bootstrap: { at: number; services: Array<{ tlds: string[]; base: string }> } | null = null;
  readonly #cache = new Map<string, { at: number; reading: RdapReading }>();

  constructor(private readonly options: RdapOptions) {}

  /**
   * The expiration of `host`'s registrable domain, from the cache when fresh. Never throws: a
   * failure is `{error}` (`no RDAP server for .lan`, `RDAP 503 from rdap.example`, `not a domain name`).
   */
  async expiry(host: string): Promise<RdapReading> {
    const name = host.toLowerCase().replace(/\.$/, '');
    const now = this.options.now();
    const cached = this.#cache.get(name);
    if (cached && now - cached.at < ('error' in cached.reading ? FAILURE_CACHE_MS : CACHE_MS)) return cached.reading;
    const reading = await this.#lookup(name).catch((e: unknown): RdapReading => ({ error: (e as Error).message }));
    if (this.#cache.size >= 10_000) this.#cache.clear();
    this.#cache.set(name, { at: now, reading });
    return reading;
  }

  async #lookup(name: string): Promise<RdapReading> {
    const labels = name.split('.');
    if (isIP(name) || labels.length < 2 || !labels.every((l) => LABEL.test(l))) return { error: `${name} is not a registered domain name` };
    const base = await this.#serverFor(labels[labels.length - 1]!);
    if (!base) return { error: `no RDAP server for .${labels[labels.length - 1]} in the bootstrap file` };
    for (let n = 2; n <= Math.min(labels.length, MAX_TRIES + 1); n++) {
      const candidate = labels.slice(-n).join('.');
      const res = await this.#get(new URL(`domain/${candidate}`, base));
      if (res.status === 404) continue;
      if (res.status !== 200) return { error: `RDAP ${res.status} from ${new URL(base).host} for ${candidate}` };
      const events = (res.body as { events?: Array<{ eventAction?: unknown; eventDate?: unknown }> }).events ?? [];
      const date = events.find((e) => e.eventAction === 'expiration')?.eventDate;
      const at = typeof date === 'string' ? Date.parse(date) : NaN;
      if (!Number.isFinite(at)) return { error: `RDAP record of ${candidate} has no expiration date` };
      return { domain: candidate, expiresAt: at };
    }
    return { error: `${name}: no registered domain found over RDAP` };
  }

  /** The RDAP base URL (ending in `/`) for `tld`, from the bootstrap file (fetched at most daily). */
  async #serverFor(tld: string): Promise<string | null> {
    const now = this.options.now();
    if (!this.#bootstrap || now - this.#bootstrap.at >= CACHE_MS) {
      const res = await this.#get(new URL(this.options.bootstrapUrl));
      if (res.status !== 200) throw new Error(`RDAP bootstrap file: HTTP ${res.status}`);
      const services = (res.body as { services?: unknown }).services;
      if (!Array.isArray(services)) throw new Error('RDAP bootstrap file has no services list');
      this.#bootstrap = {
        at: now,
        services: services.flatMap((s: unknown) => {
          const [tlds, urls] = Array.isArray(s) ? (s as [unknown, unknown]) : [];
          if (!Array.isArray(tlds) || !Array.isArray(urls)) return [];
          const list = urls.filter((u): u is string => typeof u === 'string' && /^https?:\/\//.test(u));
          // RFC 9224 §4: prefer an https URL when the registry lists several.
          const base = list.find((u) => u.startsWith('https:')) ?? list[0];
          return base ? [{ tlds: tlds.map((t) => String(t).toLowerCase()), base: base.endsWith('/') ? base : `${base}/` }] : [];
        }),
      };
    }
    return this.#bootstrap.services.find((s) => s.tlds.includes(tld))?.base ?? null;
  }

  /** GET `url` as RDAP JSON: status and parsed body (null unless 200). @throws Error on network errors, timeouts, oversized or non-JSON answers */
  async #get(url: URL): Promise<{ status: number; body: unknown }> {
    const res = await fetch(url, { headers: { accept: 'application/rdap+json, application/json', 'user-agent': this.options.userAgent }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    if (res.status !== 200) {
      await res.body?.cancel();
      return { status: res.status, body: null };
    }
    const text = await res.text();
    if (text.length > MAX_BODY_BYTES) throw new Error(`RDAP answer from ${url.host} is too large`);
    try {
      return { status: 200, body: JSON.parse(text) as unknown };
    } catch {
      throw new Error(`RDAP answer from ${url.host} is not JSON`);
    }
  }
}
