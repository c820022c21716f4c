/**
 * On-call schedules (issue 34 point 2). `on_call_schedules.layers` is JSON
 * `[{name, users: [user_uuid…], rotation: {type, length, unit, handoff_time, start_date}, restrictions: [{days, start, end}]}]`
 * (bottom layer first), read in `time_zone` (IANA). `on_call_overrides` are [starts_at, ends_at)
 * epoch ms of one person covering a schedule. `on_call_feeds` holds the SHA-256 (hex) of each iCal
 * feed's secret token, one per schedule (`kind` 'schedule') and per person ('user'); rotating a
 * feed replaces its row. Times epoch ms.
 */
export const sql = `
CREATE TABLE on_call_schedules (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL UNIQUE,
  team TEXT,
  description TEXT,
  time_zone TEXT NOT NULL,
  layers TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE on_call_overrides (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  schedule_uuid TEXT NOT NULL,
  user_uuid TEXT NOT NULL,
  starts_at INTEGER NOT NULL,
  ends_at INTEGER NOT NULL,
  note TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX on_call_overrides_schedule ON on_call_overrides(schedule_uuid, ends_at);
CREATE INDEX on_call_overrides_user ON on_call_overrides(user_uuid);
CREATE TABLE on_call_feeds (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  subject_uuid TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  UNIQUE (kind, subject_uuid)
);
`;
