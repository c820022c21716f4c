import type { AuditActor } from '../domain/audit.ts';
import type { Principal } from '../domain/user.ts';

/**
 * Who acts, for the audit log (issue 32 point 5), as the HTTP layer knows it: an API token (its key
 * id, named `<token name> (<owner's email>)`), or a person signed in to the console (uuid, email).
 */

/** The actor of an authenticated API request; a console session's principal (`session:…`) is its person. */
export function apiActor(p: Principal): AuditActor {
  if (p.tokenId.startsWith('session:')) return { type: 'user', id: p.user.uuid, name: p.user.email };
  return { type: 'token', id: p.tokenId, name: p.tokenName ? `${p.tokenName} (${p.user.email})` : p.user.email };
}

/** The actor of a console request: the signed-in person. */
export function consoleActor(session: { account: { uuid: string; email: string } }): AuditActor {
  return { type: 'user', id: session.account.uuid, name: session.account.email };
}
