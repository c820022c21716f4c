import type { CheckResult } from '../domain/check.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import { certExpiryNotice, type CertExpiryConfig } from './cert-expiry.ts';
import { procedureGate, type EscalationSettings, type GateSnapshot } from './escalation.ts';
import { applyStateChange, type StateChange, type StateEvent } from './state-changes.ts';

/**
 * The transactions of the checks service (core/checks.ts) as procedures (store/async.ts): on
 * PostgreSQL they run on the store host thread, so a results flush never blocks the event loop.
 * Pure functions of the transaction and their arguments: the service passes `now`, the config and the
 * alert gates' verdicts in, and emits the events they return after the commit (house rule 3).
 */

/** Results and state changes of one flush, written only when `claim` (an agent batch's id) is new. */
export interface FlushGroup {
  /** `<agent>/<batch>`: claimed first; when it was claimed before, the group is skipped (a replay). */
  claim: string | null;
  results: CheckResult[];
  changes: StateChange[];
}

/** What a flush procedure is handed. */
export interface FlushArgs {
  /** The leader's fencing number, checked first in the transaction (issue 31); null: no fence (SQLite). */
  epoch: number | null;
  now: number;
  groups: FlushGroup[];
  /** What certificate expiry notices read of the config. */
  config: CertExpiryConfig;
  esc: EscalationSettings;
  /** The in-memory alert gates' word on the outages of the down changes (escalation.ts `snapshot`). */
  gate: GateSnapshot;
}

/** What a flush wrote, for the caller to announce after the commit. */
export interface FlushOutcome {
  /** Per group: false when its claim had been taken before (nothing of it written). */
  claimed: boolean[];
  /** outage.opened / outage.resolved, in order. */
  events: StateEvent[];
  /** Outbox rows queued by certificate expiry notices. */
  notices: number;
  /** Monitors whose degraded flag changed: [monitor id, flag], the last one per monitor wins. */
  degraded: Array<[number, boolean]>;
  /** Sends held on the in-memory gates' word (reported with `escalation.reportHeld`). */
  heldByGates: string[];
}

/** Inserts `batch` and applies the newest certificate reading and degraded flag of each monitor in it. */
function writeResults(tx: Store, config: CertExpiryConfig, batch: readonly CheckResult[], now: number, out: FlushOutcome): void {
  if (batch.length === 0) return;
  tx.checks.insertResults(batch);
  // Only the newest certificate reading and the newest degraded flag per monitor matter.
  const ssl = new Map<number, number | null>();
  const degraded = new Map<number, boolean>();
  for (const r of batch) {
    if (r.sslExpirationDays !== undefined) ssl.set(r.monitorId, r.sslExpirationDays);
    degraded.set(r.monitorId, r.ok && r.degraded === true);
  }
  for (const [id, days] of tx.monitors.setSslExpirationMany(ssl)) {
    const m = tx.monitors.getById(id);
    if (m) out.notices += certExpiryNotice(tx, config, m, days, now);
  }
  for (const [id, d] of tx.monitors.setDegradedMany(degraded)) out.degraded.push([id, d]);
}

/**
 * One results flush (group commit): the fence first, then each group — its claim, its results, its
 * state changes (flips, outages opened or resolved with their escalation rows) — in one transaction.
 * @throws LeaseLostError (AppError 503 `cluster.lease_lost` across the thread) when `epoch` is stale
 */
export const flushChecks = procedure('checks.flush', (tx: Store, args: FlushArgs): FlushOutcome => {
  if (args.epoch !== null) tx.cluster.assertFence(args.epoch);
  const out: FlushOutcome = { claimed: [], events: [], notices: 0, degraded: [], heldByGates: [] };
  const gate = procedureGate(tx, args.gate, out.heldByGates);
  for (const g of args.groups) {
    if (g.claim !== null && !tx.probes.claimBatch(g.claim, args.now)) {
      out.claimed.push(false);
      continue;
    }
    out.claimed.push(true);
    writeResults(tx, args.config, g.results, args.now, out);
    for (const c of g.changes) {
      const ev = applyStateChange(tx, args.esc, gate, c, args.now);
      if (ev) out.events.push(ev);
    }
  }
  return out;
});

/**
 * State changes announced during a database outage, written without the fence after another instance
 * took the lease over (core/checks.ts `writeAnnounced`). A change the new leader made meanwhile wins:
 * an open outage is not opened twice; a recovery resolves only the outage its alert named.
 */
export const writeAnnouncedChanges = procedure('checks.writeAnnounced', (tx: Store, args: { now: number; changes: StateChange[]; esc: EscalationSettings; gate: GateSnapshot }): { events: StateEvent[]; heldByGates: string[] } => {
  const out = { events: [] as StateEvent[], heldByGates: [] as string[] };
  const gate = procedureGate(tx, args.gate, out.heldByGates);
  for (const c of args.changes) {
    if (!c.down && tx.outages.openForMonitor(c.monitor.id)?.uuid !== c.sent?.outageUuid) continue;
    const ev = applyStateChange(tx, args.esc, gate, c, args.now);
    if (ev) out.events.push(ev);
  }
  return out;
});

/**
 * One batch of the outage journal (core/checks-outage.ts `drainJournal`): its id claimed first, so a
 * replay stores nothing twice. @returns false when it had been stored before
 */
export const storeJournalBatch = procedure('checks.storeJournalBatch', (tx: Store, args: { claim: string; now: number; results: CheckResult[] }): boolean => {
  if (!tx.probes.claimBatch(args.claim, args.now)) return false;
  tx.checks.insertResults(args.results);
  return true;
});
