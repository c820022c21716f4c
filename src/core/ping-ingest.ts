import type { Ping, StoredPing } from '../domain/ping.ts';

interface Pending {
  token: string;
  ping: Ping;
  resolve: (p: StoredPing | null) => void;
  reject: (e: unknown) => void;
}

/** What committing one ping produced, for the announcement after the commit. */
interface Applied {
  stored: StoredPing;
}

/**
 * Group commit for pings (ARCHITECTURE.md "Hot paths": pings commit before the response is sent).
 * Pings that arrive in the same turn of the event loop are committed in one transaction on the next
 * `setImmediate`; while that commit is in flight (PostgreSQL: the event loop goes on, issue 31) the
 * pings arriving meanwhile queue for the next transaction, which starts as soon as it ends — one
 * batch in flight at a time, so a batch grows with the load instead of the transactions' number.
 * Each caller's promise resolves only after its batch committed, so an acknowledged ping is stored;
 * if the commit fails, every ping of the batch is rejected (their requests answer 5xx).
 */
export function pingIngest<R extends Applied>(deps: {
  /** Commits a batch in one transaction; resolves once committed with each ping's result, in order (null: unknown token). */
  commit: (batch: ReadonlyArray<{ token: string; ping: Ping }>) => Promise<Array<R | null>>;
  /** Runs after the commit for each applied ping (events). */
  announce: (result: R) => void;
}) {
  let queue: Pending[] = [];
  let scheduled = false;
  let inFlight = false;

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };
  const flush = () => {
    scheduled = false;
    if (inFlight || queue.length === 0) return;
    const batch = queue;
    queue = [];
    inFlight = true;
    let committed: Promise<Array<R | null>>;
    try {
      committed = deps.commit(batch);
    } catch (e) {
      committed = Promise.reject(e as Error);
    }
    committed
      .then(
        (results) => {
          batch.forEach((p, i) => p.resolve(results[i]?.stored ?? null));
          for (const r of results) if (r) deps.announce(r);
        },
        (e: unknown) => {
          for (const p of batch) p.reject(e);
        },
      )
      .finally(() => {
        inFlight = false;
        if (queue.length > 0) schedule();
      });
  };

  return {
    /** Queues a ping; resolves with the stored ping (null: unknown token) once committed. */
    submit(token: string, ping: Ping): Promise<StoredPing | null> {
      return new Promise((resolve, reject) => {
        queue.push({ token, ping, resolve, reject });
        if (!inFlight) schedule();
      });
    },
  };
}
