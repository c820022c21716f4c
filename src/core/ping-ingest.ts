import type { Ping, StoredPing } from '../domain/ping.ts';
import type { Store } from '../store/index.ts';

interface Pending {
  token: string;
  ping: Ping;
  resolve: (p: StoredPing | null) => void;
  reject: (e: unknown) => void;
}

/** What applying one ping produced, for the announcement after the commit. */
interface Applied {
  stored: StoredPing;
}

/**
 * Group commit for pings (ARCHITECTURE.md "Hot paths": pings commit before the response is sent).
 * Pings that arrive in the same turn of the event loop are applied in one transaction on the next
 * `setImmediate`; each caller's promise resolves only after that commit, so an acknowledged ping
 * is stored. Under load this turns thousands of commits per second into a few hundred.
 * If the transaction fails, every ping of the batch is rejected (their requests answer 5xx).
 * `finish` runs inside the transaction after the last `apply` with the batch's applied pings (what
 * `apply` deferred, e.g. the ping rows as one multi-row INSERT, is written there).
 */
export function pingIngest<R extends Applied>(deps: {
  store: Pick<Store, 'tx'>;
  /** Applies one ping inside the transaction; null for an unknown token. */
  apply: (token: string, ping: Ping) => R | null;
  /** Runs inside the transaction once every ping of the batch was applied, with the applied ones. */
  finish: (applied: R[]) => void;
  /** Runs after the commit for each applied ping (events). */
  announce: (result: R) => void;
}) {
  let queue: Pending[] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const batch = queue;
    queue = [];
    let results: (R | null)[];
    try {
      results = deps.store.tx(() => {
        const all = batch.map((p) => deps.apply(p.token, p.ping));
        deps.finish(all.filter((r): r is R => r !== null));
        return all;
      });
    } catch (e) {
      for (const p of batch) p.reject(e);
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i]?.stored ?? null));
    for (const r of results) if (r) deps.announce(r);
  };

  return {
    /** Queues a ping; resolves with the stored ping (null: unknown token) once committed. */
    submit(token: string, ping: Ping): Promise<StoredPing | null> {
      return new Promise((resolve, reject) => {
        queue.push({ token, ping, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}
