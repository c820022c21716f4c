import type { Db } from './db.ts';

/** Channels a status-page visitor can subscribe with (API.md §2.9 `subscribe`; SMS is not offered). */
export type SubscriberChannel = 'email' | 'slack' | 'teams';

/** A subscriber of a status page. Times are epoch ms. */
export interface Subscriber {
  id: number;
  uuid: string;
  statuspageId: number;
  channel: SubscriberChannel;
  /** Email address (email) or incoming-webhook URL (slack, teams). */
  target: string;
  /** When the double opt-in was confirmed (webhook subscriptions are confirmed at once), or null. */
  confirmedAt: number | null;
  /** When the last confirmation mail was queued (pending email subscribers), or null. */
  confirmSentAt: number | null;
  createdAt: number;
}

interface Row {
  id: number;
  uuid: string;
  statuspage_id: number;
  channel: SubscriberChannel;
  target: string;
  confirmed_at: number | null;
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
  const confirmSent = db.prepare('UPDATE subscribers SET confirm_sent_at = ? WHERE uuid = ?');
  const countConfirmed = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM subscribers WHERE statuspage_id = ? AND confirmed_at IS NOT NULL');
  const countPending = db.prepare<[number, number], { n: number }>('SELECT count(*) AS n FROM subscribers WHERE statuspage_id = ? AND confirmed_at IS NULL AND confirm_sent_at >= ?');
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
    /** Confirmed subscribers of a page, oldest first (a partial index: the cost follows them, not all). */
    confirmedOf: (statuspageId: number): Subscriber[] => confirmedOf.all(statuspageId).map(toSubscriber),
    insert(uuid: string, statuspageId: number, channel: SubscriberChannel, target: string, confirmedAt: number | null, now: number): Subscriber {
      insert.run(uuid, statuspageId, channel, target, confirmedAt, now);
      return toSubscriber(byUuid.get(uuid)!);
    },
    /** @returns true when it was unconfirmed and is now confirmed */
    confirm: (uuid: string, now: number): boolean => confirm.run(now, uuid).changes === 1,
    delete: (uuid: string): boolean => del.run(uuid).changes === 1,
    /** Records that a confirmation mail was queued for a pending subscriber now. */
    markConfirmSent: (uuid: string, now: number): void => void confirmSent.run(now, uuid),
    /** Confirmed subscribers of a page plus those pending with a confirmation sent at or after `pendingSince` (epoch ms). */
    countActive: (statuspageId: number, pendingSince: number): number => countConfirmed.get(statuspageId)!.n + countPending.get(statuspageId, pendingSince)!.n,
    /** The secret called `name`, created from `make()` on first use (the first writer wins). */
    secret(name: string, make: () => string): string {
      const have = secret.get(name);
      if (have) return have.value;
      putSecret.run(name, make());
      return secret.get(name)!.value;
    },
  };
}

/** The subscribers store's interface. */
export type SubscribersStore = ReturnType<typeof subscribersStore>;
