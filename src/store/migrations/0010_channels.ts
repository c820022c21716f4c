/**
 * Alert channels (issue 18): outbox rows get an idempotency id (`delivery_id`, the same on every
 * attempt of a row; receivers drop repeats by it) and the `acknowledge` kind (PagerDuty/Opsgenie
 * follow acknowledgements). SQLite cannot change a CHECK constraint in place, so the table is
 * rebuilt; rows kept so far get `dlv_legacy_<id>`. Also the id map of `pharos import kuma`, and SMS
 * subscribers (confirmed by a code).
 */
export const sql = `
CREATE TABLE alerts_new (
  id INTEGER PRIMARY KEY,
  outage_uuid TEXT REFERENCES outages(uuid) ON DELETE SET NULL,
  channel TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('alert', 'recovery', 'acknowledge', 'notice')),
  step INTEGER,
  message TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  delivered_at INTEGER,
  failed_at INTEGER,
  last_error TEXT,
  delivery_id TEXT NOT NULL UNIQUE
);
INSERT INTO alerts_new(id, outage_uuid, channel, kind, step, message, created_at, attempts, next_attempt_at, delivered_at, failed_at, last_error, delivery_id)
  SELECT id, outage_uuid, channel, kind, step, message, created_at, attempts, next_attempt_at, delivered_at, failed_at, last_error, 'dlv_legacy_' || id FROM alerts;
DROP TABLE alerts;
ALTER TABLE alerts_new RENAME TO alerts;
CREATE INDEX alerts_pending ON alerts(next_attempt_at) WHERE delivered_at IS NULL AND failed_at IS NULL;
CREATE INDEX alerts_outage ON alerts(outage_uuid);

-- \`pharos import kuma\`: which Pharos object each imported Kuma object became, so a second run
-- with the same input changes nothing (kind: monitor, healthcheck, statuspage, maintenance).
CREATE TABLE kuma_imports (
  kind TEXT NOT NULL,
  kuma_id INTEGER NOT NULL,
  uuid TEXT NOT NULL,
  imported_at INTEGER NOT NULL,
  PRIMARY KEY (kind, kuma_id)
);

-- SMS subscriptions of status pages: a phone number is confirmed by a code sent to it (hash,
-- expiry, wrong attempts) before anything else is sent. The channel CHECK gains 'sms'.
CREATE TABLE subscribers_new (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  statuspage_id INTEGER NOT NULL REFERENCES statuspages(id) ON DELETE CASCADE,
  channel TEXT NOT NULL CHECK (channel IN ('email', 'slack', 'teams', 'sms')),
  -- An email address, a webhook URL or an E.164 phone number.
  target TEXT NOT NULL,
  confirmed_at INTEGER,
  created_at INTEGER NOT NULL,
  code_hash TEXT,
  code_expires_at INTEGER,
  code_attempts INTEGER NOT NULL DEFAULT 0,
  UNIQUE (statuspage_id, channel, target)
);
INSERT INTO subscribers_new(id, uuid, statuspage_id, channel, target, confirmed_at, created_at)
  SELECT id, uuid, statuspage_id, channel, target, confirmed_at, created_at FROM subscribers;
DROP TABLE subscribers;
ALTER TABLE subscribers_new RENAME TO subscribers;
CREATE INDEX subscribers_confirmed ON subscribers(statuspage_id) WHERE confirmed_at IS NOT NULL;
`;
