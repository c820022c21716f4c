import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { CheckResult } from '../domain/check.ts';
import type { Monitor } from '../domain/monitor.ts';
import type { Store } from '../store/index.ts';
import type { StateChange } from './state-changes.ts';
import { storeJournalBatch } from './checks-flush.ts';
import { integrationOf } from './escalation.ts';

/**
 * What the checks service does while the database is unreachable (issue 31 point 5): results go to a
 * local journal, and state changes are announced straight through their channels before they can be
 * stored. The pieces live here; core/checks.ts calls them from its flush.
 */

/** A state change as the direct sender sees it (issue 31 point 5). */
export interface DecidedChange {
  kind: 'alert' | 'recovery';
  monitor: Monitor;
  /** The outage's uuid: made when the failure was decided (a down change), so the stored outage keeps it. */
  outageUuid: string;
  /** Start of the outage and, for a recovery, its end (epoch ms). */
  startAt: number;
  endAt: number | null;
  description: string;
  /** A recovery goes to the channels its alert went to. */
  channels: readonly string[] | null;
}

/**
 * Sends a decided state change's message straight through its channels while the database is down.
 * Returns null when it must not send now (no confirmed database outage: asked again at the next failed
 * flush); else resolves to the channels that took the message (empty: nothing to send).
 */
export type DirectAlert = (c: DecidedChange) => Promise<readonly string[]> | null;

/** The local journal of results (implemented by store/outage-journal.ts, wired by the leader work). */
export interface ResultJournal {
  append(results: readonly CheckResult[]): boolean;
  batches(): Array<{ id: string; at: number; results: CheckResult[] }>;
  drop(n: number): void;
  stats(): { batches: number; bytes: number };
}

/** Journal batches older than this are not replayed (their claim ids are forgotten after 24 h), ms. */
const REPLAY_MAX_AGE_MS = 23 * 3_600_000;

/**
 * Moves `buffer` to the journal (one batch, fsync'ed). @returns the results still to keep in memory:
 * none when written; all when the journal is full or the disk refused (logged once by the caller's `note`).
 */
export function journalResults(journal: ResultJournal, buffer: CheckResult[], note: (why: string) => void): CheckResult[] {
  if (buffer.length === 0) return buffer;
  try {
    if (journal.append(buffer)) return [];
    note('the outage journal is full');
  } catch (e) {
    note(`the outage journal could not be written: ${(e as Error).message}`);
  }
  return buffer;
}

/**
 * Stores the journal's batches, oldest first, each in one transaction that claims its id first (a
 * replay stores nothing twice), then forgets them. Not fenced: results are observations, true whoever
 * leads now; they carry no state change (flips and outages are written by the flush that decided them).
 * Stops at the first failure (the database went away again), logged when `logFailure`.
 * @returns true when the journal is empty afterwards
 */
export async function drainJournal(store: Store, journal: ResultJournal, clock: Clock, logger: Logger, logFailure = true): Promise<boolean> {
  if (journal.stats().batches === 0) return true;
  const batches = journal.batches();
  let done = 0;
  let stored = 0;
  let skipped = 0;
  const now = clock.now();
  try {
    for (const b of batches) {
      if (b.at < now - REPLAY_MAX_AGE_MS) skipped += b.results.length;
      else if (await store.async.tx(storeJournalBatch, { claim: `journal/${b.id}`, now, results: b.results })) stored += b.results.length;
      done++;
    }
  } catch (e) {
    if (logFailure) logger.warn('storing the outage journal stopped; retrying every few seconds', { batches_left: batches.length - done, error: (e as Error).message });
  }
  if (done > 0) journal.drop(done);
  if (stored > 0 || skipped > 0) logger.info(`stored ${stored} check results kept in the outage journal while the database was unreachable${skipped ? ` (${skipped} older than 23 h dropped)` : ''}`, { results: stored, batches: done, dropped: skipped });
  return done === batches.length;
}

/**
 * Offers each change not yet announced to `direct` (issue 31 point 5). A recovery is offered only when
 * the alert of its outage was sent the same way and is still waiting in `changes` (its uuid and channels
 * are known); other recoveries wait for the database.
 */
export function offerDirect(changes: StateChange[], direct: DirectAlert, clock: Clock, logger: Logger): void {
  for (const [i, c] of changes.entries()) {
    if (c.sent || c.sending) continue;
    let decided: DecidedChange;
    if (c.down) {
      decided = { kind: 'alert', monitor: c.monitor, outageUuid: c.uuid, startAt: c.detected.at, endAt: null, description: c.result.reason ?? 'Check failed', channels: null };
    } else {
      const opening = changes.slice(0, i).findLast((x) => x.down && x.monitor.id === c.monitor.id);
      if (!opening?.down || opening.sending) continue;
      if (!opening.sent?.channels.length) {
        c.sent = { channels: [], at: clock.now(), outageUuid: '' };
        continue;
      }
      decided = { kind: 'recovery', monitor: c.monitor, outageUuid: opening.uuid, startAt: opening.detected.at, endAt: c.result.at, description: opening.result.reason ?? 'Check failed', channels: opening.sent.channels };
    }
    const p = direct(decided);
    if (!p) continue;
    c.sending = true;
    p.then(
      (channels) => (c.sent = { channels, at: clock.now(), outageUuid: decided.outageUuid }),
      (e: unknown) => {
        logger.error('sending an alert during the database outage failed', { monitor: c.monitor.uuid, error: (e as Error).message });
        c.sent = { channels: [], at: clock.now(), outageUuid: decided.outageUuid };
      },
    ).finally(() => (c.sending = false));
  }
}

/**
 * Inside the transaction that stored a change announced during the outage: its just-queued outbox rows
 * for the channels already sent to are marked delivered (the dispatcher does not send them again), and
 * the outage's timeline says so.
 */
export function recordSentDuringOutage(store: Store, c: StateChange, outageUuid: string): void {
  const sent = c.sent;
  if (!sent || sent.channels.length === 0 || sent.outageUuid !== outageUuid) return;
  const kind = c.down ? 'alert' : 'recovery';
  for (const row of store.alerts.forOutage(outageUuid)) {
    // The leader sent by config.yaml name (from its memory); rows name the integration by uuid (issue 32).
    const sentTo = sent.channels.includes(row.channel) || sent.channels.includes(integrationOf(store, row.channel)?.name ?? row.channel);
    if (row.kind === kind && row.deliveredAt === null && row.failedAt === null && sentTo) store.alerts.markDelivered(row.id, sent.at);
  }
  store.outages.addEvent(outageUuid, { at: sent.at, type: 'alerted', userUuid: null, message: `${kind} sent to ${sent.channels.join(', ')} while the database was unreachable (from the leader's memory)` });
}
