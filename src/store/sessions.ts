import type { Account, Role, SessionInfo, StoredSession } from '../domain/user.ts';
import type { Db } from './db.ts';

interface AccountRow {
  uuid: string;
  email: string;
  name: string;
  role: Role;
  disabled_at: number | null;
  password_hash: string | null;
  sso_at: number | null;
  totp: number;
  created_at: number;
}

interface SessionRow {
  ref: string;
  user_uuid: string;
  csrf: string;
  created_at: number;
  last_seen_at: number;
  user_agent: string;
  address: string;
  pending: number;
}

const toAccount = (r: AccountRow): Account => ({
  uuid: r.uuid,
  email: r.email,
  name: r.name,
  role: r.role,
  disabledAt: r.disabled_at,
  hasPassword: r.password_hash !== null,
  ssoAt: r.sso_at,
  totp: r.totp === 1,
  createdAt: r.created_at,
});
const toSession = (r: SessionRow): StoredSession => ({
  ref: r.ref,
  userUuid: r.user_uuid,
  csrf: r.csrf,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  userAgent: r.user_agent,
  address: r.address,
  pending: r.pending === 1,
});

/**
 * Console people: accounts (users with a password hash, role, disabled flag), sessions stored by
 * the SHA-256 of their id (32 bytes), first-start setup tokens (also by hash), the last accepted
 * TOTP step and the addresses people signed in from.
 */
