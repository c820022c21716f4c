import type { Subscriber, SubscriberChannel } from '../domain/subscriber.ts';
import type { Db } from './db.ts';

interface Row {
  id: number;
  uuid: string;
  statuspage_id: number;
  channel: SubscriberChannel;
  target: string;
  confirmed_at: number | null;
  language: string | null;
  confirm_sent_at: number | null;
  created_at: number;
}

const toSubscriber = (r: Row): Subscriber => ({
  id: r.id,
  uuid: r.uuid,
  statuspageId: r.statuspage_id,
  channel: r.channel,
  target: r.target,
  confirmedAt: r.confirmed_at,
  language: r.language,
  confirmSentAt: r.confirm_sent_at,
  createdAt: r.created_at,
});

/** Subscribers of status pages and the install's named secrets. */
export function subscribersStore(db: Db) {
  const byUuid = db.prepare<[string], Row>('SELECT * FROM subscribers WHERE uuid = ?');
  const byTarget = db.prepare<[number, string, string], Row>('SELECT * FROM subscribers WHERE statuspage_id = ? AND channel = ? AND target = ?');
  const confirmedOf = db.prepare<[number], Row>('SELECT * FROM subscribers WHERE statuspage_id = ? AND confirmed_at IS NOT NULL ORDER BY id');
  const insert = db.prepare('INSERT INTO subscribers(uuid, statuspage_id, channel, target, confirmed_at, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  const confirm = db.prepare('UPDATE subscribers SET confirmed_at = ? WHERE uuid = ? AND confirmed_at IS NULL');
  const del = db.prepare('DELETE FROM subscribers WHERE uuid = ?');
  const setCode = db.prepare('UPDATE subscribers SET code_hash = ?, code_expires_at = ?, code_attempts = 0 WHERE uuid = ?');
  const codeOf = db.prepare<[string], { code_hash: string | null; code_expires_at: number | null; code_attempts: number }>('SELECT code_hash, code_expires_at, code_attempts FROM subscribers WHERE uuid = ?');
  const failCode = db.prepare('UPDATE subscribers SET code_attempts = code_attempts + 1 WHERE uuid = ?');
  const clearCode = db.prepare('UPDATE subscribers SET code_hash = NULL, code_expires_at = NULL, code_attempts = 0 WHERE uuid = ?');
  const byId = db.prepare<[number], Row>('SELECT * FROM subscribers WHERE id = ?');
  const pageOf = db.prepare<[{ page: number; channel: string | null; limit: number; offset: number }], Row>(
    'SELECT * FROM subscribers WHERE statuspage_id = @page AND (CAST(@channel AS TEXT) IS NULL OR channel = @channel) ORDER BY id LIMIT @limit OFFSET @offset',
  );
  const countOf = db.prepare<[{ page: number; channel: string | null }], { n: number }>('SELECT count(*) AS n FROM subscribers WHERE statuspage_id = @page AND (CAST(@channel AS TEXT) IS NULL OR channel = @channel)');
  const setLanguage = db.prepare('UPDATE subscribers SET language = ? WHERE uuid = ?');
  const confirmSent = db.prepare('UPDATE subscribers SET confirm_sent_at = ? WHERE uuid = ?');
  const countConfirmed = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM subscribers WHERE statuspage_id = ? AND confirmed_at IS NOT NULL');
  const countPending = db.prepare<[number, number], { n: number }>('SELECT count(*) AS n FROM subscribers WHERE statuspage_id = ? AND confirmed_at IS NULL AND confirm_sent_at >= ?');
  // One row per key and window, counted by an upsert: two requests (or instances) cannot both see the
  // last free send, because the second waits on the row the first updated (migration 0020).
  const countSend = db.prepare<[string, number], { n: number }>(
    'INSERT INTO subscriber_send_counts(key, window_start, n) VALUES (?, ?, 1) ON CONFLICT(key, window_start) DO UPDATE SET n = subscriber_send_counts.n + 1 RETURNING n',
  );
  const pruneSends = db.prepare('DELETE FROM subscriber_send_counts WHERE window_start < ?');
  const claimWait = db.prepare<[string, number, number], { number: string }>(
    'INSERT INTO sms_code_pending(number, since) VALUES (?, ?) ON CONFLICT(number) DO UPDATE SET since = excluded.since WHERE sms_code_pending.since <= ? RETURNING number',
  );
  const waitOf = db.prepare<[string], { since: number }>('SELECT since FROM sms_code_pending WHERE number = ?');
  const endWait = db.prepare('DELETE FROM sms_code_pending WHERE number = ?');
  const pruneWaits = db.prepare('DELETE FROM sms_code_pending WHERE since <= ?');
  const secret = db.prepare<[string], { value: string }>('SELECT value FROM app_secrets WHERE name = ?');
  const putSecret = db.prepare('INSERT OR IGNORE INTO app_secrets(name, value) VALUES (?, ?)');
  return {
    get: (uuid: string): Subscriber | undefined => {
      const r = byUuid.get(uuid);
      return r && toSubscriber(r);
    },
    find: (statuspageId: number, channel: SubscriberChannel, target: string): Subscriber | undefined => {
      const r = byTarget.get(statuspageId, channel, target);
      return r && toSubscriber(r);
    },
    /** The subscriber with integer id `id`, or undefined. */
    getById: (id: number): Subscriber | undefined => {
      const r = byId.get(id);
      return r && toSubscriber(r);
    },
    /** One page of a status page's subscribers (oldest first), optionally of one channel, and their total. */
    pageOf(statuspageId: number, channel: SubscriberChannel | null, limit: number, offset: number): { items: Subscriber[]; total: number } {
      return { items: pageOf.all({ page: statuspageId, channel, limit, offset }).map(toSubscriber), total: countOf.get({ page: statuspageId, channel })!.n };
    },
    /** Sets the language of a subscriber. */
    setLanguage: (uuid: string, language: string | null): void => void setLanguage.run(language, uuid),
    /** Confirmed subscribers of a page, oldest first (a partial index: the cost follows them, not all). */
    confirmedOf: (statuspageId: number): Subscriber[] => confirmedOf.all(statuspageId).map(toSubscriber),
    insert(uuid: string, statuspageId: number, channel: SubscriberChannel, target: string, confirmedAt: number | null, now: number): Subscriber {
      insert.run(uuid, statuspageId, channel, target, confirmedAt, now);
      return toSubscriber(byUuid.get(uuid)!);
    },
    /** @returns true when it was unconfirmed and is now confirmed */
    confirm: (uuid: string, now: number): boolean => confirm.run(now, uuid).changes === 1,
    delete: (uuid: string): boolean => del.run(uuid).changes === 1,
    /** Stores the hash of a new confirmation code (SMS), valid until `expiresAt` (epoch ms); attempts reset. */
    setCode(uuid: string, hash: string, expiresAt: number): void {
      setCode.run(hash, expiresAt, uuid);
    },
    /** The pending confirmation code of a subscriber: hash, expiry (epoch ms), wrong attempts so far. */
    code(uuid: string): { hash: string | null; expiresAt: number | null; attempts: number } | undefined {
      const r = codeOf.get(uuid);
      return r && { hash: r.code_hash, expiresAt: r.code_expires_at, attempts: r.code_attempts };
    },
    /** Counts one wrong code. */
    failCode(uuid: string): void {
      failCode.run(uuid);
    },
    /** Forgets the code (after confirming). */
    clearCode(uuid: string): void {
      clearCode.run(uuid);
    },
    /** Records that a confirmation mail was queued for a pending subscriber now. */
    markConfirmSent: (uuid: string, now: number): void => void confirmSent.run(now, uuid),
    /** Confirmed subscribers of a page plus those pending with a confirmation sent at or after `pendingSince` (epoch ms). */
    countActive: (statuspageId: number, pendingSince: number): number => countConfirmed.get(statuspageId)!.n + countPending.get(statuspageId, pendingSince)!.n,
    /**
     * Counts one send against every cap in `caps` (`key`, the start of its window in epoch ms, its
     * `limit`), all or none: when one would pass its limit, none is counted (a savepoint). Windows
     * starting before `pruneBefore` are deleted when a key opens a new window.
     * @returns the index in `caps` of the first cap that is full, or -1 when the send was counted
     */
    takeSend(caps: ReadonlyArray<{ key: string; windowStart: number; limit: number }>, pruneBefore: number): number {
      let full = -1;
      let fresh = false;
      try {
        db.tx(() => {
          caps.forEach((c, i) => {
            const n = countSend.get(c.key, c.windowStart)!.n;
            fresh ||= n === 1;
            if (n > c.limit) {
              full = i;
              throw new CapFull();
            }
          });
        });
      } catch (e) {
        if (!(e instanceof CapFull)) throw e;
        return full;
      }
      if (fresh) pruneSends.run(pruneBefore);
      return -1;
    },
    /**
     * Marks `number` as texted a code at `now` unless it already waits for one texted after
     * `waitingSince` (epoch ms). Waits from before `waitingSince` are forgotten.
     * @returns undefined when marked; else since when it waits (epoch ms)
     */
    claimCodeWait(number: string, now: number, waitingSince: number): number | undefined {
      if (claimWait.get(number, now, waitingSince)) {
        pruneWaits.run(waitingSince);
        return undefined;
      }
      return waitOf.get(number)!.since;
    },
    /** Ends the wait of `number` (its code was typed back). */
    endCodeWait: (number: string): void => void endWait.run(number),
    /** The secret called `name`, created from `make()` on first use (the first writer wins). */
    secret(name: string, make: () => string): string {
      const have = secret.get(name);
      if (have) return have.value;
      putSecret.run(name, make());
      return secret.get(name)!.value;
    },
  };
}

/** Thrown inside {@link subscribersStore}'s takeSend to roll its savepoint back. */
class CapFull extends Error {}

/** The subscribers store's interface. */
export type SubscribersStore = ReturnType<typeof subscribersStore>;
