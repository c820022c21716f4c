/**
 * Durable page requests (issue 34 point 3): one row per escalation send whose step targets people
 * (users, schedules), written in the send's own transaction, so the step's people are paged at least
 * once even when the leader stops between that commit and the pages. `send_number` is the outage's send
 * number (its `alerted_steps` after the send: enough to find the step again); `claimed_at` is set by
 * the instance paging it (a claim older than 5 minutes is taken again), `done_at` once paged or
 * found moot (the outage acknowledged, resolved or deleted). Times are epoch ms.
 */
export const sql = `
CREATE TABLE page_requests (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  outage_uuid TEXT NOT NULL,
  send_number INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  claimed_at INTEGER,
  done_at INTEGER,
  UNIQUE (outage_uuid, send_number)
);
CREATE INDEX page_requests_open ON page_requests(created_at) WHERE done_at IS NULL;
`;
