/**
 * Domain-expiry warnings (issue 36): the registrable domain's expiration read over RDAP
 * (src/domain-expiry.ts), epoch ms, and the smallest `domain_expiry_days` threshold already
 * alerted (null again once a renewal puts the date above every threshold), as `tls_alerted_days`
 * does for certificates.
 */
export const sql = `
ALTER TABLE monitors ADD COLUMN domain_expires_at INTEGER;
ALTER TABLE monitors ADD COLUMN domain_alerted_days INTEGER;
`;
