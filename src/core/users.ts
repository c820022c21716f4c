import { createHash } from 'node:crypto';
import type { Clock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import { ID_PREFIX, newId, randomBase62 } from '../domain/ids.ts';
import { REGIONS, type Region } from '../domain/regions.ts';
import type { Principal, TokenInfo, TokenScope, User } from '../domain/user.ts';
import type { Store } from '../store/index.ts';

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

/** Users and API tokens: creation, bootstrap and authentication. */
export function usersService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;

  const ensureUser = (email: string, name: string): User => {
    const found = store.users.findUserByEmail(email);
    if (found) return found;
    const user: User = { uuid: newId(ID_PREFIX.user), email, name };
    store.users.insertUser(user, clock.now());
    return user;
  };

  const insertToken = (user: User, name: string, scope: TokenScope, token: string, regions: readonly Region[] = []): TokenInfo => {
    const id = 'key_' + randomBase62(12);
    store.users.insertToken({ id, userUuid: user.uuid, name, scope, hash: hashToken(token), regions }, clock.now());
    return store.users.findTokenByHash(hashToken(token))!;
  };

  return {
    /**
     * Creates a token for the user with this email (creating the user when new). The secret is
     * returned once and stored only as its SHA-256 hash.
     * A `probe` token is bound to `regions` (at least one; see {@link tokenRegions}).
     * @returns `token` (the secret, `phr_` + 43 base62 chars ≈ 256 bits) and its listing info
     * @throws AppError 400 on an empty email, or regions missing (probe) or given (other scopes) or unknown
     */
    createToken(input: { email: string; name: string; scope: TokenScope; tokenName?: string; regions?: readonly string[] }): { token: string; info: TokenInfo } {
      const email = input.email.trim().toLowerCase();
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new AppError(400, 'users.invalid_email', 'email: must be an email address');
      const regions = tokenRegions(input.scope, input.regions);
      const token = TOKEN_PREFIX + randomBase62(43);
      const info = store.tx(() => insertToken(ensureUser(email, input.name.trim() || email), input.tokenName ?? 'cli', input.scope, token, regions));
      return { token, info };
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
    bootstrapAdmin(adminToken: string | undefined): string | null {
      return store.tx((tx) => {
        if (adminToken) {
          if (!tx.users.findTokenByHash(hashToken(adminToken))) {
            insertToken(ensureUser(ADMIN_EMAIL, 'Admin'), 'PHAROS_ADMIN_TOKEN', 'write', adminToken);
          }
          return null;
        }
        if (tx.users.countLiveTokens() > 0) return null;
        const token = TOKEN_PREFIX + randomBase62(43);
        insertToken(ensureUser(ADMIN_EMAIL, 'Admin'), 'first-start', 'write', token);
        return token;
      });
    },
    /** The key id (`key_…`) of `adminToken` when that token was revoked, else null (unset, unknown or live). */
    revokedAdminTokenId(adminToken: string | undefined): string | null {
      if (!adminToken) return null;
      const t = store.users.findTokenByHash(hashToken(adminToken));
      return t && t.revokedAt !== null ? t.id : null;
    },
    /** The principal of a live token, or null for an unknown or revoked one. */
    authenticate(token: string): Principal | null {
      // Looked up by the hash through a unique index: the secret itself is never compared or stored.
      const t = store.users.findTokenByHash(hashToken(token));
      if (!t || t.revokedAt !== null) return null;
      return t.scope === 'probe' ? { user: t.user, scope: t.scope, tokenId: t.id, regions: t.regions } : { user: t.user, scope: t.scope, tokenId: t.id };
    },
    /**
     * Replaces the regions granted to the live probe token `id` (`pharos token grant`); agents already
     * online in a region no longer granted are refused from their next poll.
     * @throws AppError 400 naming `regions` (none, or unknown), 404 `tokens.not_found` when `id` is no live probe token
     */
    grantRegions(id: string, regions: readonly string[]): TokenInfo {
      const list = tokenRegions('probe', regions);
      if (!store.users.setTokenRegions(id, list)) throw new AppError(404, 'tokens.not_found', `no live probe token with id ${id}`);
      return store.users.listTokens().find((t) => t.id === id)!;
    },
    listTokens: (): TokenInfo[] => store.users.listTokens(),
    /** A user by uuid, or undefined. */
    get: (uuid: string): User | undefined => store.users.findUser(uuid),
    /** @returns true when a live token was revoked */
    revokeToken: (id: string): boolean => store.users.revokeToken(id, clock.now()),
  };
}

/** The users service's interface. */
export type UsersService = ReturnType<typeof usersService>;
