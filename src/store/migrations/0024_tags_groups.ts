/**
 * Tags and groups (issue 33 point 5, after Uptime Kuma's tags). `tags` are stored names with a colour
 * (`#rrggbb`), unique by `name_key` (the name in lower case: `Prod` and `prod` are one tag);
 * `monitor_tags` puts a tag on a monitor with a value (`''`: none; Kuma's `env:prod`), in the order
 * given (`position`); a monitor or a tag deleted takes its rows along. `monitors.group_name` is the
 * monitor's group (NULL: none).
 */
export const sql = `
CREATE TABLE tags (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL UNIQUE,
  color TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE monitor_tags (
  monitor_id INTEGER NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  value TEXT NOT NULL DEFAULT '',
  position INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (monitor_id, tag_id, value)
);
CREATE INDEX monitor_tags_tag ON monitor_tags(tag_id);
ALTER TABLE monitors ADD COLUMN group_name TEXT;
`;