export function sessionsStore(db: Db) {
  const cols = 'uuid, email, name, role, disabled_at, password_hash, sso_at, totp_secret IS NOT NULL AS totp, created_at';
  const byUuid = db.prepare<[string], AccountRow>(`SELECT ${cols} FROM users WHERE uuid = ?`);
  const byEmail = db.prepare<[string], AccountRow>(`SELECT ${cols} FROM users WHERE email = ?`);
  const list = db.prepare<[], AccountRow>(`SELECT ${cols} FROM users ORDER BY created_at, email`);
  const hashOf = db.prepare<[string], { password_hash: string | null }>('SELECT password_hash FROM users WHERE uuid = ?');
  const countPeople = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM users WHERE password_hash IS NOT NULL');
  const insert = db.prepare('INSERT INTO users(uuid, email, name, created_at, role, password_hash, sso_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const markSso = db.prepare('UPDATE users SET sso_at = COALESCE(sso_at, ?) WHERE uuid = ?');
  const setPassword = db.prepare('UPDATE users SET password_hash = ? WHERE uuid = ?');
  const setRole = db.prepare('UPDATE users SET role = ? WHERE uuid = ?');
  const setDisabled = db.prepare('UPDATE users SET disabled_at = ? WHERE uuid = ?');
  const insertSession = db.prepare('INSERT INTO console_sessions(id_hash, ref, user_uuid, csrf, created_at, last_seen_at, user_agent, address, pending) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const sessionByHash = db.prepare<[Buffer], SessionRow>('SELECT ref, user_uuid, csrf, created_at, last_seen_at, user_agent, address, pending FROM console_sessions WHERE id_hash = ?');
  const clearPending = db.prepare('UPDATE console_sessions SET pending = 0 WHERE id_hash = ?');
  const totpOf = db.prepare<[string], { totp_secret: string | null; totp_recovery: string | null; totp_last_step: number | null }>('SELECT totp_secret, totp_recovery, totp_last_step FROM users WHERE uuid = ?');
  const setTotp = db.prepare('UPDATE users SET totp_secret = ?, totp_recovery = ? WHERE uuid = ?');
  const setTotpStep = db.prepare('UPDATE users SET totp_last_step = ? WHERE uuid = ?');
  const takeTotpStep = db.prepare('UPDATE users SET totp_last_step = ? WHERE uuid = ? AND (totp_last_step IS NULL OR totp_last_step < ?)');
  const upsertSignIn = db.prepare('INSERT INTO console_sign_ins(user_uuid, address, last_at) VALUES (?, ?, ?) ON CONFLICT (user_uuid, address) DO UPDATE SET last_at = excluded.last_at');
  const signInSince = db.prepare<[string, string, number], { n: number }>('SELECT 1 AS n FROM console_sign_ins WHERE user_uuid = ? AND address = ? AND last_at >= ?');
  const deleteOldSignIns = db.prepare('DELETE FROM console_sign_ins WHERE last_at < ?');
  const touch = db.prepare('UPDATE console_sessions SET last_seen_at = ? WHERE id_hash = ?');
  const deleteByHash = db.prepare('DELETE FROM console_sessions WHERE id_hash = ?');
  const deleteByRef = db.prepare('DELETE FROM console_sessions WHERE ref = ? AND user_uuid = ?');
  const deleteOfUser = db.prepare('DELETE FROM console_sessions WHERE user_uuid = ?');
  const sessionsOfUser = db.prepare<[string], SessionRow>('SELECT ref, user_uuid, csrf, created_at, last_seen_at, user_agent, address, pending FROM console_sessions WHERE user_uuid = ? AND pending = 0 ORDER BY last_seen_at DESC');
  const deleteStale = db.prepare('DELETE FROM console_sessions WHERE last_seen_at < ? OR created_at < ?');
  const insertSetup = db.prepare('INSERT INTO setup_tokens(token_hash, created_at) VALUES (?, ?)');
  const dropUnusedSetup = db.prepare('DELETE FROM setup_tokens WHERE used_at IS NULL');
  const setupOf = db.prepare<[Buffer], { created_at: number; used_at: number | null }>('SELECT created_at, used_at FROM setup_tokens WHERE token_hash = ?');
  const spendSetup = db.prepare('UPDATE setup_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND created_at >= ?');

  return {
    account: (uuid: string): Account | undefined => {
      const r = byUuid.get(uuid);
      return r && toAccount(r);
    },
    accountByEmail: (email: string): Account | undefined => {
      const r = byEmail.get(email);
      return r && toAccount(r);
    },
    accounts: (): Account[] => list.all().map(toAccount),
    /** The stored scrypt hash of a user's password, or null. */
    passwordHash: (uuid: string): string | null => hashOf.get(uuid)?.password_hash ?? null,
    /** Users who have a password (people who can sign in). */
    countPeople: (): number => countPeople.get()!.n,
    /** A new person: with a password, or (`passwordHash` null, `sso` true) one who signs in through single sign-on. */
    insertAccount(a: { uuid: string; email: string; name: string; role: Role; passwordHash: string | null; sso?: boolean }, now: number): void {
      insert.run(a.uuid, a.email, a.name, now, a.role, a.passwordHash, a.sso ? now : null);
    },
    /** Records the first single sign-on of a user (kept when already set). */
    markSso: (uuid: string, now: number): void => void markSso.run(now, uuid),
    setPassword: (uuid: string, hash: string): void => void setPassword.run(hash, uuid),
    setRole: (uuid: string, role: Role): void => void setRole.run(role, uuid),
    setDisabled: (uuid: string, at: number | null): void => void setDisabled.run(at, uuid),
    insertSession(s: { idHash: Buffer; ref: string; userUuid: string; csrf: string; userAgent: string; address: string; pending: boolean }, now: number): void {
      insertSession.run(s.idHash, s.ref, s.userUuid, s.csrf, now, now, s.userAgent, s.address, s.pending ? 1 : 0);
    },
    /** The second factor was given: the session opens the console. */
    clearPending: (idHash: Buffer): void => void clearPending.run(idHash),
    /** A user's TOTP secret (base32), unused recovery code hashes and last accepted step (null: none yet), or null without TOTP. */
    totp(uuid: string): { secret: string; recovery: string[]; lastStep: number | null } | null {
      const r = totpOf.get(uuid);
      return r?.totp_secret ? { secret: r.totp_secret, recovery: JSON.parse(r.totp_recovery ?? '[]') as string[], lastStep: r.totp_last_step } : null;
    },
    /** Sets (or with null clears) a user's TOTP secret and recovery code hashes. */
    setTotp: (uuid: string, secret: string | null, recovery: string[] | null): void => void setTotp.run(secret, recovery === null ? null : JSON.stringify(recovery), uuid),
    /** Sets (or with null forgets) the last TOTP time step (epoch ms / 30 000) accepted for a user: when TOTP is turned on or off. */
    setTotpStep: (uuid: string, step: number | null): void => void setTotpStep.run(step, uuid),
    /**
     * Records `step` as the user's last accepted TOTP step when it is later than the one stored (one
     * conditional UPDATE, so of two concurrent uses of a code only one wins).
     * @returns false when this step or a later one was accepted already (a replayed code)
     */
    takeTotpStep: (uuid: string, step: number): boolean => takeTotpStep.run(step, uuid, step).changes === 1,
    /** Records a completed sign-in of the user from `address` at `now` (epoch ms). */
    recordSignIn: (uuid: string, address: string, now: number): void => void upsertSignIn.run(uuid, address, now),
    /** True when the user completed a sign-in from `address` at or after `since` (epoch ms). */
    signedInFrom: (uuid: string, address: string, since: number): boolean => signInSince.get(uuid, address, since) !== undefined,
    /** Forgets sign-in addresses last used before `before` (epoch ms). @returns rows deleted */
    pruneSignIns: (before: number): number => deleteOldSignIns.run(before).changes,
    session: (idHash: Buffer): StoredSession | undefined => {
      const r = sessionByHash.get(idHash);
      return r && toSession(r);
    },
    touchSession: (idHash: Buffer, now: number): void => void touch.run(now, idHash),
    deleteSession: (idHash: Buffer): void => void deleteByHash.run(idHash),
    /** @returns true when the user's session with this ref was deleted */
    deleteSessionByRef: (ref: string, userUuid: string): boolean => deleteByRef.run(ref, userUuid).changes === 1,
    /** @returns how many sessions of the user were deleted */
    deleteSessionsOf: (userUuid: string): number => deleteOfUser.run(userUuid).changes,
    sessionsOf: (userUuid: string): StoredSession[] => sessionsOfUser.all(userUuid).map(toSession),
    /** Deletes sessions idle since `idleBefore` or created before `createdBefore` (epoch ms). */
    pruneSessions: (idleBefore: number, createdBefore: number): number => deleteStale.run(idleBefore, createdBefore).changes,
    /** Replaces every unused setup token with this one. */
    replaceSetupToken(hash: Buffer, now: number): void {
      dropUnusedSetup.run();
      insertSetup.run(hash, now);
    },
    /** The setup token with this hash (epoch ms made and spent), or undefined when there is none. */
    setupToken(hash: Buffer): { createdAt: number; usedAt: number | null } | undefined {
      const r = setupOf.get(hash);
      return r && { createdAt: r.created_at, usedAt: r.used_at };
    },
    /** @returns true when an unused token with this hash made at or after `madeSince` (epoch ms) existed and is now spent */
    spendSetupToken: (hash: Buffer, now: number, madeSince: number): boolean => spendSetup.run(now, hash, madeSince).changes === 1,
  };
}

/** The sessions store's interface. */
export type SessionsStore = ReturnType<typeof sessionsStore>;
