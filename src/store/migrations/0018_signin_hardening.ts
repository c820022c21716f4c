/**
 * Sign-in hardening: the last accepted TOTP step per user, setup-link expiry (issue 30). Placeholder: filled in by the change that needs it.
 */
export const sql = ``;
