/**
 * Token scopes (CONTRACT.md "Authentication and users"). `read` may only GET; `probe` (for
 * `pharos agent`) may only poll for its checks and push their results, and nothing else may.
 */
export const TOKEN_SCOPES = ['read', 'write', 'probe'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** A user of the API (`user_…`). */
export interface User {
  uuid: string;
  email: string;
  name: string;
}

/** What an authenticated request carries: the user and the token's scope. */
export interface Principal {
  user: User;
  scope: TokenScope;
  tokenId: string;
}

/** A token as listed (never its secret or hash). */
export interface TokenInfo {
  id: string;
  name: string;
  scope: TokenScope;
  user: User;
  createdAt: number;
  revokedAt: number | null;
}
