/**
 * High availability (issue 22): the `pharos serve` instances of this database and which one leads,
 * for `GET /v1/cluster`. With SQLite there is one instance (always the leader); the table keeps the
 * listing the same on both drivers. Times are epoch ms; `leader` is 0 or 1.
 */
export const sql = `
CREATE TABLE cluster_instances (
  id TEXT PRIMARY KEY,
  address TEXT NOT NULL,
  version TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  leader INTEGER NOT NULL DEFAULT 0 CHECK (leader IN (0, 1))
) WITHOUT ROWID;
`;
