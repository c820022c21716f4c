/**
 * The console (issue 16): people who sign in. Users gain a password hash (scrypt), a role and a
 * disabled flag; console sessions are stored by the SHA-256 of their random id (the cookie value
 * is never stored); the first-start setup link's token likewise, and it is spent once used.
 * Optional TOTP second factor: its secret and the hashes of unused recovery codes.
 * Users made before (token owners) keep no password, so they cannot sign in until one is set.
 */
export const sql = `
ALTER TABLE users ADD COLUMN password_hash TEXT;
ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'viewer' CHECK (role IN ('admin', 'editor', 'viewer'));
ALTER TABLE users ADD COLUMN disabled_at INTEGER;
ALTER TABLE users ADD COLUMN totp_secret TEXT;
-- JSON array of SHA-256 hex digests of the unused recovery codes.
ALTER TABLE users ADD COLUMN totp_recovery TEXT;
UPDATE users SET role = 'admin' WHERE email = 'admin@localhost';

CREATE TABLE console_sessions (
  id_hash BLOB PRIMARY KEY,
  ref TEXT NOT NULL UNIQUE,
  user_uuid TEXT NOT NULL REFERENCES users(uuid) ON DELETE CASCADE,
  csrf TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  user_agent TEXT NOT NULL,
  address TEXT NOT NULL,
  -- 1 while the second factor (TOTP) is still to be given: such a session opens nothing else.
  pending INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX console_sessions_user ON console_sessions(user_uuid);

CREATE TABLE setup_tokens (
  token_hash BLOB PRIMARY KEY,
  created_at INTEGER NOT NULL,
  used_at INTEGER
) WITHOUT ROWID;
`;
