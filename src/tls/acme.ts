import { createSecureContext, type SecureContext } from 'node:tls';
import { Client, crypto as acmeCrypto } from 'acme-client';
import type { TlsConfig } from '../config/tls.ts';
import type { Clock, TimerHandle } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { StoredCert, TlsFiles } from './files.ts';

/** Certificates kept in memory (SNI); others are read again from disk when asked for. */
const CACHE_MAX = 1_000;
/** After a failed order, no other order for that host for this long, ms, doubling per failure in a row up to MAX_RETRY_MS (CAs limit failed validations per hour). */
const RETRY_MS = 60 * 60_000;
const MAX_RETRY_MS = 24 * 60 * 60_000;
/**
 * A host's certificate is not ordered again sooner than this after the last one, ms: a CA whose clock or
 * lifetimes make a new certificate due at once (clock skew, very short lifetimes) is not asked in a loop.
 */
const MIN_REORDER_MS = 24 * 60 * 60_000;
/** Longest wait between renewal passes, ms (below setTimeout's 24.8-day limit). */
const MAX_WAIT_MS = 7 * 86_400_000;

/** A certificate ready to serve. */
interface Entry {
  cert: StoredCert;
  context: SecureContext;
}

/** What the ACME manager needs. */
export interface AcmeDeps {
  acme: NonNullable<TlsConfig['acme']>;
  files: TlsFiles;
  clock: Clock;
  logger: Logger;
  /** True when a status page answers at `host` (its custom hostname or `<subdomain>.<hosted_domain>`). */
  pageAnswersAt(host: string): Promise<boolean>;
  /** Raises (`error`) or resolves (null) the operator notice of `host`'s certificate failure. Never rejects. */
  notify(host: string, error: string | null, now: number): Promise<void>;
  /** Called with the first configured domain's certificate whenever it is loaded or replaced: what clients sending no SNI get. */
  onDefault(cert: StoredCert): void;
}

/** A certificate is renewed once less than a third of its lifetime is left (Let's Encrypt's advice: 30 of 90 days). */
export function renewalDueMs(c: Pick<StoredCert, 'notBeforeMs' | 'notAfterMs'>): number {
  return c.notAfterMs - Math.floor((c.notAfterMs - c.notBeforeMs) / 3);
}

/**
 * Certificates obtained and renewed over ACME (RFC 8555) with the `acme-client` library (its
 * `auto()` order flow: account, order, one challenge per authorization, finalize, download). One
 * certificate (ECDSA P-256) per host name. A name gets a certificate only when `tls.acme.domains`
 * lists it or, with `page_hostnames`, a status page answers at it: any other name is refused before an
 * order is placed (a stranger's SNI never makes Pharos ask a CA). Orders for one host never overlap;
 * after a failure the next waits RETRY_MS, doubling per failure in a row up to MAX_RETRY_MS; the first
 * failure of a run raises an operator notice, the success ending it resolves that notice. A renewal pass runs at start and whenever the next
 * certificate is due (at most MAX_WAIT_MS apart), on the injected clock.
 */
