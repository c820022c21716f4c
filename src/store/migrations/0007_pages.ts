/**
 * Public status pages: the install's secret key (signs status-page cookies and subscription links),
 * subscribers (email, Slack, Teams), when a maintenance window's subscribers were notified, and an
 * index for healthcheck outages by time (uptime bars).
 */
export const sql = `
CREATE TABLE app_secrets (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE subscribers (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  statuspage_id INTEGER NOT NULL REFERENCES statuspages(id) ON DELETE CASCADE,
  channel TEXT NOT NULL CHECK (channel IN ('email', 'slack', 'teams')),
  -- An email address or a webhook URL.
  target TEXT NOT NULL,
  confirmed_at INTEGER,
  created_at INTEGER NOT NULL,
  UNIQUE (statuspage_id, channel, target)
);
CREATE INDEX subscribers_confirmed ON subscribers(statuspage_id) WHERE confirmed_at IS NOT NULL;

ALTER TABLE maintenance_windows ADD COLUMN notified_at INTEGER;

CREATE INDEX outages_healthcheck ON outages(healthcheck_id, end_at) WHERE healthcheck_id IS NOT NULL;
`;
