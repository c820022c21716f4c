/**
 * PostgreSQL twin of migrations/0017_cluster_instances.ts (issue 22, high availability): the
 * `pharos serve` instances of this database, written by each instance's cluster connection
 * (src/cluster/postgres.ts: heartbeat every 2 s, `leader` set by whoever holds the advisory lock).
 * Same columns and types as SQLite's (times epoch ms, `leader` 0 or 1).
 */
export const sql = `
CREATE TABLE cluster_instances (
  id TEXT PRIMARY KEY,
  address TEXT NOT NULL,
  version TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  last_seen_at BIGINT NOT NULL,
  leader INTEGER NOT NULL DEFAULT 0 CHECK (leader IN (0, 1))
);
`;
