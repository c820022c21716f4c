/**
 * PostgreSQL twin of migrations/0018_signin_hardening.ts (issue 30): the last accepted TOTP step per
 * user, and the addresses each person signed in from (epoch ms of the last time).
 */
export const sql = `
ALTER TABLE users ADD COLUMN totp_last_step BIGINT;

CREATE TABLE console_sign_ins (
  user_uuid TEXT NOT NULL REFERENCES users(uuid) ON DELETE CASCADE,
  address TEXT NOT NULL,
  last_at BIGINT NOT NULL,
  PRIMARY KEY (user_uuid, address)
);
CREATE INDEX console_sign_ins_last ON console_sign_ins(last_at);
`;
