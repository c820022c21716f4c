/**
 * Hand-off notifications of on-call schedules (issue 34 point 2): per schedule, the last hand-off
 * (`handoff_at`, epoch ms) whose incoming person (`user_uuid`) was told "you are on call from …",
 * and when (`notified_at`). A hand-off is claimed here before it is sent, in one statement that only
 * moves `handoff_at` forward: one notice per hand-off across restarts and instances. Deleting the
 * schedule takes its row along.
 */
export const sql = `
CREATE TABLE on_call_handoff_notices (
  schedule_uuid TEXT PRIMARY KEY REFERENCES on_call_schedules(uuid) ON DELETE CASCADE,
  handoff_at INTEGER NOT NULL,
  user_uuid TEXT NOT NULL,
  notified_at INTEGER NOT NULL
);
`;
