import { createHash } from 'node:crypto';
import { createSecureContext, type TLSSocket } from 'node:tls';
import { buildConnector } from '../../lib/undici.ts';

/**
 * TLS session resumption for HTTPS checks (issue 38 point 2). Every check makes a new connection
 * (`connection: close`, so descriptors stay bounded at 10,000 distinct origins: docs/PERFORMANCE.md),
 * and without resumption every HTTPS check paid a full handshake (certificate chain, signature
 * checks: ~4 ms of CPU against ~0.8 ms for plain HTTP). A session ticket (TLS 1.3) or session id
 * (TLS 1.2) kept per origin lets the next check resume instead.
 *
 * Why not undici's own cache: `buildConnector` keeps at most 100 sessions (any more origins and every
 * check misses), holds them through `WeakRef`s (a collection drops them between checks), keys them by
 * server name alone (not the port), and a connector built per check (client certificates, ignored TLS
 * errors) starts with an empty one.
 */

/** Bounds of a {@link TlsSessionCache}. */
export interface TlsSessionCacheOptions {
  /** At most this many sessions (default 10,000; see {@link TlsSessionCache} for which go). */
  maxEntries?: number;
  /** At most this many bytes of sessions (default 32 MiB; a session is ~1–3 KB: it holds the server's certificate). */
  maxBytes?: number;
  /**
   * A session is offered for at most this long after the full handshake it descends from (ms,
   * default one hour): then a check makes a full handshake again, verifying and reading the served
   * certificate, so a changed or renewed certificate is seen within this time even when the server
   * accepts tickets for longer. Tickets a resumed connection receives keep their ancestor's time.
   */
  maxAgeMs?: number;
  /** Epoch ms now (tests). */
  now?: () => number;
}

interface Entry {
  session: Buffer;
  /** When the full handshake this session descends from was made (epoch ms). */
  fullAtMs: number;
}

/**
 * A bounded cache of TLS sessions by key (see {@link sessionKey}): a `Map` in use order, held to
 * `maxEntries` and `maxBytes` on every store. When full, the least recently used session goes only
 * when its full handshake is older than `maxAgeMs` (it would not be offered again anyway); otherwise the
 * new session is not kept. Plain LRU would drop, with more origins than places checked round-robin
 * (every monitor every period), each session just before its next use: no check would resume; this
 * way as many origins as there are places keep resuming and the rest make full handshakes.
 * One per probe (no module state).
 */
export class TlsSessionCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(o: TlsSessionCacheOptions = {}) {
    this.maxEntries = o.maxEntries ?? 10_000;
    this.maxBytes = o.maxBytes ?? 32 * 2 ** 20;
    this.maxAgeMs = o.maxAgeMs ?? 3_600_000;
    this.now = o.now ?? Date.now;
  }

  /** Sessions held now. */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes of sessions held now. */
  get sizeBytes(): number {
    return this.bytes;
  }

  /** The session to offer for `key`, or undefined (none, or its full handshake is older than `maxAgeMs`: dropped). */
  get(key: string): Buffer | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    this.entries.delete(key);
    if (this.now() - e.fullAtMs > this.maxAgeMs) {
      this.bytes -= e.session.length;
      return undefined;
    }
    this.entries.set(key, e);
    return e.session;
  }

  /**
   * Stores the newest session of `key`. `resumed`: it came over a resumed connection, so it keeps
   * the time of the full handshake it descends from (when that entry is still held).
   */
  set(key: string, session: Buffer, resumed: boolean): void {
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.bytes -= old.session.length;
    }
    const now = this.now();
    for (const [k, e] of this.entries) {
      if (this.entries.size < this.maxEntries && this.bytes + session.length <= this.maxBytes) break;
      if (now - e.fullAtMs <= this.maxAgeMs) return; // full of live sessions: this one is not kept
      this.entries.delete(k);
      this.bytes -= e.session.length;
    }
    if (this.entries.size >= this.maxEntries || this.bytes + session.length > this.maxBytes) return;
    this.entries.set(key, { session, fullAtMs: resumed && old !== undefined ? old.fullAtMs : now });
    this.bytes += session.length;
  }

  /** Forgets `key`'s session (its connection failed: the next one makes a full handshake). */
  delete(key: string): void {
    const e = this.entries.get(key);
    if (e === undefined) return;
    this.entries.delete(key);
    this.bytes -= e.session.length;
  }
}

/** The TLS options of a check's connections (src/protocols/http/options.ts). */
export interface CheckTlsOptions {
  rejectUnauthorized?: boolean;
  cert?: string;
  key?: string;
}

/**
 * What sets a session apart besides its origin: whether the certificate was verified, and which
 * client certificate (a SHA-256 of certificate and key, never the key itself) was shown. A session
 * is never offered across these: one made with verification off would resume without it, one made
 * with a client certificate would present that identity again.
 */
