/** Healthchecks, their pings, and healthcheck outages. */
export const sql = `
CREATE TABLE healthchecks (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  public_uuid TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  period_value INTEGER,
  period_type TEXT CHECK (period_type IN ('seconds', 'minutes', 'hours', 'days')),
  cron TEXT,
  timezone TEXT NOT NULL,
  grace_value INTEGER NOT NULL,
  grace_type TEXT NOT NULL CHECK (grace_type IN ('seconds', 'minutes', 'hours', 'days')),
  escalation_policy_uuid TEXT,
  paused INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('up', 'down')),
  clock_start_at INTEGER NOT NULL,
  last_ping_at INTEGER,
  -- Time of a start signal not yet followed by a success or fail ping (for run durations).
  last_start_at INTEGER,
  -- Pings received so far: the next ping's number, and what retention counts back from.
  pings_total INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  -- Exactly one mode: simple (period) or cron.
  CHECK ((period_value IS NULL AND period_type IS NULL) <> (cron IS NULL))
);

-- Pings, numbered per healthcheck (n = 1, 2, …); the newest storage.pings_per_healthcheck are kept.
CREATE TABLE pings (
  id INTEGER PRIMARY KEY,
  healthcheck_id INTEGER NOT NULL REFERENCES healthchecks(id) ON DELETE CASCADE,
  n INTEGER NOT NULL,
  at INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('success', 'start', 'fail')),
  exit_code INTEGER,
  method TEXT NOT NULL,
  source_ip TEXT,
  user_agent TEXT,
  body TEXT,
  duration_ms INTEGER
);
CREATE UNIQUE INDEX pings_healthcheck_n ON pings(healthcheck_id, n);

-- One record per status change, as monitor_flips.
CREATE TABLE healthcheck_flips (
  id INTEGER PRIMARY KEY,
  healthcheck_id INTEGER NOT NULL REFERENCES healthchecks(id) ON DELETE CASCADE,
  at INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('up', 'down')),
  reason TEXT
);
CREATE INDEX healthcheck_flips_healthcheck_at ON healthcheck_flips(healthcheck_id, at);

ALTER TABLE outages ADD COLUMN healthcheck_id INTEGER REFERENCES healthchecks(id) ON DELETE CASCADE;
CREATE UNIQUE INDEX outages_one_open_per_healthcheck ON outages(healthcheck_id) WHERE end_at IS NULL AND healthcheck_id IS NOT NULL;
`;
