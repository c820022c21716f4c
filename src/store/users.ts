import type { Region } from '../domain/regions.ts';
import type { TokenInfo, TokenScope, User } from '../domain/user.ts';
import type { Db } from './db.ts';

interface TokenRow {
  id: string;
  name: string;
  scope: TokenScope;
  regions: string;
  created_at: number;
  revoked_at: number | null;
  user_uuid: string;
  email: string;
  user_name: string;
}

/** Users and API tokens. Token secrets never reach this module: only their SHA-256 hash (32 bytes). */
export function usersStore(db: Db) {
  const byEmail = db.prepare<[string], User>('SELECT uuid, email, name FROM users WHERE email = ?');
  const byUuid = db.prepare<[string], User>('SELECT uuid, email, name FROM users WHERE uuid = ?');
  const insertUser = db.prepare('INSERT INTO users(uuid, email, name, created_at) VALUES (?, ?, ?, ?)');
  const insertToken = db.prepare('INSERT INTO api_tokens(id, user_uuid, name, scope, regions, token_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const tokenByHash = db.prepare<[Buffer], TokenRow>(
    `SELECT t.id, t.name, t.scope, t.regions, t.created_at, t.revoked_at, u.uuid AS user_uuid, u.email, u.name AS user_name
       FROM api_tokens t JOIN users u ON u.uuid = t.user_uuid WHERE t.token_hash = ?`,
  );
  const listTokens = db.prepare<[], TokenRow>(
    `SELECT t.id, t.name, t.scope, t.regions, t.created_at, t.revoked_at, u.uuid AS user_uuid, u.email, u.name AS user_name
       FROM api_tokens t JOIN users u ON u.uuid = t.user_uuid ORDER BY t.created_at, t.id`,
  );
  const revoke = db.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const setRegions = db.prepare("UPDATE api_tokens SET regions = ? WHERE id = ? AND scope = 'probe' AND revoked_at IS NULL");
  const countTokens = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM api_tokens WHERE revoked_at IS NULL');

  const toInfo = (r: TokenRow): TokenInfo => ({
    id: r.id,
    name: r.name,
    scope: r.scope,
    // Stored comma-separated ('' = none); written only by insertToken/setTokenRegions from validated regions.
    regions: r.regions ? (r.regions.split(',') as Region[]) : [],
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
    user: { uuid: r.user_uuid, email: r.email, name: r.user_name },
  });

  return {
    findUserByEmail: (email: string): User | undefined => byEmail.get(email),
    findUser: (uuid: string): User | undefined => byUuid.get(uuid),
    insertUser(u: User, now: number): void {
      insertUser.run(u.uuid, u.email, u.name, now);
    },
    /** Inserts a token; `regions` (a probe token's grant) defaults to none. */
    insertToken(t: { id: string; userUuid: string; name: string; scope: TokenScope; hash: Buffer; regions?: readonly Region[] }, now: number): void {
      insertToken.run(t.id, t.userUuid, t.name, t.scope, (t.regions ?? []).join(','), t.hash, now);
    },
    /** Replaces the regions of a live probe token. @returns false when `id` is no live probe token */
    setTokenRegions: (id: string, regions: readonly Region[]): boolean => setRegions.run(regions.join(','), id).changes === 1,
    /** The token with this hash, revoked or not. */
    findTokenByHash(hash: Buffer): TokenInfo | undefined {
      const r = tokenByHash.get(hash);
      return r && toInfo(r);
    },
    listTokens: (): TokenInfo[] => listTokens.all().map(toInfo),
    /** @returns true when a live token was revoked */
    revokeToken: (id: string, now: number): boolean => revoke.run(now, id).changes === 1,
    /** Live (unrevoked) tokens. */
    countLiveTokens: (): number => countTokens.get()!.n,
  };
}

/** The users store's interface. */
export type UsersStore = ReturnType<typeof usersStore>;
