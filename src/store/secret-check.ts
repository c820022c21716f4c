import { AppError } from '../lib/errors.ts';
import { loadSecretKey, SECRET_KEY_FILE, secretBox, type SecretBox } from '../lib/secret-box.ts';
import type { Db } from './driver.ts';
import type { Store } from './index.ts';

/** The database's record of the key its secrets are sealed with (table `secret_key_check`, one row). */
export interface SecretKeyCheck {
  /** The key's fingerprint (lib/secret-box.ts `SecretBox.keyId`). */
  keyId: string;
  /** HMAC of a constant under the key (`SecretBox.keyCheck()`). */
  keyCheck: string;
  /** When the first instance recorded it, epoch ms. */
  createdAt: number;
}

interface Row {
  key_id: string;
  key_check: string;
  created_at: number;
}

/**
 * The secret key check (issue 32 point 2): on PostgreSQL every instance has its own data dir, hence
 * possibly its own `secret.key`; the database keeps which key its secrets are sealed with so that an
 * instance holding another one refuses to start instead of failing at every alert.
 */
export function secretKeyStore(db: Db) {
  const get = db.prepare<[], Row>('SELECT key_id, key_check, created_at FROM secret_key_check WHERE id = 1');
  const claim = db.prepare('INSERT OR IGNORE INTO secret_key_check(id, key_id, key_check, created_at) VALUES (1, ?, ?, ?)');
  const read = (): SecretKeyCheck | undefined => {
    const r = get.get();
    return r && { keyId: r.key_id, keyCheck: r.key_check, createdAt: r.created_at };
  };
  return {
    /** The recorded key, or undefined before the first start with this version. */
    get: read,
    /**
     * Records `keyId`/`keyCheck` unless a key is recorded already (two instances starting together:
     * the first insert wins, the other reads it), and returns the recorded one.
     */
    claim(keyId: string, keyCheck: string, now: number): SecretKeyCheck {
      claim.run(keyId, keyCheck, now);
      return read()!;
    },
  };
}

/** The secret key store's interface. */
export type SecretKeyStore = ReturnType<typeof secretKeyStore>;

/**
 * Checks that `box` holds the key this database's secrets are sealed with, recording it when the
 * database has none yet (first start). Goes through `store.async`: never blocks the event loop.
 * @param source where the key came from, named in the error (`PHAROS_SECRET_KEY` or the key file)
 * @throws AppError 500 `secrets.key_mismatch` naming both key ids and what to do: copy secret.key or
 *   set PHAROS_SECRET_KEY alike on every instance
 */
export async function checkSecretKey(store: Store, box: SecretBox, source: string, now: number): Promise<void> {
  const recorded = await store.async.secretKey.claim(box.keyId, box.keyCheck(), now);
  if (recorded.keyCheck === box.keyCheck()) return;
  throw new AppError(
    500,
    'secrets.key_mismatch',
    `the secret key of this instance (${source}, key ${box.keyId}) is not the one this database's secrets are sealed with (key ${recorded.keyId}, ` +
      `recorded ${new Date(recorded.createdAt).toISOString()}): copy ${SECRET_KEY_FILE} from the data dir of the instance that stored them ` +
      `into this one's, or set PHAROS_SECRET_KEY to the same key on every instance`,
  );
}

/**
 * At start (the wiring's one call): loads the key (`keyText`, the value of PHAROS_SECRET_KEY, else
 * `<dataDir>/secret.key`, created at first start: lib/secret-box.ts `loadSecretKey`) and checks it
 * against the database ({@link checkSecretKey}).
 * @returns the box to seal and open integration secrets with, and facts to log (never the key)
 * @throws AppError `secrets.invalid_key`, `secrets.key_file`, `secrets.key_mismatch`
 */
export async function openSecretBox(store: Store, opts: { dataDir: string; keyText: string | undefined; now: number }): Promise<{ box: SecretBox; source: string; created: boolean; looseMode: boolean }> {
  const loaded = loadSecretKey(opts);
  const box = secretBox(loaded.key);
  await checkSecretKey(store, box, loaded.source, opts.now);
  return { box, source: loaded.source, created: loaded.created, looseMode: loaded.looseMode };
}
