/**
 * Console single sign-on (issue 19): a person may sign in through the identity provider named by
 * `console.sso` instead of a password. `sso_at` marks such a person (epoch ms of their first SSO
 * sign-in; NULL for people with only a password and for API-token owners). Invitations let an admin
 * give an email its role before its first SSO sign-in (otherwise it becomes a viewer); an invitation
 * is used up by that sign-in.
 */
export const sql = `
ALTER TABLE users ADD COLUMN sso_at INTEGER;

CREATE TABLE console_invitations (
  email TEXT PRIMARY KEY,
  role TEXT NOT NULL CHECK (role IN ('admin', 'editor', 'viewer')),
  invited_by TEXT NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
`;
