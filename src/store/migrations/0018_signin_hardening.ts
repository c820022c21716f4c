/**
 * Sign-in hardening (issue 30): the last TOTP time step accepted per user (a code works once, even
 * within its 30 s step), and the addresses each person signed in from with epoch ms of the last
 * time: a sign-in from such an address is not refused for failures of strangers elsewhere
 * (src/core/sign-in-throttle.ts). The setup link's expiry needs nothing new: `setup_tokens.created_at`.
 */
export const sql = `
ALTER TABLE users ADD COLUMN totp_last_step INTEGER;

CREATE TABLE console_sign_ins (
  user_uuid TEXT NOT NULL REFERENCES users(uuid) ON DELETE CASCADE,
  address TEXT NOT NULL,
  last_at INTEGER NOT NULL,
  PRIMARY KEY (user_uuid, address)
) WITHOUT ROWID;
CREATE INDEX console_sign_ins_last ON console_sign_ins(last_at);
`;
