import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { AppError } from '../lib/errors.ts';
import type { Logger } from '../lib/logger.ts';
import { validity } from './files.ts';

/** How often the certificate files' modification times are looked at, ms (fs.watchFile polls: it survives renames and symlink swaps). */
const POLL_MS = 1_000;

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * `tls.cert` + `tls.key` (docs/operations.md "HTTPS"): read at start, read again whenever either file
 * changes (certbot's renew hook, a cron job copying new files), applied to the running server without a
 * restart. A pair that does not load (half-written, key not matching) is logged and the previous one is
 * kept until the next change.
 * @throws AppError `tls.invalid` at start when the files cannot be read or do not form a pair
 */
export function watchCertFiles(deps: { cert: string; key: string; logger: Logger; apply: (ctx: SecureContextOptions) => void }) {
  const { logger } = deps;
  const read = (): SecureContextOptions & { notAfterMs: number } => {
    const cert = readFileSync(deps.cert, 'utf8');
    const key = readFileSync(deps.key, 'utf8');
    createSecureContext({ cert, key }); // throws when the key does not match the certificate
    return { cert, key, notAfterMs: validity(cert).notAfterMs };
  };
  let current: SecureContextOptions;
  try {
    const first = read();
    current = { cert: first.cert, key: first.key };
    logger.info(`tls: certificate from ${deps.cert}, valid until ${iso(first.notAfterMs)}`, { cert: deps.cert });
  } catch (e) {
    throw new AppError(400, 'tls.invalid', `tls: cannot use ${deps.cert} and ${deps.key}: ${(e as Error).message}`);
  }
  const changed = (now: Stats, before: Stats) => {
    if (now.mtimeMs === before.mtimeMs && now.size === before.size && now.ino === before.ino) return;
    try {
      const next = read();
      if (next.cert === current.cert && next.key === current.key) return;
      current = { cert: next.cert, key: next.key };
      deps.apply(current);
      logger.info(`tls: certificate reloaded from ${deps.cert}, valid until ${iso(next.notAfterMs)}`, { cert: deps.cert });
    } catch (e) {
      logger.warn(`tls: ${deps.cert} / ${deps.key} changed but cannot be used (${(e as Error).message}); still serving the previous certificate`, { cert: deps.cert });
    }
  };
  watchFile(deps.cert, { interval: POLL_MS, persistent: false }, changed);
  watchFile(deps.key, { interval: POLL_MS, persistent: false }, changed);
  return {
    /** The pair in use. */
    current: (): SecureContextOptions => current,
    /** Stops watching. */
    close(): void {
      unwatchFile(deps.cert, changed);
      unwatchFile(deps.key, changed);
    },
  };
}
