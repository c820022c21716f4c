/** PostgreSQL twin of migrations/0029_on_call_handoffs.ts (issue 34 point 2): the last hand-off notified per schedule. */
export const sql = `
CREATE TABLE on_call_handoff_notices (
  schedule_uuid TEXT PRIMARY KEY REFERENCES on_call_schedules(uuid) ON DELETE CASCADE,
  handoff_at BIGINT NOT NULL,
  user_uuid TEXT NOT NULL,
  notified_at BIGINT NOT NULL
);
`;
