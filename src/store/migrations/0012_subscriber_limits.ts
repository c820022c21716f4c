/**
 * Subscription abuse limits (issue #14, point 2): when the last confirmation mail went to a
 * pending subscriber (one per address, page and day), and an index for counting a page's
 * confirmations pending since a time (the per-page subscriber cap).
 */
export const sql = `
ALTER TABLE subscribers ADD COLUMN confirm_sent_at INTEGER;
UPDATE subscribers SET confirm_sent_at = created_at WHERE confirmed_at IS NULL;
CREATE INDEX subscribers_pending ON subscribers(statuspage_id, confirm_sent_at) WHERE confirmed_at IS NULL;
`;
