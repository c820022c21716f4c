import { createHash } from 'node:crypto';
import type { Clock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import { ID_PREFIX, newId, randomBase62 } from '../domain/ids.ts';
import { REGIONS, type Region } from '../domain/regions.ts';
import type { Principal, TokenInfo, TokenScope, User } from '../domain/user.ts';
import { tokenAuditDiff } from '../domain/audit-views.ts';
import type { AuditActor } from '../domain/audit.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import { recordAudit, type AuditStamp } from './audit-log.ts';

/** The admin user that `PHAROS_ADMIN_TOKEN` and the first-start token belong to (CONTRACT.md). */
export const ADMIN_EMAIL = 'admin@localhost';

const TOKEN_PREFIX = 'phr_';

/**
 * The regions granted to a token of `scope` (issue 30): a probe token needs at least one, each one of
 * {@link REGIONS} (duplicates dropped, order kept); other scopes take none.
 * @throws AppError 400 `validation.invalid` naming `regions` otherwise
 */
export function tokenRegions(scope: TokenScope, regions: readonly string[] | undefined): Region[] {
  const list = [...new Set(regions ?? [])];
  if (scope !== 'probe') {
    if (list.length > 0) throw new AppError(400, 'validation.invalid', `regions: only a probe token is bound to regions (scope is ${scope})`);
    return [];
  }
  if (list.length === 0) throw new AppError(400, 'validation.invalid', 'regions: a probe token needs at least one region its agents may serve');
  const bad = list.find((r) => !(REGIONS as readonly string[]).includes(r));
  if (bad !== undefined) throw new AppError(400, 'validation.invalid', `regions: '${bad}' is not one of ${REGIONS.join(', ')}`);
  return list as Region[];
}

/** SHA-256 of a token (tokens are ≥ 128 random bits, so a fast hash is the right tool, unlike passwords). */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** A new token's secret and key id, made by the caller (procedures take no randomness of their own). */
interface NewToken {
  token: string;
  keyId: string;
  /** The uuid the user gets when it must be created. */
  userUuid: string;
}

/** The user with `email`, made (uuid `fresh`) when new. */
function ensureUser(tx: Store, email: string, name: string, fresh: string, now: number): User {
  const found = tx.users.findUserByEmail(email);
  if (found) return found;
  const user: User = { uuid: fresh, email, name };
  tx.users.insertUser(user, now);
  return user;
}

/** The audit entry of a token change. */
const auditToken = (tx: Store, stamp: AuditStamp, action: 'create' | 'update', before: TokenInfo | null, after: TokenInfo): void =>
  recordAudit(tx, stamp, { action, resourceType: 'token', resourceUuid: after.id, resourceName: after.name, diff: tokenAuditDiff(before, after) });

/** Stores token `t` of `user` (as its hash), records it in the audit log and returns its listing info. */
function insertToken(tx: Store, stamp: AuditStamp, user: User, name: string, scope: TokenScope, t: NewToken, regions: readonly Region[] = []): TokenInfo {
  tx.users.insertToken({ id: t.keyId, userUuid: user.uuid, name, scope, hash: hashToken(t.token), regions }, stamp.now);
  const info = tx.users.findTokenByHash(hashToken(t.token))!;
  auditToken(tx, stamp, 'create', null, info);
  return info;
}

/** A token for the user with this email, the user made when new (one transaction). */
const createTokenProc = procedure('users.createToken', (tx: Store, a: { email: string; name: string; tokenName: string; scope: TokenScope; regions: Region[]; t: NewToken; now: number; actor: AuditActor }): TokenInfo =>
  insertToken(tx, a, ensureUser(tx, a.email, a.name, a.t.userUuid, a.now), a.tokenName, a.scope, a.t, a.regions),
);

/** The actor of the tokens made at start. */
const START: AuditActor = { type: 'system', id: 'start', name: 'Pharos start-up' };

/** Start-up bootstrap (see `bootstrapAdmin`): true when the generated token `t` was stored. */
const bootstrapAdminProc = procedure('users.bootstrapAdmin', (tx: Store, a: { adminToken: string | null; t: NewToken; now: number }): boolean => {
  const stamp = { actor: START, now: a.now };
  if (a.adminToken !== null) {
    if (!tx.users.findTokenByHash(hashToken(a.adminToken))) {
      insertToken(tx, stamp, ensureUser(tx, ADMIN_EMAIL, 'Admin', a.t.userUuid, a.now), 'PHAROS_ADMIN_TOKEN', 'write', { ...a.t, token: a.adminToken });
    }
    return false;
  }
  if (tx.users.countLiveTokens() > 0) return false;
  insertToken(tx, stamp, ensureUser(tx, ADMIN_EMAIL, 'Admin', a.t.userUuid, a.now), 'first-start', 'write', a.t);
  return true;
});

/** Revokes the live token `id` and records it. @returns false (nothing written) when no live token has that id */
const revokeTokenProc = procedure('users.revokeToken', (tx: Store, a: { id: string; now: number; actor: AuditActor }): boolean => {
  const before = tx.users.listTokens().find((t) => t.id === a.id);
  if (!before || !tx.users.revokeToken(a.id, a.now)) return false;
  auditToken(tx, a, 'update', before, { ...before, revokedAt: a.now });
  return true;
});

/** Replaces a live probe token's regions and records it. @returns the token, or null when `id` is no live probe token */
const grantRegionsProc = procedure('users.grantRegions', (tx: Store, a: { id: string; regions: Region[]; now: number; actor: AuditActor }): TokenInfo | null => {
  const before = tx.users.listTokens().find((t) => t.id === a.id);
  if (!before || !tx.users.setTokenRegions(a.id, a.regions)) return null;
  const after = tx.users.listTokens().find((t) => t.id === a.id)!;
  auditToken(tx, a, 'update', before, after);
  return after;
});

/** A fresh token secret, key id and user uuid. */
const newToken = (): NewToken => ({ token: TOKEN_PREFIX + randomBase62(43), keyId: 'key_' + randomBase62(12), userUuid: newId(ID_PREFIX.user) });

/** Users and API tokens: creation, bootstrap and authentication. */
export function usersService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;

  return {
    /**
     * Creates a token for the user with this email (creating the user when new). The secret is
     * returned once and stored only as its SHA-256 hash.
     * A `probe` token is bound to `regions` (at least one; see {@link tokenRegions}). `actor` is
     * recorded in the audit log (as for every token change here; the bootstrap's as Pharos start-up).
     * @returns `token` (the secret, `phr_` + 43 base62 chars ≈ 256 bits) and its listing info
     * @throws AppError 400 on an empty email, or regions missing (probe) or given (other scopes) or unknown
     */
    async createToken(input: { email: string; name: string; scope: TokenScope; tokenName?: string; regions?: readonly string[] }, actor: AuditActor): Promise<{ token: string; info: TokenInfo }> {
      const email = input.email.trim().toLowerCase();
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new AppError(400, 'users.invalid_email', 'email: must be an email address');
      const regions = tokenRegions(input.scope, input.regions);
      const t = newToken();
      const info = await store.async.tx(createTokenProc, { email, name: input.name.trim() || email, tokenName: input.tokenName ?? 'cli', scope: input.scope, regions, t, now: clock.now(), actor });
      return { token: t.token, info };
    },
    /**
     * Start-up bootstrap: when `adminToken` is given, ensures it is a token of the admin user (made
     * `write` on first sight); when no live token exists and none is given, creates one.
     * A `PHAROS_ADMIN_TOKEN` whose key was revoked stays revoked: revoking is the operator's
     * deliberate act (a leaked secret), so a restart must not quietly undo it, and inserting the
     * same hash again would break the unique index (a crash on every start). See
     * {@link revokedAdminTokenId} for the warning the caller logs.
     * @returns the generated token when one was made (to print once), else null
     */
    async bootstrapAdmin(adminToken: string | undefined): Promise<string | null> {
      const t = newToken();
      const made = await store.async.tx(bootstrapAdminProc, { adminToken: adminToken || null, t, now: clock.now() });
      return made ? t.token : null;
    },
    /** The key id (`key_…`) of `adminToken` when that token was revoked, else null (unset, unknown or live). */
    async revokedAdminTokenId(adminToken: string | undefined): Promise<string | null> {
      if (!adminToken) return null;
      const t = await store.async.users.findTokenByHash(hashToken(adminToken));
      return t && t.revokedAt !== null ? t.id : null;
    },
    /** The principal of a live token, or null for an unknown or revoked one. */
    async authenticate(token: string): Promise<Principal | null> {
      // Looked up by the hash through a unique index: the secret itself is never compared or stored.
      const t = await store.async.users.findTokenByHash(hashToken(token));
      if (!t || t.revokedAt !== null) return null;
      return t.scope === 'probe' ? { user: t.user, scope: t.scope, tokenId: t.id, tokenName: t.name, regions: t.regions } : { user: t.user, scope: t.scope, tokenId: t.id, tokenName: t.name };
    },
    /**
     * Replaces the regions granted to the live probe token `id` (`pharos token grant`); agents already
     * online in a region no longer granted are refused from their next poll.
     * @throws AppError 400 naming `regions` (none, or unknown), 404 `tokens.not_found` when `id` is no live probe token
     */
    async grantRegions(id: string, regions: readonly string[], actor: AuditActor): Promise<TokenInfo> {
      const list = tokenRegions('probe', regions);
      const t = await store.async.tx(grantRegionsProc, { id, regions: list, now: clock.now(), actor });
      if (!t) throw new AppError(404, 'tokens.not_found', `no live probe token with id ${id}`);
      return t;
    },
    /** Every API token (live and revoked). */
    listTokens: (): Promise<TokenInfo[]> => store.async.users.listTokens(),
    /** A user by uuid, or undefined. */
    get: (uuid: string): Promise<User | undefined> => store.async.users.findUser(uuid),
    /** @returns true when a live token was revoked */
    revokeToken: (id: string, actor: AuditActor): Promise<boolean> => store.async.tx(revokeTokenProc, { id, now: clock.now(), actor }),
  };
}

/** The users service's interface. */
export type UsersService = ReturnType<typeof usersService>;
