import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../lib/errors.ts';
import { randomBase62 } from '../domain/ids.ts';
import type { Account, Role } from '../domain/user.ts';
import { userAuditDiff } from '../domain/audit-views.ts';
import type { AuditActor } from '../domain/audit.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import { recordAudit, type AuditStamp } from './audit-log.ts';

/**
 * The transactions of the accounts service (src/core/accounts.ts) as store procedures (issue 31):
 * each runs wherever the store runs (this thread on SQLite, the store host thread on PostgreSQL)
 * with only the transaction-scoped store and its arguments. Randomness (session ids, uuids), the
 * time and the password hashes are made by the caller and passed in; logs come after.
 */

/** SHA-256 of a random secret (session ids, setup tokens: ≥ 128 random bits, so a fast hash suffices). */
export const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** What a new session is stored with, made by the caller: the cookie's id (stored as its hash) and the rest. */
export interface SessionSeed {
  idHash: Buffer;
  ref: string;
  csrf: string;
  userAgent: string;
  address: string;
}

/** A new session id (for the cookie) and the seed it is stored with. */
export function newSession(client: { userAgent: string; address: string }): { id: string; seed: SessionSeed } {
  const id = randomBytes(32).toString('base64url');
  return { id, seed: { idHash: sha256(id), ref: randomBase62(16), csrf: randomBytes(32).toString('base64url'), userAgent: client.userAgent.slice(0, 300), address: client.address } };
}

/** Stores a session of `userUuid`; a completed sign-in (not one waiting for its code) makes the address the person's own for 30 days. */
export function openSessionIn(tx: Store, userUuid: string, seed: SessionSeed, pending: boolean, now: number): void {
  tx.sessions.insertSession({ ...seed, idHash: Buffer.from(seed.idHash), userUuid, pending }, now);
  if (!pending) tx.sessions.recordSignIn(userUuid, seed.address, now);
}

/** The account `uuid`. @throws AppError 404 `users.not_found` */
export function mustGetIn(tx: Store, uuid: string): Account {
  const a = tx.sessions.account(uuid);
  if (!a) throw new AppError(404, 'users.not_found', 'User not found');
  return a;
}

/** A person to store: `email` already normalised, `uuid` made by the caller (used when the email is new). */
interface AccountInput {
  email: string;
  name?: string | undefined;
  role: Role;
  uuid: string;
}

/** The audit entry of a change to a person (`passwordChanged`: a `password: *** → ***` line). */
export function auditUser(tx: Store, stamp: AuditStamp, action: 'create' | 'update', before: Account | null, after: Account, passwordChanged = false): void {
  recordAudit(tx, stamp, { action, resourceType: 'user', resourceUuid: after.uuid, resourceName: after.email, diff: userAuditDiff(before, after, passwordChanged) });
}

/**
 * Stores a person with this password hash; a user made for API tokens (e.g. admin@localhost) becomes
 * one. `actor` null: the new person acts (the setup link). @throws AppError 409 `users.exists`
 */
function insertAccountIn(tx: Store, input: AccountInput, passwordHash: string, now: number, actor: AuditActor | null): Account {
  const { email } = input;
  const existing = tx.sessions.accountByEmail(email);
  if (existing?.hasPassword) throw new AppError(409, 'users.exists', `email: ${email} already has an account`);
  let account: Account;
  if (existing) {
    tx.sessions.setPassword(existing.uuid, passwordHash);
    tx.sessions.setRole(existing.uuid, input.role);
    account = mustGetIn(tx, existing.uuid);
  } else {
    tx.sessions.insertAccount({ uuid: input.uuid, email, name: input.name?.trim() || email, role: input.role, passwordHash }, now);
    account = mustGetIn(tx, input.uuid);
  }
  auditUser(tx, { actor: actor ?? { type: 'user', id: account.uuid, name: account.email }, now }, existing ? 'update' : 'create', existing ?? null, account, true);
  return account;
}

/** First start: stores the setup token's hash (replacing an unused one) while nobody can sign in. @returns false when someone can */
export const setupTokenProc = procedure('accounts.setupToken', (tx: Store, a: { tokenHash: Buffer; now: number }): boolean => {
  if (tx.sessions.countPeople() > 0) return false;
  tx.sessions.replaceSetupToken(Buffer.from(a.tokenHash), a.now);
  return true;
});

