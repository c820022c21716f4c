import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { buildConnector } from '../lib/undici.ts';
import { ipLiteralOf, isPublicAddress } from '../lib/ip-ranges.ts';

/** Error code of a connection refused because its address is not public (read by `describeHttpFailure`). */
export const REFUSED_ADDRESS_CODE = 'ERR_PHAROS_REFUSED_ADDRESS';

/** The error a refused address fails with; permanent for the outbox (retrying cannot help). */
export class RefusedAddressError extends Error {
  readonly code = REFUSED_ADDRESS_CODE;
  constructor(host: string) {
    super(`${host} is not a public address (loopback, private, link-local, unique local or reserved); refused`);
    this.name = 'RefusedAddressError';
  }
}

/**
 * A `lookup` for `net.connect`/`tls.connect` that resolves with the system resolver and keeps only
 * global unicast addresses ({@link isPublicAddress}); a name with none left fails with
 * {@link RefusedAddressError}. The check runs on the addresses the socket then connects to, at
 * connect time, so a name that resolved to a public address when it was validated and to
 * 127.0.0.1 now (DNS rebinding) is refused. Answers in the form asked for (`all` or one address).
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const allowed = addresses.filter((a) => isPublicAddress(a.address));
    if (allowed.length === 0) return callback(Object.assign(new RefusedAddressError(hostname), { hostname }) as NodeJS.ErrnoException, '', 0);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
    callback(null, allowed[0]!.address, allowed[0]!.family);
  });
};

/**
 * An undici connector (the `connect` option of an Agent) that reaches public addresses only:
 * an IP literal host is checked before connecting (sockets skip `lookup` for literals), a name is
 * resolved through {@link publicOnlyLookup}. Used for targets chosen by anonymous visitors
 * (status-page subscriber webhooks); operator-configured channels do not use it.
 * @param timeoutMs connect timeout, ms
 */
export function publicOnlyConnector(timeoutMs: number): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs, lookup: publicOnlyLookup });
  return (options, callback) => {
    const literal = ipLiteralOf(options.hostname);
    if (literal !== null && !isPublicAddress(literal)) {
      // undici expects the callback asynchronously, like a failed connect.
      queueMicrotask(() => callback(new RefusedAddressError(options.hostname), null));
      return;
    }
    return connect(options, callback);
  };
}
