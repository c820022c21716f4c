import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, invalid } from '../lib/errors.ts';
import type { Logger } from '../lib/logger.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import type { AuditActor } from '../domain/audit.ts';
import { invitationAuditDiff, userAuditDiff } from '../domain/audit-views.ts';
import { emailAllowed } from '../domain/sso-connection.ts';
import { ROLES, type Account, type Invitation, type Role } from '../domain/user.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import { newSession, openSessionIn, type SessionSeed } from './accounts-tx.ts';
import { recordAudit, systemActor } from './audit-log.ts';
import type { IdentityService, SignInMethod, VerifiedIdentity } from './identity.ts';

/** Google's issuer: its door is labelled "Google" rather than by the provider's config name. */
const GOOGLE_ISSUER = /^https:\/\/accounts\.google\.com\/?$/;

/** The outcome of a console single sign-on: a session (as a right password gives), or why not. */
export type ConsoleSsoOutcome =
  | { ok: true; id: string; pending: boolean; account: Account; created: boolean }
  | { ok: false; reason: 'wrong_door' | 'no_email' | 'unverified' | 'domain' | 'disabled'; email: string | undefined };

/** What {@link signInProc} decided: a refusal, or the account signed in (its session stored, `pending` while TOTP is to be given). */
type SignInResult = Extract<ConsoleSsoOutcome, { ok: false }> | { ok: true; pending: boolean; account: Account; created: boolean; invited: boolean };

/**
 * The transaction of a console single sign-on for a verified, allowed `email` (see `signIn`): the
 * account made or turned into a person on first sign-in (its audit entry by `actor`, the door), the
 * invitation used up, the session stored.
 */
const signInProc = procedure('consoleSso.signIn', (tx: Store, a: { email: string; anyDomain: boolean; seed: SessionSeed; now: number; newUuid: string; actor: AuditActor }): SignInResult => {
  const { email, now } = a;
  const invitation = tx.invitations.get(email);
  let account = tx.sessions.accountByEmail(email);
  // No domain listed: not "anyone the provider knows" but the people the admins chose.
  const person = account !== undefined && (account.hasPassword || account.ssoAt !== null);
  if (a.anyDomain && !invitation && !person) return { ok: false, reason: 'domain', email };
  let created = false;
  if (account && account.disabledAt !== null) return { ok: false, reason: 'disabled', email };
  if (!account) {
    tx.sessions.insertAccount({ uuid: a.newUuid, email, name: email, role: invitation?.role ?? 'viewer', passwordHash: null, sso: true }, now);
    created = true;
  } else if (!account.hasPassword && account.ssoAt === null) {
    // A user made only to own API tokens becomes a person now: the invited role, else viewer.
    tx.sessions.setRole(account.uuid, invitation?.role ?? 'viewer');
    created = true;
  }
  const before = account ?? null;
  const uuid = account?.uuid ?? tx.sessions.accountByEmail(email)!.uuid;
  tx.sessions.markSso(uuid, now);
  if (invitation) tx.invitations.delete(email);
  account = tx.sessions.account(uuid)!;
  if (created) {
    // A token-only user turned person is an update: it could not sign in before, it can now.
    const diff = { ...userAuditDiff(before, account), ...(before ? { person: { before: false, after: true } } : {}), ...(invitation ? { invitation: { before: { role: invitation.role, invitedBy: invitation.invitedBy } } } : {}) };
    recordAudit(tx, a, { action: before ? 'update' : 'create', resourceType: 'user', resourceUuid: account.uuid, resourceName: account.email, diff });
  }
  // As a right password opens one: with TOTP on, the session opens nothing until the code is given.
  openSessionIn(tx, account.uuid, a.seed, account.totp, now);
  return { ok: true, pending: account.totp, account, created, invited: invitation !== undefined };
});

/**
 * Invites `email` (replacing an open invitation's role), with its audit entry (resource type `user`
 * named and identified by the email: an invitation has no other id).
 * @throws AppError 409 `invitations.exists` when it already has an account
 */
const inviteProc = procedure('consoleSso.invite', (tx: Store, a: { email: string; role: Role; invitedBy: string; now: number; actor: AuditActor }): Invitation => {
  const acc = tx.sessions.accountByEmail(a.email);
  if (acc && (acc.hasPassword || acc.ssoAt !== null)) throw new AppError(409, 'invitations.exists', `email: ${a.email} already has an account (change its role instead)`);
  const before = tx.invitations.get(a.email) ?? null;
  const i: Invitation = { email: a.email, role: a.role, invitedBy: a.invitedBy, createdAt: a.now };
  tx.invitations.put(i);
  recordAudit(tx, a, { action: before ? 'update' : 'create', resourceType: 'user', resourceUuid: i.email, resourceName: i.email, diff: invitationAuditDiff(before, i) });
  return i;
});

/** Revokes the invitation of `email`, with its audit entry. @returns false when there was none (nothing recorded) */
const revokeInvitationProc = procedure('consoleSso.revokeInvitation', (tx: Store, a: { email: string; now: number; actor: AuditActor }): boolean => {
  const before = tx.invitations.get(a.email);
  if (!before || !tx.invitations.delete(a.email)) return false;
  recordAudit(tx, a, { action: 'delete', resourceType: 'user', resourceUuid: before.email, resourceName: before.email, diff: invitationAuditDiff(before, null) });
  return true;
});

