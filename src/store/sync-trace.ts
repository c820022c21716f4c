import { appendFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

/**
 * Finding the synchronous store calls left on the event loop (issue 31: on PostgreSQL each one is a
 * network round trip the loop waits for). The PostgreSQL driver calls {@link traceSyncCall} for every
 * synchronous statement; on the main thread this counts it, and with the environment variable
 * `PHAROS_TRACE_SYNC_STORE=<file>` (a development aid, not configuration) it appends one line per
 * distinct call site to `<file>`: the statement's first 80 characters and the first frames of the
 * stack outside src/store. The store host thread's calls (store/host-client.ts) are not counted: that
 * thread exists to wait.
 */

const file = process.env.PHAROS_TRACE_SYNC_STORE;
const seen = new Set<string>();
let count = 0;
let serving = false;
let countServing = 0;

/**
 * Marks the end of start-up (src/pharos.ts, once listening and started): from now on each traced call
 * site is written with the prefix `serving: ` — the ones issue 31 allows none of.
 */
export function markServing(): void {
  serving = true;
}

/** Records one synchronous statement `sql` run from this thread (see the module comment). */
export function traceSyncCall(sql: string): void {
  if (!isMainThread) return;
  count++;
  if (serving) countServing++;
  if (!file) return;
  const frames = (new Error().stack ?? '')
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l.includes('/src/') && !l.includes('/src/store/'))
    .slice(0, 4);
  const site = `${serving ? 'serving: ' : ''}${frames.join(' <- ')}`;
  if (seen.has(site)) return;
  seen.add(site);
  appendFileSync(file, `${serving ? 'serving: ' : ''}${sql.replace(/\s+/g, ' ').slice(0, 80)}\n    ${site || '(no caller outside src/store)'}\n`);
}

/** Synchronous statements run from the main thread since the process started. */
export function syncCallCount(): number {
  return count;
}

/** Synchronous statements run from the main thread since {@link markServing} (the metric `pharos_store_sync_calls_total`). */
export function syncCallCountServing(): number {
  return countServing;
}
