/** Outage timelines, escalation progress, and the durable alert outbox. */
export const sql = `
-- Everything that happened to an outage, oldest first: opened, acknowledged, unacknowledged,
-- escalated, alerted, resolved, with the optional {message} of the action endpoints.
CREATE TABLE outage_events (
  id INTEGER PRIMARY KEY,
  outage_uuid TEXT NOT NULL REFERENCES outages(uuid) ON DELETE CASCADE,
  at INTEGER NOT NULL,
  type TEXT NOT NULL,
  user_uuid TEXT REFERENCES users(uuid) ON DELETE SET NULL,
  message TEXT
);
CREATE INDEX outage_events_outage ON outage_events(outage_uuid, id);

-- Escalation progress: when step 1 is due (open + alerts_wait), and when the next step is due
-- (NULL: nothing scheduled: acknowledged, resolved, no policy, never alert, or all steps sent).
ALTER TABLE outages ADD COLUMN escalation_start_at INTEGER;
ALTER TABLE outages ADD COLUMN next_alert_at INTEGER;
CREATE INDEX outages_next_alert ON outages(next_alert_at) WHERE next_alert_at IS NOT NULL;

-- The outbox (house rule 3): every alert is a row before it is sent.
CREATE TABLE alerts (
  id INTEGER PRIMARY KEY,
  outage_uuid TEXT REFERENCES outages(uuid) ON DELETE SET NULL,
  channel TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('alert', 'recovery', 'notice')),
  step INTEGER,
  -- The rendered AlertMessage (JSON): what is sent does not change if the outage changes later.
  message TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  delivered_at INTEGER,
  failed_at INTEGER,
  last_error TEXT
);
CREATE INDEX alerts_pending ON alerts(next_attempt_at) WHERE delivered_at IS NULL AND failed_at IS NULL;
CREATE INDEX alerts_outage ON alerts(outage_uuid);
`;
