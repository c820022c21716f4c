import { createHash, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, invalid } from '../lib/errors.ts';
import type { Logger } from '../lib/logger.ts';
import { hashPassword, verifyPassword } from '../lib/password.ts';
import { ID_PREFIX, newId, randomBase62 } from '../domain/ids.ts';
import { ROLES, scopeOfRole, type Account, type Principal, type Role, type SessionInfo } from '../domain/user.ts';
import type { Store } from '../store/index.ts';
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

/** The TOTP of a base32 secret (RFC 6238: SHA-1, 6 digits, 30 s, what every authenticator app reads). */
const totpOf = (secret: string, label: string) => new TOTP({ issuer: 'Pharos', label, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
/** The time step (epoch ms / 30 000) whose code `code` is, within ±1 step of `now`, or null when it matches none. */
const totpStep = (secret: string, label: string, code: string, now: number): number | null => {
  const c = code.replace(/\s+/g, '');
  const delta = /^\d{6}$/.test(c) ? totpOf(secret, label).validate({ token: c, timestamp: now, window: 1 }) : null;
  return delta === null ? null : Math.floor(now / TOTP_STEP_MS) + delta;
};

/** SHA-256 of a random secret (session ids, setup tokens: ≥ 128 random bits, so a fast hash suffices). */
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest();

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
  /** The console counters of a try for `account` (or a made-up email) from `address`; `proven`: it carries a valid TOTP code. */
  const countersOf = (email: string, account: Account | undefined, address: string, proven = false) => {
    const known = account !== undefined && store.sessions.signedInFrom(account.uuid, address, clock.now() - KNOWN_ADDRESS_MS);
    return consoleCounters(cfg.login_attempts, email, address, known || proven);
  };
  /** The current password of a signed-in person's settings forms: its own counter per account (only the session holder can fill it). */
  const currentPasswordOk = (uuid: string, password: string) => {
    const stored = store.sessions.passwordHash(uuid);
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
  const mustGet = (uuid: string): Account => {
    const a = store.sessions.account(uuid);
    if (!a) throw new AppError(404, 'users.not_found', 'User not found');
    return a;
  };
  // A completed sign-in (not one waiting for its code) makes the address the person's own for 30 days.
  const openSession = (userUuid: string, client: { userAgent: string; address: string }, pending = false) => {
    const id = randomBytes(32).toString('base64url');
    const csrf = randomBytes(32).toString('base64url');
    store.sessions.insertSession({ idHash: sha256(id), ref: randomBase62(16), userUuid, csrf, userAgent: client.userAgent.slice(0, 300), address: client.address, pending }, clock.now());
    if (!pending) store.sessions.recordSignIn(userUuid, client.address, clock.now());
    return id;
  };
  const insertAccount = (input: NewAccount, passwordHash: string): Account => {
    const email = normEmail(input.email);
    if (store.sessions.accountByEmail(email)?.hasPassword) throw new AppError(409, 'users.exists', `email: ${email} already has an account`);
    const existing = store.sessions.accountByEmail(email);
    if (existing) {
      // A user made for API tokens (e.g. admin@localhost) becomes a person with this password and role.
      store.sessions.setPassword(existing.uuid, passwordHash);
      store.sessions.setRole(existing.uuid, input.role);
      return mustGet(existing.uuid);
    }
    const uuid = newId(ID_PREFIX.user);
    store.sessions.insertAccount({ uuid, email, name: input.name?.trim() || email, role: input.role, passwordHash }, clock.now());
    return mustGet(uuid);
  };

  return {
    /**
     * First start: when nobody can sign in yet, makes a new one-time setup token (replacing any
     * unused one), valid for {@link SETUP_LINK_MS}, and returns it with its expiry (epoch ms) for the
     * log; else null. A later start makes a new one.
     */
    setupToken(): { token: string; expiresAt: number } | null {
      return store.tx((tx) => {
        if (tx.sessions.countPeople() > 0) return null;
        const token = randomBase62(32);
        tx.sessions.replaceSetupToken(sha256(token), clock.now());
        return { token, expiresAt: clock.now() + SETUP_LINK_MS };
      });
    },
    /**
     * The setup link `token`: `open` while nobody can sign in yet and it is the unused token made
     * less than an hour ago; `expired` when it is that token but older; else `invalid` (unknown,
     * used, replaced, or someone can sign in already).
     */
    setupState(token: string): 'open' | 'expired' | 'invalid' {
      const t = token.length <= 100 ? store.sessions.setupToken(sha256(token)) : undefined;
      if (!t || t.usedAt !== null || store.sessions.countPeople() > 0) return 'invalid';
      return clock.now() - t.createdAt < SETUP_LINK_MS ? 'open' : 'expired';
    },
    /**
     * Spends the setup token and creates the first admin, signed in at once.
     * @returns the new session id (for the cookie)
     * @throws AppError 403 `setup.invalid` when the token is unknown, spent or expired; 400 for a bad email or password
     */
    async setup(token: string, input: Omit<NewAccount, 'role'>, client: { userAgent: string; address: string }): Promise<string> {
      checkPassword(input.password);
      normEmail(input.email);
      const hash = await hashPassword(input.password);
      return store.tx((tx) => {
        if (tx.sessions.countPeople() > 0 || !tx.sessions.spendSetupToken(sha256(token), clock.now(), clock.now() - SETUP_LINK_MS + 1)) {
          throw new AppError(403, 'setup.invalid', 'this setup link is not valid (it was used already, it expired, or a newer one was printed)');
        }
        const a = insertAccount({ ...input, role: 'admin' }, hash);
        logger.info('first admin created through the setup link', { user: a.email });
        return openSession(a.uuid, client);
      });
    },
    /**
     * Creates a person (console or `pharos user create`).
     * @throws AppError 400 bad email/role/password, 409 the email already has an account
     */
    async create(input: NewAccount): Promise<Account> {
      if (!(ROLES as readonly string[]).includes(input.role)) throw invalid('role', `must be one of ${ROLES.join(', ')}`);
      checkPassword(input.password);
      normEmail(input.email);
      const hash = await hashPassword(input.password);
      return store.tx(() => insertAccount(input, hash));
    },
    /** People: users with a password or who signed in through single sign-on (not bare API-token owners). */
    list: (): Account[] => store.sessions.accounts().filter((a) => a.hasPassword || a.ssoAt !== null),
    get: mustGet,
    /** The account with this email, or undefined. */
    byEmail: (email: string): Account | undefined => store.sessions.accountByEmail(email.trim().toLowerCase()),
    /**
     * Sets a new password and ends every session of the user (a stolen cookie dies with the old password).
     * @throws AppError 400 for a password breaking the rules, 404 unknown user
     */
    async setPassword(uuid: string, password: string): Promise<void> {
      checkPassword(password);
      const hash = await hashPassword(password);
      store.tx((tx) => {
        mustGet(uuid);
        tx.sessions.setPassword(uuid, hash);
        tx.sessions.deleteSessionsOf(uuid);
      });
    },
    /**
     * Changes one's own password after checking the current one; every session ends (the caller signs in again).
     * @throws AppError 400 wrong current password or bad new one; 429 `auth.too_many_attempts` after
     *   `console.login_attempts` wrong current passwords (this and {@link disableTotp} together) in 15 minutes
     */
    async changeOwnPassword(uuid: string, current: string, next: string): Promise<void> {
      if (!(await currentPasswordOk(uuid, current))) throw invalid('current_password', 'is not your current password');
      await this.setPassword(uuid, next);
    },
    /** @throws AppError 400 unknown role, 404 unknown user */
    setRole(uuid: string, role: Role): Account {
      if (!(ROLES as readonly string[]).includes(role)) throw invalid('role', `must be one of ${ROLES.join(', ')}`);
      return store.tx((tx) => {
        mustGet(uuid);
        tx.sessions.setRole(uuid, role);
        return mustGet(uuid);
      });
    },
    /** Disables (ending every session) or enables an account. @throws AppError 404 */
    setDisabled(uuid: string, disabled: boolean): Account {
      return store.tx((tx) => {
        mustGet(uuid);
        tx.sessions.setDisabled(uuid, disabled ? clock.now() : null);
        if (disabled) tx.sessions.deleteSessionsOf(uuid);
        return mustGet(uuid);
      });
    },
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
      const account = store.sessions.accountByEmail(email);
      const t = account?.totp && code.trim() !== '' ? store.sessions.totp(account.uuid) : null;
      const step = t ? totpStep(t.secret, account!.email, code, clock.now()) : null;
      // A wrong or replayed code makes the try wrong (and does not lift the per-account cap).
      const codeOk = t === null || (step !== null && (t.lastStep === null || step > t.lastStep));
      const counters = countersOf(email, account, client.address, t !== null && codeOk);
      const r = throttle.reserve(counters);
      const stored = account ? store.sessions.passwordHash(account.uuid) : null;
      // A missing account costs the same scrypt as a wrong password (no timing hint that an email exists).
      const ok = await verifyPassword(password, stored ?? 'scrypt$32768$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=');
      if (!ok || !codeOk || !stored || !account || account.disabledAt !== null) return null;
      r.succeeded();
      // With TOTP the session opens nothing until the code is given (within 5 minutes), unless it came with the password.
      return store.tx((tx) => {
        const pending = account.totp && !(t !== null && step !== null && tx.sessions.takeTotpStep(account.uuid, step));
        return { id: openSession(account.uuid, client, pending), pending };
      });
    },
    /**
     * Opens a session for a person whose identity was proven elsewhere (console single sign-on), as a
     * right password does: with TOTP on, the session opens nothing until the code is given.
     * The caller has checked the account is enabled.
     */
    openVerified: (account: Account, client: { userAgent: string; address: string }): { id: string; pending: boolean } => ({ id: openSession(account.uuid, client, account.totp), pending: account.totp }),
    /** The account a half-signed-in session (password given, TOTP code not yet) belongs to, or null. */
    pendingAccount(id: string | undefined): Account | null {
      const s = id && id.length <= 100 ? store.sessions.session(sha256(id)) : undefined;
      if (!s || !s.pending || clock.now() - s.createdAt > SECOND_FACTOR_MS) return null;
      const a = store.sessions.account(s.userUuid);
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
      const account = this.pendingAccount(id);
      if (!account) return false;
      const r = throttle.reserve(countersOf(account.email, account, address));
      const t = store.sessions.totp(account.uuid);
      if (!t) return false;
      const now = clock.now();
      const step = totpStep(t.secret, account.email, code, now);
      const codeHash = createHash('sha256').update(code.replace(/\s+/g, '').toLowerCase()).digest('hex');
      const byRecovery = step === null && t.recovery.includes(codeHash);
      const ok = store.tx((tx) => {
        // The recovery list is read again inside the transaction: a code spent concurrently is gone.
        const left = byRecovery ? tx.sessions.totp(account.uuid)?.recovery : undefined;
        if (left) {
          if (!left.includes(codeHash)) return false;
          tx.sessions.setTotp(account.uuid, t.secret, left.filter((h) => h !== codeHash));
        } else if (step === null || !tx.sessions.takeTotpStep(account.uuid, step)) return false;
        tx.sessions.clearPending(sha256(id!));
        tx.sessions.recordSignIn(account.uuid, address, now);
        return true;
      });
      if (ok) r.succeeded();
      return ok;
    },
    /** A new TOTP secret for `account` to scan: base32 secret and its otpauth:// URI (nothing is stored yet). */
    totpProposal(account: Account): { secret: string; uri: string } {
      const secret = new Secret({ size: 20 }).base32;
      return { secret, uri: totpOf(secret, account.email).toString() };
    },
    /**
     * Turns TOTP on once a code from the app matches the proposed secret.
     * @returns the recovery codes, shown once (stored only as SHA-256)
     * @throws AppError 400 `code` when the code does not match
     */
    enableTotp(uuid: string, secret: string, code: string): string[] {
      const a = mustGet(uuid);
      if (!/^[A-Z2-7]{16,64}$/.test(secret)) throw invalid('secret', 'is not a TOTP secret');
      const step = totpStep(secret, a.email, code, clock.now());
      if (step === null) throw invalid('code', 'does not match: type the 6 digits your app shows now');
      const codes = Array.from({ length: RECOVERY_CODES }, () => randomBase62(10).toLowerCase());
      store.tx((tx) => {
        tx.sessions.setTotp(uuid, secret, codes.map((c) => createHash('sha256').update(c).digest('hex')));
        // The code that turned TOTP on is spent: it cannot sign in afterwards.
        tx.sessions.setTotpStep(uuid, step);
      });
      return codes;
    },
    /** Turns a person's TOTP off without their password (`pharos user disable-totp`: a lost phone). @throws AppError 404 */
    clearTotp(uuid: string): void {
      store.tx((tx) => {
        mustGet(uuid);
        tx.sessions.setTotp(uuid, null, null);
        tx.sessions.setTotpStep(uuid, null);
      });
    },
    /**
     * Turns TOTP off after checking the password.
     * @throws AppError 400 `current_password`; 429 `auth.too_many_attempts` (the counter of {@link changeOwnPassword})
     */
    async disableTotp(uuid: string, password: string): Promise<void> {
      if (!(await currentPasswordOk(uuid, password))) throw invalid('current_password', 'is not your current password');
      store.tx((tx) => {
        tx.sessions.setTotp(uuid, null, null);
        tx.sessions.setTotpStep(uuid, null);
      });
    },
    /**
     * The live session with this id, or null when unknown, idle too long, too old or its account is
     * disabled or lost its password. Refreshes its last-seen time (at most once a minute).
     */
    session(id: string | undefined): ConsoleSession | null {
      if (!id || id.length > 100) return null;
      const h = sha256(id);
      const s = store.sessions.session(h);
      if (!s || s.pending) return null;
      const now = clock.now();
      if (now - s.lastSeenAt > idleMs || now - s.createdAt > maxMs) {
        store.sessions.deleteSession(h);
        return null;
      }
      const account = store.sessions.account(s.userUuid);
      if (!account || account.disabledAt !== null || (!account.hasPassword && account.ssoAt === null)) return null;
      if (now - s.lastSeenAt > TOUCH_EVERY_MS) store.sessions.touchSession(h, now);
      return { account, csrf: s.csrf, ref: s.ref, principal: { user: { uuid: account.uuid, email: account.email, name: account.name }, scope: scopeOfRole(account.role), tokenId: `session:${s.ref}` } };
    },
    /** Ends one session by its id (sign out). */
    logout: (id: string): void => store.sessions.deleteSession(sha256(id)),
    /** The user's sessions, most recently used first. */
    sessions: (userUuid: string): SessionInfo[] => store.sessions.sessionsOf(userUuid).map(({ ref, createdAt, lastSeenAt, userAgent, address }) => ({ ref, createdAt, lastSeenAt, userAgent, address })),
    /** Ends one of the user's own sessions by its ref. @returns false when none matched */
    endSession: (userUuid: string, ref: string): boolean => store.sessions.deleteSessionByRef(ref, userUuid),
    /** Sign out everywhere. @returns sessions ended */
    endAllSessions: (userUuid: string): number => store.sessions.deleteSessionsOf(userUuid),
    /** Deletes expired sessions, and sign-in addresses unused for 30 days. @returns sessions deleted */
    pruneSessions(): number {
      store.sessions.pruneSignIns(clock.now() - KNOWN_ADDRESS_MS);
      return store.sessions.pruneSessions(clock.now() - idleMs, clock.now() - maxMs);
    },
  };
}

/** The accounts service's interface. */
export type AccountsService = ReturnType<typeof accountsService>;