export function tlsProfile(o: CheckTlsOptions): string {
  const verify = o.rejectUnauthorized === false ? 'noverify' : 'verify';
  if (o.cert === undefined && o.key === undefined) return verify;
  return `${verify}:${createHash('sha256').update(o.cert ?? '').update('\0').update(o.key ?? '').digest('base64url')}`;
}

/**
 * The probe's connector for a check's TLS options, one per TLS profile (at most `maxProfiles`, least
 * recently used dropped), so checks with the same client certificate or `ignore_tls_errors` share
 * one `SecureContext` and connector instead of building them per check.
 * @param make builds the connector of a profile (the probe's: {@link sessionConnector} wrapped)
 */
export function connectorsByProfile(make: (tls: CheckTlsOptions) => buildConnector.connector, maxProfiles = 256): (tls: CheckTlsOptions) => buildConnector.connector {
  const byProfile = new Map<string, buildConnector.connector>();
  return (tls) => {
    const profile = tlsProfile(tls);
    let c = byProfile.get(profile);
    if (c === undefined) {
      c = make(tls);
      if (byProfile.size >= maxProfiles) byProfile.delete(byProfile.keys().next().value!);
    } else byProfile.delete(profile);
    byProfile.set(profile, c);
    return c;
  };
}

/**
 * The key exchange groups a check's TLS connections offer, in order (OpenSSL's group list, Node's
 * `ecdhCurve`): X25519 first (its key share is the only one the ClientHello carries), then P-256 and
 * P-384 for servers without X25519 (they answer with a HelloRetryRequest, one round trip more).
 * OpenSSL 3.5's default also offers the post-quantum hybrid X25519MLKEM768 and sends its key share
 * first; servers on OpenSSL 3.5 pick it, and its ML-KEM key generation and decapsulation made a
 * resumed HTTPS check cost ~20 % more CPU (1.12 vs 0.92 ms per connection, loopback, Node 24.21; issue
 * 38: 10,000 HTTPS monitors within 1.3× the CPU of HTTP). A health check's answer is not a secret
 * worth keeping from a future quantum computer; a check's certificate verification is unchanged.
 */
export const CHECK_TLS_GROUPS = 'X25519:P-256:P-384';

/** The cache key of a connection: TLS profile, server name (SNI) and `host:port`. */
export function sessionKey(profile: string, hostname: string, port: string | number, servername: string | null | undefined): string {
  return `${profile} ${servername ?? ''} ${hostname}:${port || 443}`;
}

/**
 * An undici connector (the probe's) that resumes TLS sessions from `cache`: http:// connections and
 * https:// ones without a session go through one `buildConnector(tls)` (its own cache off); a
 * connection with a session to offer goes through a connector built for it (`buildConnector`'s
 * `session` option is fixed per connector), so connect timeouts, keep-alive and error handling stay
 * undici's. Each socket's first `'session'` event stores its session (attached before any I/O: a
 * TLS 1.2 session arrives before `secureConnect`; a TLS 1.3 server may send several tickets, one is
 * enough); a connection that fails drops the one it offered.
 *
 * One `SecureContext` (the default CA store, the client certificate) serves every connection of the
 * connector: `tls.connect` without one builds a new OpenSSL context per connection, ~10 % of the CPU of
 * an HTTPS check in a profile (bench/monitors.ts --scheme https). The CA store is the one of when the
 * connector is made (`NODE_EXTRA_CA_CERTS` is read at start). It offers {@link CHECK_TLS_GROUPS}.
 * @param tls the check's TLS options (verification, client certificate)
 */
export function sessionConnector(tls: CheckTlsOptions, cache: TlsSessionCache): buildConnector.connector {
  const profile = tlsProfile(tls);
  const secureContext = createSecureContext({ ecdhCurve: CHECK_TLS_GROUPS, ...(tls.cert !== undefined || tls.key !== undefined ? { cert: tls.cert, key: tls.key } : {}) });
  const base = { rejectUnauthorized: tls.rejectUnauthorized !== false, secureContext, maxCachedSessions: 0 } as buildConnector.BuildOptions;
  const fresh = buildConnector(base);
  return (opts, cb) => {
    if (opts.protocol !== 'https:') {
      fresh(opts, cb);
      return;
    }
    const key = sessionKey(profile, opts.hostname, opts.port, opts.servername);
    const session = cache.get(key);
    const connect = session === undefined ? fresh : buildConnector({ ...base, session });
    // undici's connector returns the socket it made (its type says void).
    const socket = connect(opts, (err, s) => {
      if (err && session !== undefined) cache.delete(key);
      if (err) cb(err, null);
      else cb(null, s!);
    }) as unknown as TLSSocket | undefined;
    socket?.once('session', (ticket: Buffer) => cache.set(key, ticket, socket.isSessionReused()));
  };
}