/**
 * Console single sign-on (issue 19, docs/api.md "Single sign-on" → "The console"): the door named by
 * `console.sso` (an OIDC provider of `identity_providers`, or a SAML SSO connection `sso_…`), who it
 * admits (a verified email whose domain is in `console.sso_allowed_domains`; with the list empty, only
 * an invited email or a person who already has an account: issue #30), and what
 * the first sign-in makes: a `viewer`, or the role an admin invited that email with. Protocol work
 * stays in src/http/sso/; this module sees only the verified identity.
 */
export function consoleSsoService(deps: { store: Store; clock: Clock; config: Readonly<Config>; identity: IdentityService; logger: Logger }) {
  const { store, clock, config, identity, logger } = deps;
  const cfg = config.console;
  // Said once at start: the door is open to invited emails only, which may surprise whoever set it up.
  if (cfg.sso && cfg.sso_allowed_domains.length === 0) {
    logger.warn(`console: single sign-on through ${cfg.sso} admits only invited emails and existing accounts, as console.sso_allowed_domains is empty (list your email domains there to admit everyone of them)`);
  }
  const normEmail = (email: string) => {
    const e = email.trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+$/.test(e) || e.length > 254) throw invalid('email', 'must be an email address');
    return e;
  };

  /** Who the audit log names for a person made by the first sign-in through door `m`: the provider's config name, or the connection's name. */
  const doorActor = async (m: SignInMethod): Promise<AuditActor> =>
    systemActor('sso', m.type === 'oidc' ? m.provider : ((await identity.connections.find(m.connection))?.name ?? m.connection));

  /** The console's working door now, or null (unset, or the SSO connection is gone). */
  const method = async (): Promise<SignInMethod | null> => {
    const name = cfg.sso;
    if (!name) return null;
    if (name.startsWith('sso_')) return (await identity.connections.find(name)) ? { type: 'saml', connection: name } : null;
    return identity.provider(name) ? { type: 'oidc', provider: name } : null;
  };

  return {
    method,
    /** The name on the sign-in button ("Sign in with <label>"): Google, the provider's config name, or the connection's name; null without a door. */
    async label(): Promise<string | null> {
      const m = await method();
      if (!m) return null;
      if (m.type === 'saml') return (await identity.connections.find(m.connection))?.name ?? null;
      const p = identity.provider(m.provider)!;
      return GOOGLE_ISSUER.test(p.issuer) ? 'Google' : p.name;
    },

    /**
     * Signs in a person the identity provider vouched for: only through the console's own door, only
     * a verified email (SAML: the IdP's word) whose domain is allowed (no domain listed: an invited
     * email, or a person who already has an account), never a disabled account. The
     * first sign-in of an email creates its account (the invited role, else `viewer`; the invitation
     * is used up); a known person keeps their role. One transaction; the session is opened as a right
     * password opens one (TOTP on → pending until the code).
     */
    async signIn(who: VerifiedIdentity, client: { userAgent: string; address: string }): Promise<ConsoleSsoOutcome> {
      const m = await method();
      const email = who.email?.trim().toLowerCase();
      const sameDoor = m !== null && m.type === who.method.type && (m.type === 'oidc' ? m.provider === (who.method as { provider: string }).provider : m.connection === (who.method as { connection: string }).connection);
      if (!sameDoor) return { ok: false, reason: 'wrong_door', email };
      if (!email) return { ok: false, reason: 'no_email', email };
      if (!who.emailVerified) return { ok: false, reason: 'unverified', email };
      const anyDomain = cfg.sso_allowed_domains.length === 0;
      if (!anyDomain && !emailAllowed(email, true, cfg.sso_allowed_domains)) return { ok: false, reason: 'domain', email };
      const { id, seed } = newSession(client);
      const r = await store.async.tx(signInProc, { email, anyDomain, seed, now: clock.now(), newUuid: newId(ID_PREFIX.user), actor: await doorActor(m) });
      if (!r.ok) return r;
      if (r.created) logger.info(`console: ${email} signed in through single sign-on for the first time (${r.account.role}${r.invited ? ', invited' : ''})`);
      return { ok: true, id, pending: r.pending, account: r.account, created: r.created };
    },

    invitations: {
      /** Open invitations, oldest first. */
      list: (): Promise<Invitation[]> => store.async.invitations.list(),
      /**
       * Invites `email` with `role` (replacing an open invitation's role); `actor` is recorded in the audit log.
       * @throws AppError 400 bad email or role; 409 `invitations.exists` when the email already has an account
       */
      async create(emailRaw: string, role: Role, invitedBy: string, actor: AuditActor): Promise<Invitation> {
        const email = normEmail(emailRaw);
        if (!(ROLES as readonly string[]).includes(role)) throw invalid('role', `must be one of ${ROLES.join(', ')}`);
        return store.async.tx(inviteProc, { email, role, invitedBy, now: clock.now(), actor });
      },
      /** Revokes the invitation of `email`; `actor` is recorded in the audit log. @returns false when there was none */
      revoke: (email: string, actor: AuditActor): Promise<boolean> => store.async.tx(revokeInvitationProc, { email: email.trim().toLowerCase(), now: clock.now(), actor }),
    },
  };
}

/** The console single sign-on service's interface. */
export type ConsoleSsoService = ReturnType<typeof consoleSsoService>;
