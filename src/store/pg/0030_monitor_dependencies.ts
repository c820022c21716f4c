/** PostgreSQL twin of migrations/0030_monitor_dependencies.ts (issue 36): which monitors a monitor depends on. */
export const sql = `
CREATE TABLE monitor_dependencies (
  monitor_id BIGINT NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  depends_on_id BIGINT NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  position INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (monitor_id, depends_on_id)
);
CREATE INDEX monitor_dependencies_parent ON monitor_dependencies(depends_on_id);
`;
