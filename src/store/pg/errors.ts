/** The PostgreSQL driver's errors as the API answers them (pg/driver.ts re-exports them). */
import { AppError } from '../../lib/errors.ts';

/** The error every store call throws while the database cannot be reached: the API answers 503. */
export function unavailable(): AppError {
  return new AppError(503, 'store.unavailable', 'the database is unavailable: the change was not saved, try again shortly');
}

/**
 * The error of a write whose COMMIT (or a write committing by itself) was on its way to the server
 * or running there when the connection was lost or the caller gave up: it may have been saved or not,
 * and no one can tell before the database answers again. Answered 503 like {@link unavailable}, with
 * code `store.outcome_unknown`, so a client does not take it for "not saved" and create a duplicate
 * (the same ambiguity as a lost COMMIT answer in any database client; PostgreSQL docs, "txid_status").
 */
export function outcomeUnknown(): AppError {
  return new AppError(503, 'store.outcome_unknown', 'the connection to the database was lost while the change was being committed: it may or may not have been saved; check before trying again');
}

/** `url` with its password replaced by `***` (for logs and messages). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}
