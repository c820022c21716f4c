/**
 * PostgreSQL twin of migrations/0021_leader_lease.ts (issue 31): the leader's lease. `expires_at` is
 * the database's own clock (`now()` of the statement that took or renewed the lease, plus the lease
 * time), so instances never compare their own clocks. Written only by src/cluster/postgres.ts (take-over
 * `UPDATE … WHERE expires_at < now() … RETURNING epoch`, renewal, release); read by every fenced leader
 * write (`SELECT … WHERE epoch = $1 FOR SHARE`, store/cluster.ts), which a take-over's UPDATE waits for.
 */
export const sql = `
CREATE TABLE leader_lease (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  holder TEXT,
  holder_pid INTEGER,
  epoch BIGINT NOT NULL DEFAULT 0,
  expires_at TIMESTAMPTZ NOT NULL DEFAULT '-infinity'
);
INSERT INTO leader_lease(id, holder, epoch, expires_at) VALUES (1, NULL, 0, '-infinity');
`;
