/**
 * Integrations and escalation policies as stored objects, the audit log, the secret key check
 * (issue 32). `integrations.settings` is the kind's settings with `***` at each secret and
 * `integrations.secrets` the secrets sealed apart (JSON `[{path, sealed}]`, lib/secret-box.ts): the
 * row never holds a plaintext secret. `escalation_policies.steps` is JSON
 * `[{delay_minutes, targets: [{type, uuid}]}]`. `audit_log` is filtered by time, resource type and
 * actor, newest first (`at`, then `id`). `secret_key_check` holds one row: the fingerprint of the key
 * the secrets are sealed with, written by the first instance that starts (store/secret-check.ts).
 * Flags are 0/1; times epoch ms.
 */
export const sql = `
CREATE TABLE integrations (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 1,
  settings TEXT NOT NULL,
  secrets TEXT NOT NULL DEFAULT '[]',
  provisioned INTEGER NOT NULL DEFAULT 0,
  last_test_at INTEGER,
  last_test_result TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE escalation_policies (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL UNIQUE,
  team TEXT,
  steps TEXT NOT NULL,
  repeat_count INTEGER NOT NULL DEFAULT 0,
  repeat_every_minutes INTEGER,
  provisioned INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  actor_type TEXT NOT NULL,
  actor_id TEXT NOT NULL,
  actor_name TEXT NOT NULL,
  action TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  resource_uuid TEXT NOT NULL,
  resource_name TEXT NOT NULL,
  diff TEXT NOT NULL
);
CREATE INDEX audit_log_at ON audit_log(at, id);
CREATE INDEX audit_log_resource ON audit_log(resource_type, at, id);
CREATE INDEX audit_log_actor ON audit_log(actor_type, actor_id, at, id);
CREATE TABLE secret_key_check (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  key_id TEXT NOT NULL,
  key_check TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
`;
