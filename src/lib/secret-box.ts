import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from './errors.ts';

/**
 * Secrets at rest (issue 32 point 2): integration tokens, webhook URLs with keys and passwords are
 * stored sealed with AES-256-GCM (NIST SP 800-38D) under one 32-byte key per installation: env
 * `PHAROS_SECRET_KEY`, else `<data_dir>/secret.key`, created at first start. The key never leaves
 * this process's memory except in that file; nothing here logs a key or a plaintext.
 *
 * Sealed text: `v1:<key id>:<iv>:<tag>:<ciphertext>`, each part base64url without padding.
 * - `v1`: the format (AES-256-GCM, 96-bit IV, 128-bit tag, AAD = `v1:<key id>`).
 * - key id: 48 bits of HMAC-SHA256(key, "pharos/secret-key-id/v1"), so a secret sealed under another
 *   key is told apart from a damaged one before decryption; it reveals nothing usable about the key.
 * - IV: 12 random bytes per seal (SP 800-38D §8.2.2, the RBG-based construction: at most 2^32 seals
 *   per key, far above what an installation writes).
 */

/** The key file's name in the data dir. */
export const SECRET_KEY_FILE = 'secret.key';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_RULE = 'must be 32 bytes written as 64 hex digits or in base64 (e.g. the output of `openssl rand -base64 32`)';
const SEALED = /^v1:[A-Za-z0-9_-]{8}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]*$/;

/**
 * The 32-byte key written in `text` (64 hex digits, or base64 / base64url of 32 bytes; white space
 * around it ignored).
 * @param source what to name in the error (`PHAROS_SECRET_KEY` or the key file's path); the value itself is never echoed
 * @throws AppError 500 `secrets.invalid_key` `<source>: must be 32 bytes …`
 */
export function parseSecretKey(text: string, source: string): Buffer {
  const t = text.trim();
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(t)) key = Buffer.from(t, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) key = Buffer.from(t.replace(/=$/, ''), t.includes('-') || t.includes('_') ? 'base64url' : 'base64');
  if (!key || key.length !== KEY_BYTES) throw new AppError(500, 'secrets.invalid_key', `${source}: ${KEY_RULE}`);
  return key;
}

/** Where the key came from, and facts the wiring logs (never the key). */
export interface LoadedSecretKey {
  key: Buffer;
  /** `PHAROS_SECRET_KEY`, or the key file's path. */
  source: string;
  /** True when this call created the key file (first start). */
  created: boolean;
  /** True when the key file can be read by the group or others (mode & 0o077): worth a warning. */
  looseMode: boolean;
}

/**
 * The installation's secret key: `keyText` (the value of `PHAROS_SECRET_KEY`, passed in by the
 * wiring: only config/ reads the environment) when set and not empty, else `<dataDir>/secret.key`.
 * A missing key file is created (and `dataDir` with it) with 32 random bytes in base64 and mode 0600,
 * atomically: written and fsynced under a temporary name, then hard-linked to `secret.key`. link(2)
 * rather than rename(2) because rename replaces an existing file: two instances starting together on
 * one data dir cannot overwrite each other's key, the second one reads the first one's. An existing
 * key file is never rewritten, even when it is unreadable (the error says so).
 * @throws AppError 500 `secrets.invalid_key` (bad `keyText` or key file content),
 *   `secrets.key_file` when the file cannot be read or created (the OS error in the message)
 */
export function loadSecretKey(opts: { dataDir: string; keyText: string | undefined }): LoadedSecretKey {
  if (opts.keyText !== undefined && opts.keyText !== '') {
    return { key: parseSecretKey(opts.keyText, 'PHAROS_SECRET_KEY'), source: 'PHAROS_SECRET_KEY', created: false, looseMode: false };
  }
  const file = join(opts.dataDir, SECRET_KEY_FILE);
  let created = false;
  try {
    created = createKeyFileIfAbsent(opts.dataDir, file);
    const key = parseSecretKey(readFileSync(file, 'utf8'), file);
    return { key, source: file, created, looseMode: (statSync(file).mode & 0o077) !== 0 };
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw new AppError(500, 'secrets.key_file', `${file}: cannot read or create the secret key file: ${(e as Error).message}`);
  }
}

/** Creates `file` with a new key unless it exists; true when this call created it. */
function createKeyFileIfAbsent(dataDir: string, file: string): boolean {
  try {
    statSync(file);
    return false;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  mkdirSync(dataDir, { recursive: true });
  const temp = join(dataDir, `.${SECRET_KEY_FILE}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, randomBytes(KEY_BYTES).toString('base64') + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, file);
    syncDir(dataDir);
    return true;
  } catch (e) {
    // Another process created the key between our stat and our link: its key is the one.
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    unlinkSync(temp);
  }
}

/** fsync of a directory so a new entry survives a crash (Linux; other systems may refuse, which is harmless here). */
function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM') throw e;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Seals and opens secrets under one key. */
export interface SecretBox {
  /** The key's fingerprint (8 base64url characters), part of every sealed text; safe to log. */
  readonly keyId: string;
  /** `plaintext` sealed: `v1:<key id>:<iv>:<tag>:<ciphertext>` (a new random IV each call). */
  seal(plaintext: string): string;
  /**
   * The plaintext of `sealed`.
   * @throws AppError 500 `secrets.wrong_key` when it was sealed under another key (both key ids and
   *   the fix named), `secrets.corrupt` when it is not a sealed text or fails authentication
   */
  open(sealed: string): string;
  /**
   * HMAC-SHA256(key, "pharos/secret-key-check/v1") in base64url: what the database keeps so that
   * instances sharing it can tell they hold the same key (store/secret-check.ts).
   */
  keyCheck(): string;
}

const hmac = (key: Buffer, label: string) => createHmac('sha256', key).update(label).digest();

/**
 * A {@link SecretBox} over a 32-byte key (from {@link loadSecretKey} or {@link parseSecretKey}).
 * @throws Error when `key` is not 32 bytes
 */
export function secretBox(key: Buffer): SecretBox {
  if (key.length !== KEY_BYTES) throw new Error('secretBox: the key must be 32 bytes');
  const k = Buffer.from(key);
  const keyId = hmac(k, 'pharos/secret-key-id/v1').subarray(0, 6).toString('base64url');
  const aad = Buffer.from(`v1:${keyId}`);
  return {
    keyId,
    seal(plaintext: string): string {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', k, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad);
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `v1:${keyId}:${iv.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}:${ct.toString('base64url')}`;
    },
    open(sealed: string): string {
      if (!SEALED.test(sealed)) throw new AppError(500, 'secrets.corrupt', 'a stored secret is not a sealed text of a format this Pharos knows (v1)');
      const [, id, iv, tag, ct] = sealed.split(':') as [string, string, string, string, string];
      if (id !== keyId) {
        throw new AppError(
          500,
          'secrets.wrong_key',
          `a stored secret was sealed with the key ${id}, this instance has the key ${keyId}: ` +
            `restore the data dir's ${SECRET_KEY_FILE} of the instance that stored it, or set PHAROS_SECRET_KEY to that key`,
        );
      }
      try {
        const d = createDecipheriv('aes-256-gcm', k, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
        d.setAAD(aad);
        d.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8');
      } catch (e) {
        throw new AppError(500, 'secrets.corrupt', `a stored secret sealed with the key ${keyId} fails authentication (damaged or altered): ${(e as Error).message}`);
      }
    },
    keyCheck: () => hmac(k, 'pharos/secret-key-check/v1').toString('base64url'),
  };
}

/** True when `value` has the form of a sealed text (it says nothing of the key). */
export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && SEALED.test(value);
}
