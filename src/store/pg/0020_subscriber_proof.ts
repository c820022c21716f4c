/** PostgreSQL twin of migrations/0020_subscriber_proof.ts (issue 30 point 3): the send counts and the numbers waiting for their code. */
export const sql = `
CREATE TABLE subscriber_send_counts (
  key TEXT NOT NULL,
  window_start BIGINT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (key, window_start)
);
CREATE INDEX subscriber_send_counts_window ON subscriber_send_counts(window_start);
CREATE TABLE sms_code_pending (
  number TEXT PRIMARY KEY,
  since BIGINT NOT NULL
);
`;
