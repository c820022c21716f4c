import type { ContactKind, ContactMethod, NotificationRule, PendingPage, TeamMemberRow } from '../domain/people.ts';
import type { Db } from './db.ts';

interface MethodRow {
  uuid: string;
  user_uuid: string;
  kind: ContactKind;
  label: string;
  address_hint: string;
  verified_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A method's verification state (code hash, expiry, attempts, send counters). */
export interface CodeState {
  codeHash: string | null;
  codeExpiresAt: number | null;
  codeAttempts: number;
  lastSentAt: number | null;
  sendsWindowStart: number | null;
  sendsInWindow: number;
}

const toMethod = (r: MethodRow): ContactMethod => ({
  uuid: r.uuid,
  userUuid: r.user_uuid,
  kind: r.kind,
  label: r.label,
  hint: r.address_hint,
  verifiedAt: r.verified_at === null ? null : Number(r.verified_at),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const METHOD_COLS = 'uuid, user_uuid, kind, label, address_hint, verified_at, created_at, updated_at';
const MEMBER_COLS = 'uuid, email, name, phone, role, disabled_at AS "disabledAt"';

/**
 * Team members' profiles (name, phone), contact methods with their sealed addresses and
 * verification codes (hashed), notification rules, and pending page steps (issue 34 point 1).
 * Addresses arrive sealed; this module never sees a plaintext address or code.
 */
export function peopleStore(db: Db) {
  const members = db.prepare<[], TeamMemberRow>(`SELECT ${MEMBER_COLS} FROM users WHERE role IS NOT NULL ORDER BY name, email`);
  const member = db.prepare<[string], TeamMemberRow>(`SELECT ${MEMBER_COLS} FROM users WHERE uuid = ?`);
  const setName = db.prepare('UPDATE users SET name = ? WHERE uuid = ?');
  const setPhone = db.prepare('UPDATE users SET phone = ? WHERE uuid = ?');
  const insertMethod = db.prepare('INSERT INTO contact_methods(uuid, user_uuid, kind, label, address_sealed, address_hint, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const methodsOf = db.prepare<[string], MethodRow>(`SELECT ${METHOD_COLS} FROM contact_methods WHERE user_uuid = ? ORDER BY id`);
  const method = db.prepare<[string], MethodRow>(`SELECT ${METHOD_COLS} FROM contact_methods WHERE uuid = ?`);
  const sealed = db.prepare<[string], { address_sealed: string }>('SELECT address_sealed FROM contact_methods WHERE uuid = ?');
  const setLabel = db.prepare('UPDATE contact_methods SET label = ?, updated_at = ? WHERE uuid = ?');
  const deleteMethod = db.prepare('DELETE FROM contact_methods WHERE uuid = ?');
  const codeState = db.prepare<[string], CodeState>(
    `SELECT code_hash AS "codeHash", code_expires_at AS "codeExpiresAt", code_attempts AS "codeAttempts", last_sent_at AS "lastSentAt",
            sends_window_start AS "sendsWindowStart", sends_in_window AS "sendsInWindow" FROM contact_methods WHERE uuid = ?`,
  );
  const setCode = db.prepare('UPDATE contact_methods SET code_hash = ?, code_expires_at = ?, code_attempts = 0, last_sent_at = ?, sends_window_start = ?, sends_in_window = ?, updated_at = ? WHERE uuid = ?');
  const wrong = db.prepare('UPDATE contact_methods SET code_attempts = code_attempts + 1 WHERE uuid = ?');
  const verified = db.prepare('UPDATE contact_methods SET verified_at = ?, code_hash = NULL, code_expires_at = NULL, code_attempts = 0, updated_at = ? WHERE uuid = ?');
  const rulesOf = db.prepare<[string], { method_uuid: string; delay_minutes: number }>('SELECT method_uuid, delay_minutes FROM notification_rules WHERE user_uuid = ? ORDER BY position');
  const clearRules = db.prepare('DELETE FROM notification_rules WHERE user_uuid = ?');
  const insertRule = db.prepare('INSERT INTO notification_rules(user_uuid, method_uuid, delay_minutes, position) VALUES (?, ?, ?, ?)');
  const insertPending = db.prepare(
    'INSERT INTO pending_pages(outage_uuid, user_uuid, method_uuid, delay_minutes, due_at, page, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const due = db.prepare<[number, number], PendingPage>(
    `SELECT id, outage_uuid AS "outageUuid", user_uuid AS "userUuid", method_uuid AS "methodUuid", delay_minutes AS "delayMinutes", due_at AS "dueAt", page
       FROM pending_pages WHERE due_at <= ? AND (claimed_at IS NULL OR claimed_at < ?) ORDER BY due_at, id`,
  );
  const claim = db.prepare('UPDATE pending_pages SET claimed_at = ? WHERE id = ? AND (claimed_at IS NULL OR claimed_at < ?)');
  const deletePending = db.prepare('DELETE FROM pending_pages WHERE id = ?');
  const cancel = db.prepare('DELETE FROM pending_pages WHERE outage_uuid = ?');
  const nextDue = db.prepare<[], { at: number | null }>('SELECT min(due_at) AS at FROM pending_pages WHERE claimed_at IS NULL');
  const pendingOf = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM pending_pages WHERE outage_uuid = ?');
  const insertRequest = db.prepare('INSERT INTO page_requests(outage_uuid, send_number, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
  const claimRequest = db.prepare('UPDATE page_requests SET claimed_at = ? WHERE outage_uuid = ? AND send_number = ? AND done_at IS NULL AND (claimed_at IS NULL OR claimed_at < ?)');
  const openRequests = db.prepare<[number], { outageUuid: string; sendNumber: number }>(
    'SELECT outage_uuid AS "outageUuid", send_number AS "sendNumber" FROM page_requests WHERE done_at IS NULL AND (claimed_at IS NULL OR claimed_at < ?) ORDER BY id',
  );
  const requestDone = db.prepare('UPDATE page_requests SET done_at = ? WHERE outage_uuid = ? AND send_number = ? AND done_at IS NULL');
  const nextRetry = db.prepare<[], { at: number | null }>('SELECT min(COALESCE(claimed_at, created_at)) AS at FROM page_requests WHERE done_at IS NULL');
  const request = db.prepare<[string, number], PageRequest>(
    'SELECT created_at AS "createdAt", claimed_at AS "claimedAt", done_at AS "doneAt" FROM page_requests WHERE outage_uuid = ? AND send_number = ?',
  );

  return {
    /** Every console user, by name. */
    members: (): TeamMemberRow[] => members.all(),
    /** One user, or undefined. */
    member: (uuid: string): TeamMemberRow | undefined => member.get(uuid),
    /** Sets a user's display name. @returns false when no such user */
    setName: (uuid: string, name: string): boolean => setName.run(name, uuid).changes === 1,
    /** Sets (or with null removes) a user's phone number (E.164). @returns false when no such user */
    setPhone: (uuid: string, phone: string | null): boolean => setPhone.run(phone, uuid).changes === 1,
    /** Adds a contact method, unverified. `sealedAddress` is the SecretBox's sealed text. */
    insertMethod(m: { uuid: string; userUuid: string; kind: ContactKind; label: string; sealedAddress: string; hint: string }, now: number): void {
      insertMethod.run(m.uuid, m.userUuid, m.kind, m.label, m.sealedAddress, m.hint, now, now);
    },
    /** A person's contact methods in the order they were added. */
    methods: (userUuid: string): ContactMethod[] => methodsOf.all(userUuid).map(toMethod),
    /** One contact method, or undefined. */
    method(uuid: string): ContactMethod | undefined {
      const r = method.get(uuid);
      return r && toMethod(r);
    },
    /** A method's sealed address (open it with the SecretBox), or undefined. */
    sealedAddress: (uuid: string): string | undefined => sealed.get(uuid)?.address_sealed,
    /** Renames a method. @returns false when no such method */
    setLabel: (uuid: string, label: string, now: number): boolean => setLabel.run(label, now, uuid).changes === 1,
    /** Deletes a method (its rules go with it: foreign key). @returns false when none */
    deleteMethod: (uuid: string): boolean => deleteMethod.run(uuid).changes === 1,
    /** A method's verification state, or undefined. */
    codeState(uuid: string): CodeState | undefined {
      const r = codeState.get(uuid);
      return r && { ...r, codeAttempts: Number(r.codeAttempts), sendsInWindow: Number(r.sendsInWindow), codeExpiresAt: r.codeExpiresAt === null ? null : Number(r.codeExpiresAt), lastSentAt: r.lastSentAt === null ? null : Number(r.lastSentAt), sendsWindowStart: r.sendsWindowStart === null ? null : Number(r.sendsWindowStart) };
    },
    /** Stores a new code's hash (attempts reset) and the send counters. */
    setCode(uuid: string, c: { hash: string; expiresAt: number; windowStart: number; sendsInWindow: number }, now: number): void {
      setCode.run(c.hash, c.expiresAt, now, c.windowStart, c.sendsInWindow, now, uuid);
    },
    /** Counts one wrong code. */
    wrongCode: (uuid: string): void => void wrong.run(uuid),
    /** Marks a method verified and forgets its code. */
    markVerified: (uuid: string, now: number): void => void verified.run(now, now, uuid),
    /** A person's notification rules in order. */
    rules: (userUuid: string): NotificationRule[] => rulesOf.all(userUuid).map((r) => ({ methodUuid: r.method_uuid, delayMinutes: Number(r.delay_minutes) })),
    /** Replaces a person's rules by `rules`, in this order. */
    replaceRules(userUuid: string, rules: readonly NotificationRule[]): void {
      clearRules.run(userUuid);
      rules.forEach((r, i) => insertRule.run(userUuid, r.methodUuid, r.delayMinutes, i));
    },
    /** Stores a delayed page step; one per (outage, person, method, delay): a second page of the same outage adds none. */
    insertPending(p: Omit<PendingPage, 'id'>, now: number): void {
      insertPending.run(p.outageUuid, p.userUuid, p.methodUuid, p.delayMinutes, p.dueAt, p.page, now);
    },
    /**
     * Claims the steps due at `now` (claimed ones older than `staleBefore` again: an instance that
     * stopped while sending them), marking them claimed at `now`; returns only the rows this call claimed.
     */
    claimDue(now: number, staleBefore: number): PendingPage[] {
      const rows = due.all(now, staleBefore).map((r) => ({ ...r, id: Number(r.id), dueAt: Number(r.dueAt), delayMinutes: Number(r.delayMinutes) }));
      // Each row is claimed by one update that checks the claim again: of two instances reading the same
      // due rows (PostgreSQL, READ COMMITTED), only the one whose update changed the row sends it.
      return rows.filter((r) => claim.run(now, r.id, staleBefore).changes === 1);
    },
    /** Deletes a step (sent). */
    deletePending: (id: number): void => void deletePending.run(id),
    /** Deletes every pending step of an outage. @returns how many */
    cancelOutage: (outageUuid: string): number => cancel.run(outageUuid).changes,
    /** Pending steps of an outage (tests, the timeline). */
    pendingCount: (outageUuid: string): number => Number(pendingOf.get(outageUuid)?.n ?? 0),
    /** Stores the page request of send `sendNumber` of an outage (in the send's transaction); a second one of the same send adds none. */
    insertPageRequest: (outageUuid: string, sendNumber: number, now: number): void => void insertRequest.run(outageUuid, sendNumber, now),
    /**
     * Claims a page request not done and not claimed since `staleBefore` (epoch ms), marking it claimed
     * at `now`, in one conditional update: of two instances, only one gets true.
     */
    claimPageRequest: (outageUuid: string, sendNumber: number, now: number, staleBefore: number): boolean => claimRequest.run(now, outageUuid, sendNumber, staleBefore).changes === 1,
    /** Claims every page request not done whose claim is absent or older than `staleBefore`; returns only those this call claimed. */
    claimOpenPageRequests(now: number, staleBefore: number): Array<{ outageUuid: string; sendNumber: number }> {
      const rows = openRequests.all(staleBefore).map((r) => ({ outageUuid: r.outageUuid, sendNumber: Number(r.sendNumber) }));
      return rows.filter((r) => claimRequest.run(now, r.outageUuid, r.sendNumber, staleBefore).changes === 1);
    },
    /** Marks a page request done (paged, or moot). */
    pageRequestDone: (outageUuid: string, sendNumber: number, now: number): void => void requestDone.run(now, outageUuid, sendNumber),
    /** Epoch ms of the earliest claim (or creation, unclaimed) among requests not done, or null (a retry is due 5 minutes after it). */
    pageRequestsSince: (): number | null => {
      const at = nextRetry.get()?.at;
      return at === null || at === undefined ? null : Number(at);
    },
    /** One page request's times (tests, the timeline), or undefined. */
    pageRequest(outageUuid: string, sendNumber: number): PageRequest | undefined {
      const r = request.get(outageUuid, sendNumber);
      return r && { createdAt: Number(r.createdAt), claimedAt: r.claimedAt === null ? null : Number(r.claimedAt), doneAt: r.doneAt === null ? null : Number(r.doneAt) };
    },
    /** Epoch ms of the earliest unclaimed step, or null. */
    nextDue: (): number | null => {
      const at = nextDue.get()?.at;
      return at === null || at === undefined ? null : Number(at);
    },
  };
}

/** A durable request to page the people of one escalation send (issue 34 point 3); times in epoch ms. */
export interface PageRequest {
  createdAt: number;
  claimedAt: number | null;
  doneAt: number | null;
}

/** The people store's interface. */
export type PeopleStore = ReturnType<typeof peopleStore>;
