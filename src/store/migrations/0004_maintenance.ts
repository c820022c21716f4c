/** Maintenance windows and the indexes reports read outages by. */
export const sql = `
CREATE TABLE maintenance_windows (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  start_at INTEGER NOT NULL,
  end_at INTEGER NOT NULL CHECK (end_at > start_at),
  statuspages TEXT NOT NULL,
  title TEXT,
  updates TEXT NOT NULL,
  notification_option TEXT NOT NULL CHECK (notification_option IN ('none', 'immediate', 'scheduled')),
  notification_minutes INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX maintenance_windows_end ON maintenance_windows(end_at);

CREATE TABLE maintenance_monitors (
  window_id INTEGER NOT NULL REFERENCES maintenance_windows(id) ON DELETE CASCADE,
  monitor_id INTEGER NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  PRIMARY KEY (window_id, monitor_id)
) WITHOUT ROWID;
CREATE INDEX maintenance_monitors_monitor ON maintenance_monitors(monitor_id);

-- Reports read the outages that overlap a window: those ending after its start, and the ongoing.
-- Covering (start and monitor in the index): a report over all monitors reads no table rows.
CREATE INDEX outages_end ON outages(end_at, start_at, monitor_id);
`;
