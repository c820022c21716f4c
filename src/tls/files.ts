import { X509Certificate } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A certificate chain and its key as kept on disk, with the leaf's validity (UTC epoch ms). */
export interface StoredCert {
  host: string;
  /** PEM chain, leaf first. */
  chain: string;
  /** PEM private key. */
  key: string;
  notBeforeMs: number;
  notAfterMs: number;
}

/** Validity of a PEM chain's first certificate, UTC epoch ms. @throws Error when it is not a certificate */
export function validity(chain: string): { notBeforeMs: number; notAfterMs: number } {
  const leaf = new X509Certificate(chain);
  return { notBeforeMs: Date.parse(leaf.validFrom), notAfterMs: Date.parse(leaf.validTo) };
}

/**
 * ACME state under `<data_dir>/tls/` (docs/operations.md "HTTPS"): `account.key` (the ACME account's
 * key) and `certs/<host>.crt` + `certs/<host>.key`. Every file is written 0600 under a temporary name
 * and renamed, so a reader never sees half a key. One set per data dir: with PostgreSQL and several
 * instances, each instance obtains its own certificates.
 */
export function tlsFiles(dataDir: string) {
  const dir = join(dataDir, 'tls');
  const certs = join(dir, 'certs');
  const write = async (path: string, text: string) => {
    const tmp = `${path}.tmp`;
    await writeFile(tmp, text, { mode: 0o600 });
    await rename(tmp, path);
  };
  const readOrNull = async (path: string): Promise<string | null> => {
    try {
      return await readFile(path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  };
  // Host names are checked by the caller (config schema, status page hostnames); never a path.
  const base = (host: string) => {
    if (!/^[a-z0-9.-]+$/.test(host) || host.includes('..')) throw new Error(`not a host name: ${host}`);
    return join(certs, host);
  };
  return {
    dir,
    /** The account key (PEM), or null before the first order. */
    accountKey: () => readOrNull(join(dir, 'account.key')),
    /** Keeps the account key. */
    async saveAccountKey(pem: string): Promise<void> {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await write(join(dir, 'account.key'), pem);
    },
    /** The stored certificate of `host`, or null. @throws Error when the files exist but do not hold a certificate */
    async load(host: string): Promise<StoredCert | null> {
      const [chain, key] = await Promise.all([readOrNull(`${base(host)}.crt`), readOrNull(`${base(host)}.key`)]);
      if (chain === null || key === null) return null;
      return { host, chain, key, ...validity(chain) };
    },
    /** Keeps `host`'s chain and key (key first: a chain is never on disk without its key). */
    async save(host: string, chain: string, key: string): Promise<StoredCert> {
      await mkdir(certs, { recursive: true, mode: 0o700 });
      await write(`${base(host)}.key`, key);
      await write(`${base(host)}.crt`, chain);
      return { host, chain, key, ...validity(chain) };
    },
    /** Hosts with a stored certificate. */
    async hosts(): Promise<string[]> {
      try {
        return (await readdir(certs)).filter((f) => f.endsWith('.crt')).map((f) => f.slice(0, -4));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw e;
      }
    },
  };
}

/** The certificate files of one data dir. */
export type TlsFiles = ReturnType<typeof tlsFiles>;
