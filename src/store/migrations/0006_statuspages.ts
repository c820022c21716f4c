/** Status pages (settings and sections as JSON; the password only as an scrypt hash). */
export const sql = `
CREATE TABLE statuspages (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  subdomain TEXT NOT NULL UNIQUE,
  hostname TEXT UNIQUE,
  settings TEXT NOT NULL,
  sections TEXT NOT NULL,
  password_hash TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
`;
