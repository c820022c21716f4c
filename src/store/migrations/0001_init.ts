/** Users, API tokens, monitors, check results with hourly rollups, flips and outages. */
export const sql = `
CREATE TABLE users (
  uuid TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE api_tokens (
  id TEXT PRIMARY KEY,
  user_uuid TEXT NOT NULL REFERENCES users(uuid) ON DELETE CASCADE,
  name TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
  token_hash BLOB NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);

CREATE TABLE monitors (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  url TEXT NOT NULL,
  protocol TEXT NOT NULL,
  http_method TEXT NOT NULL,
  check_frequency_s INTEGER NOT NULL,
  regions TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('up', 'down')),
  paused INTEGER NOT NULL,
  expected_status_code TEXT NOT NULL,
  required_keyword TEXT,
  follow_redirects INTEGER NOT NULL,
  port INTEGER,
  ssl_expiration_days INTEGER,
  alerts_wait_min INTEGER NOT NULL,
  escalation_policy_uuid TEXT,
  request_body TEXT,
  request_headers TEXT NOT NULL,
  timeout_s INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

-- Raw results, kept storage.raw_retention_days. Integer monitor ids keep a row small.
CREATE TABLE check_results (
  id INTEGER PRIMARY KEY,
  monitor_id INTEGER NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  at INTEGER NOT NULL,
  region TEXT NOT NULL,
  ok INTEGER NOT NULL,
  latency_ms INTEGER NOT NULL,
  status_code INTEGER NOT NULL,
  reason TEXT
);
CREATE INDEX check_results_monitor_at ON check_results(monitor_id, at);

-- One row per monitor and hour: what uptime bars, graphs and reports read, so their cost does not grow with history.
CREATE TABLE check_rollups_hourly (
  monitor_id INTEGER NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  hour_start INTEGER NOT NULL,
  checks INTEGER NOT NULL,
  failures INTEGER NOT NULL,
  latency_sum_ms INTEGER NOT NULL,
  latency_max_ms INTEGER NOT NULL,
  PRIMARY KEY (monitor_id, hour_start)
) WITHOUT ROWID;

-- One record per status change (up→down, down→up), as Healthchecks.io's flips.
CREATE TABLE monitor_flips (
  id INTEGER PRIMARY KEY,
  monitor_id INTEGER NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  at INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('up', 'down')),
  reason TEXT
);
CREATE INDEX monitor_flips_monitor_at ON monitor_flips(monitor_id, at);

CREATE TABLE counters (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
INSERT INTO counters(name, value) VALUES ('incident_number', 0);

CREATE TABLE outages (
  uuid TEXT PRIMARY KEY,
  incident_number INTEGER NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (kind IN ('monitor', 'manual', 'healthcheck')),
  monitor_id INTEGER REFERENCES monitors(id) ON DELETE CASCADE,
  start_at INTEGER NOT NULL,
  end_at INTEGER,
  status_code INTEGER NOT NULL,
  description TEXT NOT NULL,
  detected_location TEXT NOT NULL,
  confirmed_locations TEXT NOT NULL,
  protocol TEXT NOT NULL,
  severity TEXT NOT NULL CHECK (severity IN ('critical', 'major', 'minor')),
  acknowledged_at INTEGER,
  acknowledged_by TEXT REFERENCES users(uuid) ON DELETE SET NULL,
  reported_by TEXT REFERENCES users(uuid) ON DELETE SET NULL,
  escalation_policy_uuid TEXT,
  alerted_steps INTEGER NOT NULL DEFAULT 0,
  summary TEXT,
  postmortem TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX outages_start ON outages(start_at DESC);
CREATE INDEX outages_monitor ON outages(monitor_id, end_at);
-- At most one ongoing outage per monitor.
CREATE UNIQUE INDEX outages_one_open_per_monitor ON outages(monitor_id) WHERE end_at IS NULL AND monitor_id IS NOT NULL;
`;
