/**
 * Team members and contact methods (issue 34 point 1). `users.phone` is a person's phone number
 * (E.164, shown to the team like the hosted service's `list_team_members`). `contact_methods` are the
 * ways a person is paged: `address_sealed` is the address (email, phone, ntfy topic, Pushover user
 * key, Telegram chat id) sealed with the installation's SecretBox, `address_hint` a masked form to
 * show; `verified_at` NULL until the person entered the 6-digit code sent to it (`code_hash`:
 * SHA-256 of method uuid and code, with its expiry, wrong attempts and send rate counters).
 * `notification_rules` are a person's ordered "method after N minutes"; `pending_pages` the delayed
 * steps of pages sent (durable: a restart sends them when due; deleted when sent or cancelled).
 */
export const sql = `
ALTER TABLE users ADD COLUMN phone TEXT;
CREATE TABLE contact_methods (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  uuid TEXT NOT NULL UNIQUE,
  user_uuid TEXT NOT NULL REFERENCES users(uuid) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  address_sealed TEXT NOT NULL,
  address_hint TEXT NOT NULL,
  verified_at INTEGER,
  code_hash TEXT,
  code_expires_at INTEGER,
  code_attempts INTEGER NOT NULL DEFAULT 0,
  last_sent_at INTEGER,
  sends_window_start INTEGER,
  sends_in_window INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX contact_methods_user ON contact_methods(user_uuid);
CREATE TABLE notification_rules (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_uuid TEXT NOT NULL REFERENCES users(uuid) ON DELETE CASCADE,
  method_uuid TEXT NOT NULL REFERENCES contact_methods(uuid) ON DELETE CASCADE,
  delay_minutes INTEGER NOT NULL,
  position INTEGER NOT NULL
);
CREATE INDEX notification_rules_user ON notification_rules(user_uuid, position);
CREATE TABLE pending_pages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  outage_uuid TEXT NOT NULL,
  user_uuid TEXT NOT NULL,
  method_uuid TEXT NOT NULL,
  delay_minutes INTEGER NOT NULL,
  due_at INTEGER NOT NULL,
  page TEXT NOT NULL,
  claimed_at INTEGER,
  created_at INTEGER NOT NULL,
  UNIQUE (outage_uuid, user_uuid, method_uuid, delay_minutes)
);
CREATE INDEX pending_pages_due ON pending_pages(due_at);
`;
