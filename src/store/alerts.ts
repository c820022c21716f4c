import { randomBase62 } from '../domain/ids.ts';
import type { AlertRow, AlertRowKind } from '../domain/alert.ts';
import type { Db } from './db.ts';

interface Row {
  id: number;
  outage_uuid: string | null;
  channel: string;
  kind: AlertRowKind;
  step: number | null;
  message: string;
  created_at: number;
  attempts: number;
  next_attempt_at: number;
  delivered_at: number | null;
  failed_at: number | null;
  last_error: string | null;
  delivery_id: string;
}

const toAlert = (r: Row): AlertRow => ({
  id: r.id,
  outageUuid: r.outage_uuid,
  channel: r.channel,
  kind: r.kind,
  step: r.step,
  message: r.message,
  createdAt: r.created_at,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  deliveredAt: r.delivered_at,
  failedAt: r.failed_at,
  lastError: r.last_error,
  deliveryId: r.delivery_id,
});

/** The durable alert outbox (house rule 3: every alert is a row before it is sent). */
export function alertsStore(db: Db) {
  const insert = db.prepare(
    'INSERT INTO alerts(outage_uuid, channel, kind, step, message, created_at, next_attempt_at, delivery_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const due = db.prepare<[number, number], Row>(
    'SELECT * FROM alerts WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?',
  );
  // The claim (issue 22, several instances on one PostgreSQL): due rows move their next attempt to the
  // lease's end in the statement that reads them, so no other dispatcher sees them as due while this one
  // sends; FOR UPDATE SKIP LOCKED lets two claims at the same instant take different rows instead of
  // waiting. A delivery's outcome overwrites the lease; a dispatcher that dies mid-send leaves the row
  // due again when the lease ends (at-least-once, as after a crash with one instance).
  const claim = db.prepare<[number, number, number], Row>(
    db.dialect === 'postgres'
      ? `UPDATE alerts SET next_attempt_at = ? WHERE id IN (
           SELECT id FROM alerts WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ?
           ORDER BY next_attempt_at, id LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING *`
      : `UPDATE alerts SET next_attempt_at = ? WHERE id IN (
           SELECT id FROM alerts WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ?
           ORDER BY next_attempt_at, id LIMIT ?) RETURNING *`,
  );
  const nextDue = db.prepare<[], { at: number | null }>('SELECT min(next_attempt_at) AS at FROM alerts WHERE delivered_at IS NULL AND failed_at IS NULL');
  const delivered = db.prepare('UPDATE alerts SET delivered_at = ?, attempts = attempts + 1, last_error = NULL WHERE id = ?');
  const retry = db.prepare('UPDATE alerts SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ?');
  const failed = db.prepare('UPDATE alerts SET attempts = attempts + 1, failed_at = ?, last_error = ? WHERE id = ?');
  const ofOutage = db.prepare<[string], Row>('SELECT * FROM alerts WHERE outage_uuid = ? ORDER BY id');
  const alertedChannels = db.prepare<[string], { channel: string }>(
    "SELECT DISTINCT channel FROM alerts WHERE outage_uuid = ? AND kind = 'alert' ORDER BY channel",
  );
  const pendingCount = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM alerts WHERE delivered_at IS NULL AND failed_at IS NULL');
  const all = db.prepare<[], Row>('SELECT * FROM alerts ORDER BY id');

  return {
    /** Queues an alert, due at `dueAt`, with a new delivery id. Call inside the transaction that decided to send it. */
    insert(a: { outageUuid: string | null; channel: string; kind: AlertRowKind; step: number | null; message: string; createdAt: number; dueAt: number }): void {
      insert.run(a.outageUuid, a.channel, a.kind, a.step, a.message, a.createdAt, a.dueAt, `dlv_${randomBase62(22)}`);
    },
    /** Undelivered, not failed rows due at `now`, oldest first, at most `limit`. */
    due: (now: number, limit: number): AlertRow[] => due.all(now, limit).map(toAlert),
    /**
     * Claims undelivered, not failed rows due at `now` (at most `limit`, oldest first) for one
     * dispatcher until `leaseUntil` (epoch ms): one transaction; the rows' `nextAttemptAt` becomes
     * `leaseUntil`, so they are not due to anyone else meanwhile. Record the outcome with
     * `markDelivered` / `markRetry` / `markFailed`.
     */
    claimDue: (now: number, limit: number, leaseUntil: number): AlertRow[] =>
      db.tx(() => claim.all(leaseUntil, now, limit).map(toAlert).sort((a, b) => a.id - b.id)),
    /** The earliest next attempt of any pending row, or null when nothing is pending. */
    nextDueAt: (): number | null => nextDue.get()!.at,
    markDelivered(id: number, at: number): void {
      delivered.run(at, id);
    },
    markRetry(id: number, nextAttemptAt: number, error: string): void {
      retry.run(nextAttemptAt, error, id);
    },
    markFailed(id: number, at: number, error: string): void {
      failed.run(at, error, id);
    },
    forOutage: (outageUuid: string): AlertRow[] => ofOutage.all(outageUuid).map(toAlert),
    /** Channels that received (or are due to receive) alerts for an outage: who gets the recovery. */
    alertedChannels: (outageUuid: string): string[] => alertedChannels.all(outageUuid).map((r) => r.channel),
    pendingCount: (): number => pendingCount.get()!.n,
    all: (): AlertRow[] => all.all().map(toAlert),
  };
}

/** The alerts store's interface. */
export type AlertsStore = ReturnType<typeof alertsStore>;
