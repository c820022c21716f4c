import type { ClusterInstance } from '../domain/cluster.ts';

/**
 * The statements of the leader lease (issue 31) and of the instances listing, run on each instance's
 * cluster connection (src/cluster/postgres.ts). Times in `leader_lease` are the database's clock; the
 * lease time is passed in ms. `holder_pid` is the server process of the holder's cluster connection:
 * when that session is gone (the process was killed and its kernel closed the socket) a follower takes
 * over at once instead of waiting for the lease to run out.
 */
export const LEASE_SQL = {
  /** $1 id, $2 address, $3 version, $4 started_at, $5 now (epoch ms). */
  register: `INSERT INTO cluster_instances(id, address, version, started_at, last_seen_at, leader) VALUES ($1, $2, $3, $4, $5, 0)
    ON CONFLICT (id) DO UPDATE SET last_seen_at = EXCLUDED.last_seen_at`,
  /** The holder extends its own lease ($1 holder, $2 epoch, $3 lease ms); no row: another instance took it over. */
  renew: `UPDATE leader_lease SET expires_at = now() + $3 * interval '1 millisecond', holder_pid = pg_backend_pid()
    WHERE id = 1 AND holder = $1 AND epoch = $2 RETURNING epoch`,
  /**
   * A follower takes the lease when it is free, expired in the database's clock, or its holder's cluster
   * session is gone ($1 new holder, $2 lease ms). The epoch goes up by one: writes of the old leader are
   * refused from now on. Waits (up to lock_timeout) for a fenced write holding the row FOR SHARE.
   */
  takeOver: `UPDATE leader_lease SET holder = $1, holder_pid = pg_backend_pid(), epoch = epoch + 1, expires_at = now() + $2 * interval '1 millisecond'
    WHERE id = 1 AND (holder IS NULL OR expires_at < now() OR holder_pid IS NULL
      OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = leader_lease.holder_pid AND a.application_name = 'pharos ' || leader_lease.holder))
    RETURNING epoch`,
  /** The instances seen since $1 (epoch ms), for `GET /v1/cluster`. */
  listing: 'SELECT id, address, version, started_at, last_seen_at, leader FROM cluster_instances WHERE last_seen_at >= $1',
  /** A clean stop ends the lease now, keeping its epoch ($1 holder, $2 epoch). */
  release: `UPDATE leader_lease SET expires_at = '-infinity' WHERE id = 1 AND holder = $1 AND epoch = $2`,
  /**
   * Ends sessions idle inside a transaction for more than half a lease ($1 lease ms) that hold the lease
   * row FOR SHARE: the fenced write of a process frozen mid-transaction, which would block every take-over.
   */
  endStaleHolders: `SELECT a.pid, pg_terminate_backend(a.pid) AS ended FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
    WHERE l.locktype = 'relation' AND l.relation = 'leader_lease'::regclass AND l.mode = 'RowShareLock' AND l.granted
      AND a.pid <> pg_backend_pid() AND a.state IN ('idle in transaction', 'idle in transaction (aborted)')
      AND a.state_change < now() - $1 * interval '1 millisecond' / 2`,
} as const;

/** A row of {@link LEASE_SQL.listing} as `pg` returns it (int8 as strings). */
export interface InstanceRow {
  id: string;
  address: string;
  version: string;
  started_at: string;
  last_seen_at: string;
  leader: number;
}

/** A listing row as the domain's instance. */
export const instanceOf = (row: InstanceRow): ClusterInstance => ({
  id: row.id,
  address: row.address,
  version: row.version,
  startedAt: Number(row.started_at),
  lastSeenAt: Number(row.last_seen_at),
  leader: row.leader === 1,
});
