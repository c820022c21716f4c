import { createHash } from 'node:crypto';
import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, invalid } from '../lib/errors.ts';
import type { Logger } from '../lib/logger.ts';
import { hashPassword, verifyPassword } from '../lib/password.ts';
import { ID_PREFIX, newId, randomBase62 } from '../domain/ids.ts';
import { ROLES, scopeOfRole, type Account, type Principal, type Role, type SessionInfo } from '../domain/user.ts';
import type { AuditActor } from '../domain/audit.ts';
import type { Store } from '../store/index.ts';
import {
  clearTotpProc,
  createProc,
  enableTotpProc,
  endSessionsProc,
  newSession,
  secondFactorProc,
  sessionProc,
  setDisabledProc,
  setPasswordProc,
  setRoleProc,
  setupProc,
  setupTokenProc,
  sha256,
  signInFactsProc,
  signInProc,
} from './accounts-tx.ts';
import { attemptThrottle, consoleCounters, CONSOLE_WINDOW_MS } from './sign-in-throttle.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** The first-start setup link works this long after it was printed, ms. */
export const SETUP_LINK_MS = 60 * MINUTE_MS;
/** An address a person completed a sign-in from stays theirs this long (not locked by strangers' failures), ms. */
const KNOWN_ADDRESS_MS = 30 * DAY_MS;
/** TOTP time step, ms (RFC 6238's 30 s). */
const TOTP_STEP_MS = 30_000;
/** A session's last-seen time is written at most this often (not on every request). */
const TOUCH_EVERY_MS = MINUTE_MS;
/** Password rules of the console and the CLI. */
export const PASSWORD_MIN = 10;
const PASSWORD_MAX = 200;
/** A signed-in password waits this long for its second factor. */
const SECOND_FACTOR_MS = 5 * MINUTE_MS;
/** Recovery codes made when TOTP is set up (each works once). */
const RECOVERY_CODES = 10;

/**
 * The TOTP of a base32 secret (RFC 6238: SHA-1, 6 digits, 30 s, what every authenticator app reads).
 * `otpauth` is loaded on first use (issue 38 point 1: a server where nobody uses TOTP never loads it).
 */
