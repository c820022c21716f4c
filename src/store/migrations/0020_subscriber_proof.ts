/**
 * Subscriber proof step and send caps (issue 30 point 3). `subscriber_send_counts`: texts and
 * confirmation mails per key (`sms:h` all texts of a clock hour, `sms:d` of a UTC day,
 * `sms-prefix:<digits>:h|d` codes to one number block, `mail:<hash>:h|d` confirmation mails to one
 * mailbox) and window start (epoch ms); one row per key and window, counted by an atomic upsert so
 * concurrent requests and instances cannot both take the last one. `sms_code_pending`: a number that
 * was texted a code not typed back yet (since when, epoch ms): it gets no other text until then.
 */
export const sql = `
CREATE TABLE subscriber_send_counts (
  key TEXT NOT NULL,
  window_start INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (key, window_start)
);
CREATE INDEX subscriber_send_counts_window ON subscriber_send_counts(window_start);
CREATE TABLE sms_code_pending (
  number TEXT PRIMARY KEY,
  since INTEGER NOT NULL
);
`;
