/**
 * Protocols as plugins (issue 17): a protocol's own settings move into one JSON column beside the
 * common fields, keyed by their API field names. Every existing monitor is http, port or icmp, all
 * of which take API.md's fields, so each row's six HTTP columns become its settings object as they
 * are (no row lost, no value changed); then the columns go. `degraded` remembers that the last
 * check passed slower than its threshold (shown on status pages as "Degraded performance"), and
 * `tls_alerted_days` the smallest certificate-expiry threshold already alerted (once per threshold).
 */
export const sql = `
ALTER TABLE monitors ADD COLUMN settings TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings));
UPDATE monitors SET settings = json_object(
  'http_method', http_method,
  'expected_status_code', expected_status_code,
  'required_keyword', required_keyword,
  'follow_redirects', json(CASE follow_redirects WHEN 1 THEN 'true' ELSE 'false' END),
  'request_body', request_body,
  'request_headers', json(request_headers)
);
ALTER TABLE monitors DROP COLUMN http_method;
ALTER TABLE monitors DROP COLUMN expected_status_code;
ALTER TABLE monitors DROP COLUMN required_keyword;
ALTER TABLE monitors DROP COLUMN follow_redirects;
ALTER TABLE monitors DROP COLUMN request_body;
ALTER TABLE monitors DROP COLUMN request_headers;
ALTER TABLE monitors ADD COLUMN degraded INTEGER NOT NULL DEFAULT 0;
ALTER TABLE monitors ADD COLUMN tls_alerted_days INTEGER;
`;
