/**
 * Reads that a write's answer needs besides the written record (a monitor's escalation policy name,
 * a healthcheck's last downtime). A write that committed must not be answered 503 "the change was
 * not saved" because such a read failed after it (CI run on fee8b45: a monitor created during a
 * PostgreSQL outage answered 503 and existed). So the read is made before the write where it can be
 * (the database already gone: the request fails and nothing is written), and one made after the write
 * falls back to what is known when the database cannot answer it.
 */
import { AppError } from '../../lib/errors.ts';

/** True for the store's "cannot answer now" errors (AppError 503 `store.*`: unavailable, outcome unknown, full). */
export function storeCannotAnswer(e: unknown): boolean {
  return e instanceof AppError && e.status === 503 && (e.code ?? '').startsWith('store.');
}

/**
 * `read()` made after a write committed; its value, or `known` when the store cannot answer
 * ({@link storeCannotAnswer}). Any other error is thrown.
 */
export async function readAfterWrite<T>(read: () => Promise<T>, known: T): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (storeCannotAnswer(e)) return known;
    throw e;
  }
}

/** An escalation policy as answers name it. */
export interface PolicyName {
  uuid: string;
  name: string;
}

/**
 * The policy names for the answer of a write whose record refers to `uuid`: `known` (read before the
 * write) when it holds that policy, else read again after the write, falling back to `known`.
 * @param uuid the written record's escalation policy, or null
 */
export async function policiesAfterWrite<P extends PolicyName>(uuid: string | null | undefined, known: readonly P[], read: () => Promise<readonly P[]>): Promise<readonly P[]> {
  if (!uuid || known.some((p) => p.uuid === uuid)) return known;
  return readAfterWrite(read, known);
}