export function acmeManager(deps: AcmeDeps) {
  const { acme, files, clock, logger } = deps;
  const configured = new Set(acme.domains.map((d) => d.toLowerCase()));
  const cache = new Map<string, Entry>();
  /** HTTP-01: token → key authorization, while a challenge is pending. */
  const httpAnswers = new Map<string, string>();
  /** TLS-ALPN-01: host → the challenge certificate, while a challenge is pending. */
  const alpnContexts = new Map<string, SecureContext>();
  const ordering = new Map<string, Promise<Entry | null>>();
  /** Host → failures in a row and when its next order may be placed (bounded like the cache). */
  const failures = new Map<string, { count: number; until: number }>();
  /** Host → when its last certificate was obtained (clock), bounded like the cache. */
  const obtained = new Map<string, number>();
  const waitUntil = (host: string) => Math.max(failures.get(host)?.until ?? 0, (obtained.get(host) ?? -Infinity) + MIN_REORDER_MS);
  let client: Promise<Client> | null = null;
  let timer: TimerHandle | null = null;
  let passing: Promise<void> = Promise.resolve();
  let closed = false;
  const directoryHost = new URL(acme.directory).host;
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

  const remember = (e: Entry) => {
    cache.delete(e.cert.host);
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(e.cert.host, e);
    if (e.cert.host === acme.domains[0]?.toLowerCase()) deps.onDefault(e.cert);
    return e;
  };
  const entry = (cert: StoredCert): Entry => ({ cert, context: createSecureContext({ cert: cert.chain, key: cert.key }) });

  const accountClient = (): Promise<Client> => {
    client ??= (async () => {
      let key = await files.accountKey();
      if (key === null) {
        key = (await acmeCrypto.createPrivateEcdsaKey()).toString();
        await files.saveAccountKey(key);
      }
      // Polls from 1 s (acme-client's default: 5 s): an order for a page's hostname holds its first visitor's handshake.
      return new Client({ directoryUrl: acme.directory, accountKey: key, backoffMin: 1_000, backoffMax: 30_000, backoffAttempts: 10 });
    })().catch((e: unknown) => {
      client = null;
      throw e;
    });
    return client;
  };

  /** Whether `host` may have a certificate: configured, or a status page answers at it. */
  const allowed = async (host: string): Promise<boolean> => configured.has(host) || (acme.page_hostnames && (await deps.pageAnswersAt(host)));

  /** Places an order for `host` and keeps the certificate. Null when it failed (logged, notice raised). */
  const order = (host: string, renewal: boolean): Promise<Entry | null> => {
    const running = ordering.get(host);
    if (running) return running;
    const p = (async (): Promise<Entry | null> => {
      const started = clock.now();
      try {
        const c = await accountClient();
        const key = await acmeCrypto.createPrivateEcdsaKey();
        const [, csr] = await acmeCrypto.createCsr({ commonName: host, altNames: [host] }, key);
        const chain = await c.auto({
          csr,
          email: acme.email,
          termsOfServiceAgreed: true,
          challengePriority: [acme.challenge],
          // The CA checks; a self-check would need this machine to reach its own public address.
          skipChallengeVerification: true,
          challengeCreateFn: async (authz, challenge, keyAuthorization) => {
            if (challenge.type === 'http-01') httpAnswers.set(challenge.token, keyAuthorization);
            else {
              const [k, cert] = await acmeCrypto.createAlpnCertificate(authz, keyAuthorization);
              alpnContexts.set(authz.identifier.value.toLowerCase(), createSecureContext({ key: k, cert }));
            }
          },
          challengeRemoveFn: async (authz, challenge) => {
            httpAnswers.delete(challenge.token);
            alpnContexts.delete(authz.identifier.value.toLowerCase());
          },
        });
        const stored = await files.save(host, chain, key.toString());
        const hadFailed = failures.delete(host);
        obtained.delete(host);
        if (obtained.size >= CACHE_MAX) obtained.delete(obtained.keys().next().value!);
        obtained.set(host, clock.now());
        logger.info(`tls: certificate for ${host} ${renewal ? 'renewed' : 'issued'} by ${directoryHost} (${acme.challenge}), valid until ${iso(stored.notAfterMs)}, renewal from ${iso(renewalDueMs(stored))}`, { host, valid_until: iso(stored.notAfterMs) });
        if (hadFailed) await deps.notify(host, null, clock.now());
        return remember(entry(stored));
      } catch (e) {
        const error = (e as Error).message;
        const count = (failures.get(host)?.count ?? 0) + 1;
        const retryMs = Math.min(MAX_RETRY_MS, RETRY_MS * 2 ** (count - 1));
        failures.delete(host);
        if (failures.size >= CACHE_MAX) failures.delete(failures.keys().next().value!);
        failures.set(host, { count, until: started + retryMs });
        logger.error(`tls: ${renewal ? 'renewing' : 'obtaining'} the certificate for ${host} from ${directoryHost} failed: ${error}; next try in ${retryMs / 60_000} min`, { host, error, failures: count });
        // One notice per run of failures (resolved by the next success), not one per try.
        if (count === 1) await deps.notify(host, error, clock.now());
        return null;
      } finally {
        ordering.delete(host);
      }
    })();
    ordering.set(host, p);
    return p;
  };

  /** The stored certificate of `host` (memory, then disk), or null. */
  const stored = async (host: string): Promise<Entry | null> => {
    const hit = cache.get(host);
    if (hit) return hit;
    try {
      const cert = await files.load(host);
      return cert ? remember(entry(cert)) : null;
    } catch (e) {
      logger.error(`tls: the stored certificate of ${host} cannot be read: ${(e as Error).message}`, { host });
      return null;
    }
  };

  /** One renewal pass: every configured host without a certificate, every stored one due (and still allowed). */
  const pass = async (): Promise<void> => {
    const now = clock.now();
    const hosts = new Set([...configured, ...(await files.hosts())]);
    let next = now + MAX_WAIT_MS;
    for (const host of hosts) {
      if (closed) return;
      const wait = waitUntil(host);
      const have = await stored(host);
      let due = have ? renewalDueMs(have.cert) : now;
      if (due <= now && wait <= now && (await allowed(host))) {
        const got = await order(host, have !== null);
        if (got) due = renewalDueMs(got.cert);
        else if (!have) due = waitUntil(host);
      } else if (!configured.has(host) && due <= now && !(await allowed(host))) {
        continue; // no page answers at it any more: left to expire
      }
      next = Math.min(next, Math.max(due, waitUntil(host)));
    }
    schedule(next - clock.now());
  };
  const schedule = (delayMs: number) => {
    if (closed) return;
    timer?.cancel();
    timer = clock.setTimer(Math.min(MAX_WAIT_MS, Math.max(60_000, delayMs)), () => {
      timer = null;
      passing = pass().catch((e: unknown) => {
        logger.error(`tls: certificate renewal pass failed: ${(e as Error).message}`);
        schedule(RETRY_MS);
      });
    });
  };

  return {
    /** Starts the first pass (configured hosts are ordered in the background; start-up does not wait). */
    start(): void {
      passing = pass().catch((e: unknown) => {
        logger.error(`tls: certificate renewal pass failed: ${(e as Error).message}`);
        schedule(RETRY_MS);
      });
    },
    /** The key authorization answering an HTTP-01 challenge token, while one is pending. */
    httpAnswer: (token: string): string | undefined => httpAnswers.get(token),
    /** The TLS-ALPN-01 challenge certificate for `host`, while one is pending. */
    alpnContext: (host: string): SecureContext | undefined => alpnContexts.get(host.toLowerCase()),
    /** True while a TLS-ALPN-01 challenge for `host` is pending. */
    alpnPending: (host: string): boolean => alpnContexts.has(host.toLowerCase()),
    /**
     * The context to serve `servername` with: its stored certificate, or one ordered now when the name
     * is allowed (the handshake waits for the order). Null for a refused name or a failed order.
     */
    async contextFor(servername: string): Promise<SecureContext | null> {
      const host = servername.toLowerCase().replace(/\.$/, '');
      if (!/^[a-z0-9.-]+$/.test(host) || host.includes('..')) return null;
      const have = await stored(host);
      if (have) return have.context;
      if (waitUntil(host) > clock.now() || closed) return null;
      if (!(await allowed(host))) {
        logger.debug(`tls: no certificate for ${host}: neither tls.acme.domains nor a status page names it (no order placed)`, { host });
        return null;
      }
      return (await order(host, false))?.context ?? null;
    },
    /** Resolves when the current renewal pass (and orders it started) ended: tests. */
    settled: async (): Promise<void> => {
      await passing;
      await Promise.all([...ordering.values()]);
    },
    /** Stops the timer; orders in flight finish (their certificates are kept). */
    async close(): Promise<void> {
      closed = true;
      timer?.cancel();
      await passing.catch(() => undefined);
      await Promise.all([...ordering.values()]);
    },
  };
}

/** The running ACME manager. */
export type AcmeManager = ReturnType<typeof acmeManager>;
