/**
 * Monitor dependencies (issue 36, after Nagios' host parents and Uptime Kuma's issue #1089): a row says
 * monitor `monitor_id` depends on monitor `depends_on_id`; while that one is down, alerts for the
 * dependent monitor are held (core/escalation.ts `dependencyHolds`). Either monitor deleted takes the row along.
 */
export const sql = `
CREATE TABLE monitor_dependencies (
  monitor_id INTEGER NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  depends_on_id INTEGER NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  position INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (monitor_id, depends_on_id)
);
CREATE INDEX monitor_dependencies_parent ON monitor_dependencies(depends_on_id);
`;
