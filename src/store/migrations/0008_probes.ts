/**
 * Remote probes (`pharos agent`): the `probe` token scope (SQLite cannot alter a CHECK, so
 * api_tokens is rebuilt; nothing references it), which probe ran each stored check, the agents
 * seen (so a restarted main knows them for their grace period) and the result batches already
 * stored (a retried batch is not counted twice).
 */
export const sql = `
CREATE TABLE api_tokens_new (
  id TEXT PRIMARY KEY,
  user_uuid TEXT NOT NULL REFERENCES users(uuid) ON DELETE CASCADE,
  name TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope IN ('read', 'write', 'probe')),
  token_hash BLOB NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
INSERT INTO api_tokens_new SELECT id, user_uuid, name, scope, token_hash, created_at, revoked_at FROM api_tokens;
DROP TABLE api_tokens;
ALTER TABLE api_tokens_new RENAME TO api_tokens;

-- The agent's id (prb_…); NULL for the main's own probe (no bytes spent on the common case).
ALTER TABLE check_results ADD COLUMN probe TEXT;

CREATE TABLE probe_agents (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  region TEXT NOT NULL,
  version TEXT NOT NULL,
  source_address TEXT,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE probe_batches (
  id TEXT PRIMARY KEY,
  received_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX probe_batches_received ON probe_batches(received_at);
`;