const totpOf = async (secret: string, label: string) => {
  const { Secret, TOTP } = await import('otpauth');
  return new TOTP({ issuer: 'Pharos', label, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
};
/** The time step (epoch ms / 30 000) whose code `code` is, within ±1 step of `now`, or null when it matches none. */
const totpStep = async (secret: string, label: string, code: string, now: number): Promise<number | null> => {
  const c = code.replace(/\s+/g, '');
  const delta = /^\d{6}$/.test(c) ? (await totpOf(secret, label)).validate({ token: c, timestamp: now, window: 1 }) : null;
  return delta === null ? null : Math.floor(now / TOTP_STEP_MS) + delta;
};

/** A live console session: who, with what powers, and the CSRF token of its forms. */
export interface ConsoleSession {
  account: Account;
  principal: Principal;
  csrf: string;
  ref: string;
}

/** Input of a new person. */
export interface NewAccount {
  email: string;
  name?: string | undefined;
  role: Role;
  password: string;
}

/**
 * People of the console (issue 16): accounts with scrypt passwords and roles, the one-time
 * first-start setup link, sessions (random 256-bit ids stored as SHA-256, idle and absolute expiry,
 * ended all at once on a password change or when an account is disabled), TOTP (each code once)
 * and the throttle of every password and code (src/core/sign-in-throttle.ts).
 */
export function accountsService(deps: { store: Store; clock: Clock; config: Pick<Config, 'console'>; logger: Logger }) {
  const { store, clock, config, logger } = deps;
  const cfg = config.console;
  const idleMs = cfg.session_idle_minutes * MINUTE_MS;
  const maxMs = cfg.session_max_days * DAY_MS;
  const throttle = attemptThrottle({ clock, windowMs: CONSOLE_WINDOW_MS, tooMany: (s) => new AppError(429, 'auth.too_many_attempts', `too many wrong passwords; try again in ${s} s`) });
  /** The console counters of a try for `account` (or a made-up email) from `address`; `known`: the person signed in from there lately; `proven`: it carries a valid TOTP code. */
  const countersOf = (email: string, address: string, known: boolean, proven = false) => consoleCounters(cfg.login_attempts, email, address, known || proven);
  /** The current password of a signed-in person's settings forms: its own counter per account (only the session holder can fill it). */
  const currentPasswordOk = async (uuid: string, password: string) => {
    const stored = await store.async.sessions.passwordHash(uuid);
    return throttle.check([{ key: JSON.stringify(['current-password', uuid]), limit: cfg.login_attempts }], async () => stored !== null && (await verifyPassword(password, stored)));
  };

  const normEmail = (email: string) => {
    const e = email.trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+$/.test(e) || e.length > 254) throw invalid('email', 'must be an email address');
    return e;
  };
  const checkPassword = (password: string) => {
    if (password.length < PASSWORD_MIN) throw invalid('password', `must be at least ${PASSWORD_MIN} characters`);
    if (password.length > PASSWORD_MAX) throw invalid('password', `must be at most ${PASSWORD_MAX} characters`);
  };
  const mustGet = async (uuid: string): Promise<Account> => {
    const a = await store.async.sessions.account(uuid);
    if (!a) throw new AppError(404, 'users.not_found', 'User not found');
    return a;
  };

  return {
    /**
     * First start: when nobody can sign in yet, makes a new one-time setup token (replacing any
     * unused one), valid for {@link SETUP_LINK_MS}, and returns it with its expiry (epoch ms) for the
     * log; else null. A later start makes a new one.
     */
    async setupToken(): Promise<{ token: string; expiresAt: number } | null> {
      const token = randomBase62(32);
      const now = clock.now();
      if (!(await store.async.tx(setupTokenProc, { tokenHash: sha256(token), now }))) return null;
      return { token, expiresAt: now + SETUP_LINK_MS };
    },
    /**
     * The setup link `token`: `open` while nobody can sign in yet and it is the unused token made
     * less than an hour ago; `expired` when it is that token but older; else `invalid` (unknown,
     * used, replaced, or someone can sign in already).
     */
    async setupState(token: string): Promise<'open' | 'expired' | 'invalid'> {
      const t = token.length <= 100 ? await store.async.sessions.setupToken(sha256(token)) : undefined;
      if (!t || t.usedAt !== null || (await store.async.sessions.countPeople()) > 0) return 'invalid';
      return clock.now() - t.createdAt < SETUP_LINK_MS ? 'open' : 'expired';
    },
    /**
     * Spends the setup token and creates the first admin, signed in at once.
     * @returns the new session id (for the cookie)
     * @throws AppError 403 `setup.invalid` when the token is unknown, spent or expired; 400 for a bad email or password
     */
    async setup(token: string, input: Omit<NewAccount, 'role'>, client: { userAgent: string; address: string }): Promise<string> {
      checkPassword(input.password);
      const email = normEmail(input.email);
      const hash = await hashPassword(input.password);
      const { id, seed } = newSession(client);
      const a = await store.async.tx(setupProc, {
        tokenHash: sha256(token),
        now: clock.now(),
        linkMs: SETUP_LINK_MS,
        input: { email, name: input.name, role: 'admin', uuid: newId(ID_PREFIX.user) },
        hash,
        seed,
      });
      logger.info('first admin created through the setup link', { user: a.email });
      return id;
    },
    /**
     * Creates a person (console or `pharos user create`). Every change to a person here records
     * `actor` in the audit log in its own transaction (passwords as `***`).
     * @throws AppError 400 bad email/role/password, 409 the email already has an account
     */
    async create(input: NewAccount, actor: AuditActor): Promise<Account> {
      if (!(ROLES as readonly string[]).includes(input.role)) throw invalid('role', `must be one of ${ROLES.join(', ')}`);
      checkPassword(input.password);
      const email = normEmail(input.email);
      const hash = await hashPassword(input.password);
      return store.async.tx(createProc, { input: { email, name: input.name, role: input.role, uuid: newId(ID_PREFIX.user) }, hash, now: clock.now(), actor });
    },
    /** People: users with a password or who signed in through single sign-on (not bare API-token owners). */
    list: async (): Promise<Account[]> => (await store.async.sessions.accounts()).filter((a) => a.hasPassword || a.ssoAt !== null),
    /** The account `uuid`. @throws AppError 404 `users.not_found` */
    get: mustGet,
    /** The account with this email, or undefined. */
    byEmail: (email: string): Promise<Account | undefined> => store.async.sessions.accountByEmail(email.trim().toLowerCase()),
    /**
     * Sets a new password and ends every session of the user (a stolen cookie dies with the old password).
     * @throws AppError 400 for a password breaking the rules, 404 unknown user
     */
    async setPassword(uuid: string, password: string, actor: AuditActor): Promise<void> {
      checkPassword(password);
      const hash = await hashPassword(password);
      await store.async.tx(setPasswordProc, { uuid, hash, now: clock.now(), actor });
    },
    /**
     * Changes one's own password after checking the current one; every session ends (the caller signs in again).
     * @throws AppError 400 wrong current password or bad new one; 429 `auth.too_many_attempts` after
     *   `console.login_attempts` wrong current passwords (this and {@link disableTotp} together) in 15 minutes
     */
    async changeOwnPassword(uuid: string, current: string, next: string, actor: AuditActor): Promise<void> {
      if (!(await currentPasswordOk(uuid, current))) throw invalid('current_password', 'is not your current password');
      await this.setPassword(uuid, next, actor);
    },
    /** @throws AppError 400 unknown role, 404 unknown user */
    async setRole(uuid: string, role: Role, actor: AuditActor): Promise<Account> {
      if (!(ROLES as readonly string[]).includes(role)) throw invalid('role', `must be one of ${ROLES.join(', ')}`);
      return store.async.tx(setRoleProc, { uuid, role, now: clock.now(), actor });
    },
    /** Disables (ending every session) or enables an account. @throws AppError 404 */
    setDisabled: (uuid: string, disabled: boolean, actor: AuditActor): Promise<Account> => store.async.tx(setDisabledProc, { uuid, at: disabled ? clock.now() : null, now: clock.now(), actor }),
    /**
     * Signs in. Every try is counted before its password is hashed (see {@link consoleCounters}: per
     * address, per account and address, per account from addresses it never signed in from) and given
     * back when right; a full counter refuses further tries unchecked until its 15 minutes end.
     * `code`, optional: the TOTP code given with the password. A valid one signs in at once and lifts
     * the per-account cap (it proves the person); a wrong one makes the try wrong.
     * @returns the new session id (`pending` while its TOTP code is still to be given), or null for a
     *   wrong email, password or code, or a disabled account
     * @throws AppError 429 `auth.too_many_attempts`
     */
    async login(emailRaw: string, password: string, client: { userAgent: string; address: string }, code = ''): Promise<{ id: string; pending: boolean } | null> {
      const email = emailRaw.trim().toLowerCase().slice(0, 254);
      const now = clock.now();
      // One read of what the try needs; the count below is taken after it, with no await between
      // the count and the hashing (the counters are this process's memory: reserve is atomic here).
      const f = await store.async.tx(signInFactsProc, { email, address: client.address, since: now - KNOWN_ADDRESS_MS, withCode: code.trim() !== '' });
      const { account, totp: t, stored } = f;
      const step = t ? await totpStep(t.secret, account!.email, code, clock.now()) : null;
      // A wrong or replayed code makes the try wrong (and does not lift the per-account cap).
      const codeOk = t === null || (step !== null && (t.lastStep === null || step > t.lastStep));
      const r = throttle.reserve(countersOf(email, client.address, f.known, t !== null && codeOk));
      // A missing account costs the same scrypt as a wrong password (no timing hint that an email exists).
      const ok = await verifyPassword(password, stored ?? 'scrypt$32768$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=');
      if (!ok || !codeOk || !stored || !account || account.disabledAt !== null) return null;
      r.succeeded();
      // With TOTP the session opens nothing until the code is given (within 5 minutes), unless it came with the password.
      const { id, seed } = newSession(client);
      const pending = await store.async.tx(signInProc, { uuid: account.uuid, totp: account.totp, step, seed, now: clock.now() });
      return { id, pending };
    },
    /** The account a half-signed-in session (password given, TOTP code not yet) belongs to, or null. */
    async pendingAccount(id: string | undefined): Promise<Account | null> {
      const s = id && id.length <= 100 ? await store.async.sessions.session(sha256(id)) : undefined;
      if (!s || !s.pending || clock.now() - s.createdAt > SECOND_FACTOR_MS) return null;
      const a = await store.async.sessions.account(s.userUuid);
      return a && a.disabledAt === null ? a : null;
    },
    /**
     * The second factor of a half-signed-in session: a 6-digit TOTP code (±30 s, each code once: a
     * step at or before the last accepted one is refused) or a recovery code (spent). Codes count
     * against the same counters as passwords, before they are compared.
     * @returns true when the session now opens the console
     * @throws AppError 429 `auth.too_many_attempts`
     */
    async secondFactor(id: string | undefined, code: string, address: string): Promise<boolean> {
      const account = await this.pendingAccount(id);
      if (!account) return false;
      const known = await store.async.sessions.signedInFrom(account.uuid, address, clock.now() - KNOWN_ADDRESS_MS);
      const r = throttle.reserve(countersOf(account.email, address, known));
      const t = await store.async.sessions.totp(account.uuid);
      if (!t) return false;
      const now = clock.now();
      const step = await totpStep(t.secret, account.email, code, now);
      const codeHash = createHash('sha256').update(code.replace(/\s+/g, '').toLowerCase()).digest('hex');
      const byRecovery = step === null && t.recovery.includes(codeHash);
      const ok = await store.async.tx(secondFactorProc, { uuid: account.uuid, secret: t.secret, byRecovery, codeHash, step, idHash: sha256(id!), address, now });
      if (ok) r.succeeded();
      return ok;
    },
    /** A new TOTP secret for `account` to scan: base32 secret and its otpauth:// URI (nothing is stored yet). */
    async totpProposal(account: Account): Promise<{ secret: string; uri: string }> {
      const { Secret } = await import('otpauth');
      const secret = new Secret({ size: 20 }).base32;
      return { secret, uri: (await totpOf(secret, account.email)).toString() };
    },
    /**
     * Turns TOTP on once a code from the app matches the proposed secret.
     * @returns the recovery codes, shown once (stored only as SHA-256)
     * @throws AppError 400 `code` when the code does not match
     */
    async enableTotp(uuid: string, secret: string, code: string, actor: AuditActor): Promise<string[]> {
      const a = await mustGet(uuid);
      if (!/^[A-Z2-7]{16,64}$/.test(secret)) throw invalid('secret', 'is not a TOTP secret');
      const step = await totpStep(secret, a.email, code, clock.now());
      if (step === null) throw invalid('code', 'does not match: type the 6 digits your app shows now');
      const codes = Array.from({ length: RECOVERY_CODES }, () => randomBase62(10).toLowerCase());
      await store.async.tx(enableTotpProc, { uuid, secret, recovery: codes.map((c) => createHash('sha256').update(c).digest('hex')), step, now: clock.now(), actor });
      return codes;
    },
    /** Turns a person's TOTP off without their password (`pharos user disable-totp`: a lost phone). @throws AppError 404 */
    clearTotp: (uuid: string, actor: AuditActor): Promise<void> => store.async.tx(clearTotpProc, { uuid, now: clock.now(), actor }),
    /**
     * Turns TOTP off after checking the password.
     * @throws AppError 400 `current_password`; 429 `auth.too_many_attempts` (the counter of {@link changeOwnPassword})
     */
    async disableTotp(uuid: string, password: string, actor: AuditActor): Promise<void> {
      if (!(await currentPasswordOk(uuid, password))) throw invalid('current_password', 'is not your current password');
      await store.async.tx(clearTotpProc, { uuid, now: clock.now(), actor });
    },
    /**
     * The live session with this id, or null when unknown, idle too long, too old or its account is
     * disabled or lost its password. Refreshes its last-seen time (at most once a minute).
     */
    async session(id: string | undefined): Promise<ConsoleSession | null> {
      if (!id || id.length > 100) return null;
      const s = await store.async.tx(sessionProc, { idHash: sha256(id), now: clock.now(), idleMs, maxMs, touchEveryMs: TOUCH_EVERY_MS });
      if (!s) return null;
      const { account } = s;
      return { account, csrf: s.csrf, ref: s.ref, principal: { user: { uuid: account.uuid, email: account.email, name: account.name }, scope: scopeOfRole(account.role), tokenId: `session:${s.ref}` } };
    },
    /** Ends one session by its id (sign out). */
    logout: (id: string): Promise<void> => store.async.sessions.deleteSession(sha256(id)),
    /** The user's sessions, most recently used first. */
    sessions: async (userUuid: string): Promise<SessionInfo[]> => (await store.async.sessions.sessionsOf(userUuid)).map(({ ref, createdAt, lastSeenAt, userAgent, address }) => ({ ref, createdAt, lastSeenAt, userAgent, address })),
    /** Ends one of the user's own sessions by its ref (`actor` recorded in the audit log). @returns false when none matched */
    endSession: async (userUuid: string, ref: string, actor: AuditActor): Promise<boolean> => (await store.async.tx(endSessionsProc, { userUuid, ref, now: clock.now(), actor })) === 1,
    /** Sign out everywhere (`actor` recorded in the audit log). @returns sessions ended */
    endAllSessions: (userUuid: string, actor: AuditActor): Promise<number> => store.async.tx(endSessionsProc, { userUuid, ref: null, now: clock.now(), actor }),
    /** Deletes expired sessions, and sign-in addresses unused for 30 days. @returns sessions deleted */
    async pruneSessions(): Promise<number> {
      await store.async.sessions.pruneSignIns(clock.now() - KNOWN_ADDRESS_MS);
      return store.async.sessions.pruneSessions(clock.now() - idleMs, clock.now() - maxMs);
    },
  };
}

/** The accounts service's interface. */
export type AccountsService = ReturnType<typeof accountsService>;
