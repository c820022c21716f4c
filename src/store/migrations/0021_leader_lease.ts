/**
 * Leadership as a lease with fencing (issue 31): one row (`id` 1) naming the instance that leads
 * (`holder`), the fencing number (`epoch`, +1 at every take-over; every leader write checks it) and
 * when the lease ends (`expires_at`). On PostgreSQL `expires_at` is in the database's clock
 * (timestamptz, see pg/0021_leader_lease.ts). With SQLite one instance always leads: the row exists
 * so both schemas have the same tables, and nothing reads it (no statement per write on SQLite).
 */
export const sql = `
CREATE TABLE leader_lease (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  holder TEXT,
  holder_pid INTEGER,
  epoch INTEGER NOT NULL DEFAULT 0,
  expires_at INTEGER NOT NULL DEFAULT 0
);
INSERT INTO leader_lease(id, holder, epoch, expires_at) VALUES (1, NULL, 0, 0);
`;
