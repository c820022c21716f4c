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
 * Runs `write`, a write whose record names an escalation policy (or none), with the policy names its
 * answer shows: `list()` is read before the write (the database already gone: nothing is written), and
 * again after it only when the written record names a policy the first read did not hold (created a
 * moment before), falling back to the first read when the database cannot answer by then.
 * @returns the written record and the policy names
 * @throws what `list()` throws before the write, and what `write()` throws
 */
export async function writeWithPolicies<R extends { escalationPolicyUuid: string | null }, P extends PolicyName>(list: () => Promise<readonly P[]>, write: () => Promise<R>): Promise<[R, readonly P[]]> {
  const known = await list();
  const record = await write();
  const uuid = record.escalationPolicyUuid;
  return [record, !uuid || known.some((p) => p.uuid === uuid) ? known : await readAfterWrite(list, known)];
}
