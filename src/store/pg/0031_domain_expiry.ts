/** PostgreSQL twin of migrations/0031_domain_expiry.ts (issue 36): a monitor's domain expiration (epoch ms) and the threshold alerted. */
export const sql = `
ALTER TABLE monitors ADD COLUMN domain_expires_at BIGINT;
ALTER TABLE monitors ADD COLUMN domain_alerted_days INTEGER;
`;