/** Spends the setup token, creates the first admin and opens their session. @throws AppError 403 `setup.invalid`, 409 */
export const setupProc = procedure('accounts.setup', (tx: Store, a: { tokenHash: Buffer; now: number; linkMs: number; input: AccountInput; hash: string; seed: SessionSeed }): Account => {
  if (tx.sessions.countPeople() > 0 || !tx.sessions.spendSetupToken(Buffer.from(a.tokenHash), a.now, a.now - a.linkMs + 1)) {
    throw new AppError(403, 'setup.invalid', 'this setup link is not valid (it was used already, it expired, or a newer one was printed)');
  }
  const account = insertAccountIn(tx, a.input, a.hash, a.now, null);
  openSessionIn(tx, account.uuid, a.seed, false, a.now);
  return account;
});

/** Creates a person. @throws AppError 409 `users.exists` */
export const createProc = procedure('accounts.create', (tx: Store, a: { input: AccountInput; hash: string; now: number; actor: AuditActor }): Account => insertAccountIn(tx, a.input, a.hash, a.now, a.actor));

/** A new password; every session of the user ends. @throws AppError 404 */
export const setPasswordProc = procedure('accounts.setPassword', (tx: Store, a: { uuid: string; hash: string; now: number; actor: AuditActor }): void => {
  const before = mustGetIn(tx, a.uuid);
  tx.sessions.setPassword(a.uuid, a.hash);
  tx.sessions.deleteSessionsOf(a.uuid);
  auditUser(tx, a, 'update', before, mustGetIn(tx, a.uuid), true);
});

/** @throws AppError 404 */
export const setRoleProc = procedure('accounts.setRole', (tx: Store, a: { uuid: string; role: Role; now: number; actor: AuditActor }): Account => {
  const before = mustGetIn(tx, a.uuid);
  tx.sessions.setRole(a.uuid, a.role);
  const after = mustGetIn(tx, a.uuid);
  auditUser(tx, a, 'update', before, after);
  return after;
});

/** Disables (`at`: when; every session ends) or enables (`at` null) an account. @throws AppError 404 */
export const setDisabledProc = procedure('accounts.setDisabled', (tx: Store, a: { uuid: string; at: number | null; now: number; actor: AuditActor }): Account => {
  const before = mustGetIn(tx, a.uuid);
  tx.sessions.setDisabled(a.uuid, a.at);
  if (a.at !== null) tx.sessions.deleteSessionsOf(a.uuid);
  const after = mustGetIn(tx, a.uuid);
  auditUser(tx, a, 'update', before, after);
  return after;
});

/** What a password sign-in needs to know before it counts the try and hashes the password. */
export interface SignInFacts {
  account: Account | undefined;
  /** The account's TOTP, read when it has one and a code was given. */
  totp: { secret: string; recovery: string[]; lastStep: number | null } | null;
  /** The person completed a sign-in from this address since `since`. */
  known: boolean;
  stored: string | null;
}

/** The facts of a sign-in try for `email` from `address` (one read of everything). */
export const signInFactsProc = procedure('accounts.signInFacts', (tx: Store, a: { email: string; address: string; since: number; withCode: boolean }): SignInFacts => {
  const account = tx.sessions.accountByEmail(a.email);
  if (!account) return { account, totp: null, known: false, stored: null };
  return {
    account,
    totp: account.totp && a.withCode ? tx.sessions.totp(account.uuid) : null,
    known: tx.sessions.signedInFrom(account.uuid, a.address, a.since),
    stored: tx.sessions.passwordHash(account.uuid),
  };
});

/** Opens the session of a right password; with TOTP on it stays pending unless `step` (the code given with it) is new. @returns pending */
export const signInProc = procedure('accounts.signIn', (tx: Store, a: { uuid: string; totp: boolean; step: number | null; seed: SessionSeed; now: number }): boolean => {
  const pending = a.totp && !(a.step !== null && tx.sessions.takeTotpStep(a.uuid, a.step));
  openSessionIn(tx, a.uuid, a.seed, pending, a.now);
  return pending;
});

