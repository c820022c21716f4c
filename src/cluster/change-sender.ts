import type { ClusterChange } from '../domain/cluster.ts';
import { changePayloads } from './outage-watch.ts';

/** How long changes of kind `healthcheck` are held to be sent together, ms (the default of {@link changeSender}). */
export const HEALTHCHECK_COALESCE_MS = 200;

/**
 * The outgoing change messages of one instance (cluster/postgres.ts sends them as NOTIFY).
 *
 * A change of kind `healthcheck` — every ping announces one — waits up to `coalesceMs`: all the
 * changes published meanwhile go out together, each distinct change once, so a healthcheck pinged
 * many times in a window costs every other instance one relayed change, not one per ping (issue 31
 * point 4: each relayed change is a read on every other instance, so the work grew with the number of
 * instances). Any other change (outages, monitors, alerts…) is sent on the next turn of the event loop
 * and takes the held ones with it, so a status flip travels with its outage event at once. A relayed
 * `healthcheck` change only says "re-read this healthcheck", so holding it delays what followers show
 * by at most `coalesceMs`; nothing depends on it for correctness (the leader re-reads a healthcheck in
 * the store before it acts on a deadline).
 */
export function changeSender(deps: {
  /** This instance's id (the messages' `from`). */
  from: string;
  /** Largest payload, bytes: a batch is cut into several messages below it. */
  maxBytes: number;
  /** Hold time of `healthcheck` changes, ms. */
  coalesceMs?: number;
  /** True when payloads can be sent now (connected); else the changes stay pending for {@link flush}. */
  ready: () => boolean;
  /** Sends one payload (a JSON `{from, changes}` message). */
  send: (payload: string) => void;
}) {
  const coalesceMs = deps.coalesceMs ?? HEALTHCHECK_COALESCE_MS;
  const pending = new Map<string, ClusterChange>();
  let soon = false;
  let held: NodeJS.Timeout | null = null;

  const flush = () => {
    soon = false;
    if (held) clearTimeout(held);
    held = null;
    if (pending.size === 0 || !deps.ready()) return;
    const all = [...pending.values()];
    pending.clear();
    for (const payload of changePayloads(deps.from, all, deps.maxBytes)) deps.send(payload);
  };

  return {
    /** Queues a change (a repeat of a pending one is sent once). */
    publish(change: ClusterChange): void {
      const key = JSON.stringify(change);
      pending.delete(key);
      pending.set(key, change);
      if (change.kind === 'healthcheck') {
        if (!soon && !held) {
          held = setTimeout(flush, coalesceMs);
          held.unref();
        }
      } else if (!soon) {
        soon = true;
        setImmediate(flush);
      }
    },
    /** Sends everything pending now (after a reconnection). */
    flush,
    /** Changes waiting to be sent. */
    get pending(): number {
      return pending.size;
    },
    /** Drops what is pending and its timer (the instance stops). */
    stop(): void {
      if (held) clearTimeout(held);
      held = null;
      pending.clear();
    },
  };
}
