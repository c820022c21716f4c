import type { Region } from './regions.ts';

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
  /** The API token's name (absent for console sessions): who acted, in the audit log. */
  tokenName?: string;
  /** A `probe` token's granted regions (the only ones its agents may poll and report for); absent for other principals. */
  regions?: readonly Region[];
}

/** A token as listed (never its secret or hash). */
export interface TokenInfo {
  id: string;
  name: string;
  scope: TokenScope;
  /** Regions granted to a `probe` token (issue 30); empty for other scopes and for probe tokens made before regions existed. */
  regions: Region[];
  user: User;
  createdAt: number;
  revokedAt: number | null;
}

/**
 * Console roles (issue 16): `admin` and `editor` have the powers of a `write` token, `viewer` of a
 * `read` token; only admins manage users and API tokens.
 */
export const ROLES = ['admin', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** A person of the console: a user with a role, whether they may sign in, and whether a password is set. */
export interface Account extends User {
  role: Role;
  /** Epoch ms the account was disabled, or null. */
  disabledAt: number | null;
  hasPassword: boolean;
  /** Epoch ms of the first console sign-in through single sign-on (`console.sso`), or null: such a person needs no password. */
  ssoAt: number | null;
  /** A TOTP second factor is set up. */
  totp: boolean;
  createdAt: number;
}

/** An email an admin invited to the console with a role: its first single sign-on gets that role (instead of `viewer`). */
export interface Invitation {
  /** Lower-case. */
  email: string;
  role: Role;
  /** Email of the admin who invited. */
  invitedBy: string;
  createdAt: number;
}

/** A console session as listed under "your sessions" (never its id or hash). */
export interface SessionInfo {
  /** Public reference (for "sign out this session"). */
  ref: string;
  createdAt: number;
  lastSeenAt: number;
  userAgent: string;
  address: string;
}

/** The token scope a role stands for (viewer → read; admin, editor → write). */
export function scopeOfRole(role: Role): TokenScope {
  return role === 'viewer' ? 'read' : 'write';
}

/** A stored session with what the console needs to check it (the id hash itself stays here). */
export interface StoredSession extends SessionInfo {
  userUuid: string;
  csrf: string;
  /** The second factor is still to be given. */
  pending: boolean;
}