/**
 * The second factor of a pending session: a recovery code (`byRecovery`: spent, the list read again
 * here so a code spent concurrently is gone) or a TOTP step (taken once). @returns true when the session now opens the console
 */
export const secondFactorProc = procedure(
  'accounts.secondFactor',
  (tx: Store, a: { uuid: string; secret: string; byRecovery: boolean; codeHash: string; step: number | null; idHash: Buffer; address: string; now: number }): boolean => {
    const left = a.byRecovery ? tx.sessions.totp(a.uuid)?.recovery : undefined;
    if (left) {
      if (!left.includes(a.codeHash)) return false;
      tx.sessions.setTotp(a.uuid, a.secret, left.filter((h) => h !== a.codeHash));
    } else if (a.step === null || !tx.sessions.takeTotpStep(a.uuid, a.step)) return false;
    tx.sessions.clearPending(Buffer.from(a.idHash));
    tx.sessions.recordSignIn(a.uuid, a.address, a.now);
    return true;
  },
);

/** Turns TOTP on; the code that turned it on (`step`) is spent. */
export const enableTotpProc = procedure('accounts.enableTotp', (tx: Store, a: { uuid: string; secret: string; recovery: string[]; step: number; now: number; actor: AuditActor }): void => {
  const before = mustGetIn(tx, a.uuid);
  tx.sessions.setTotp(a.uuid, a.secret, a.recovery);
  tx.sessions.setTotpStep(a.uuid, a.step);
  auditUser(tx, a, 'update', before, mustGetIn(tx, a.uuid));
});

/** Turns TOTP off (`pharos user disable-totp`; one's own, password checked by the caller). @throws AppError 404 */
export const clearTotpProc = procedure('accounts.clearTotp', (tx: Store, a: { uuid: string; now: number; actor: AuditActor }): void => {
  const before = mustGetIn(tx, a.uuid);
  tx.sessions.setTotp(a.uuid, null, null);
  tx.sessions.setTotpStep(a.uuid, null);
  auditUser(tx, a, 'update', before, mustGetIn(tx, a.uuid));
});

/** A live session as the store has it: its account and form token. */
export interface LiveSession {
  account: Account;
  csrf: string;
  ref: string;
}

/**
 * The live session of `idHash`, or null when unknown, pending, idle or old (then deleted) or its
 * account is disabled or cannot sign in. Its last-seen time is written at most every `touchEveryMs`.
 */
export const sessionProc = procedure('accounts.session', (tx: Store, a: { idHash: Buffer; now: number; idleMs: number; maxMs: number; touchEveryMs: number }): LiveSession | null => {
  const h = Buffer.from(a.idHash);
  const s = tx.sessions.session(h);
  if (!s || s.pending) return null;
  if (a.now - s.lastSeenAt > a.idleMs || a.now - s.createdAt > a.maxMs) {
    tx.sessions.deleteSession(h);
    return null;
  }
  const account = tx.sessions.account(s.userUuid);
  if (!account || account.disabledAt !== null || (!account.hasPassword && account.ssoAt === null)) return null;
  if (a.now - s.lastSeenAt > a.touchEveryMs) tx.sessions.touchSession(h, a.now);
  return { account, csrf: s.csrf, ref: s.ref };
});

/**
 * Ends one session of `userUuid` (`ref`) or all of them (`ref` null: sign out everywhere), with a
 * `user` update in the audit log listing the open sessions before and after (`sessions: 3 → 0`;
 * nothing recorded when none ended). @returns sessions ended
 */
export const endSessionsProc = procedure('accounts.endSessions', (tx: Store, a: { userUuid: string; ref: string | null; now: number; actor: AuditActor }): number => {
  const before = tx.sessions.sessionsOf(a.userUuid).length;
  const ended = a.ref === null ? tx.sessions.deleteSessionsOf(a.userUuid) : tx.sessions.deleteSessionByRef(a.ref, a.userUuid) ? 1 : 0;
  const account = tx.sessions.account(a.userUuid);
  if (ended > 0 && account) {
    const after = tx.sessions.sessionsOf(a.userUuid).length;
    recordAudit(tx, a, { action: 'update', resourceType: 'user', resourceUuid: account.uuid, resourceName: account.email, diff: before === after ? {} : { sessions: { before, after } } });
  }
  return ended;
});
