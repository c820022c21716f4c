import { LeaseLostError, type ClusterInstance } from '../domain/cluster.ts';
import type { Db } from './db.ts';

interface InstanceRow {
  id: string;
  address: string;
  version: string;
  started_at: number;
  last_seen_at: number;
  leader: number;
}

const toInstance = (r: InstanceRow): ClusterInstance => ({
  id: r.id,
  address: r.address,
  version: r.version,
  startedAt: r.started_at,
  lastSeenAt: r.last_seen_at,
  leader: r.leader === 1,
});

/**
 * The `pharos serve` instances of this database (`cluster_instances`, issue 22). With SQLite only one
 * process uses the data dir, so `register` replaces every older row: the listing is this process.
 */
export function clusterStore(db: Db) {
  const cols = 'id, address, version, started_at, last_seen_at, leader';
  const clear = db.prepare('DELETE FROM cluster_instances');
  const insert = db.prepare(`INSERT INTO cluster_instances(${cols}) VALUES (?, ?, ?, ?, ?, ?)`);
  const seen = db.prepare<[number], InstanceRow>(`SELECT ${cols} FROM cluster_instances WHERE last_seen_at >= ? ORDER BY leader DESC, started_at, id`);
  // FOR SHARE: a take-over's UPDATE of the row waits until the write that checked it has committed, so
  // the new leader reads the old one's last writes (issue 31). SQLite: one instance, nothing to check.
  const fence = db.dialect === 'postgres' ? db.prepare<[number], { epoch: number }>('SELECT epoch FROM leader_lease WHERE id = 1 AND epoch = ? FOR SHARE') : null;
  return {
    /** Makes `i` the only instance (one transaction: older rows are earlier runs of this data dir). */
    register: (i: ClusterInstance): void =>
      db.tx(() => {
        clear.run();
        insert.run(i.id, i.address, i.version, i.startedAt, i.lastSeenAt, i.leader ? 1 : 0);
      }),
    /** Instances whose last heartbeat is at or after `since` (epoch ms), leader first, then by start. */
    list: (since: number): ClusterInstance[] => seen.all(since).map(toInstance),
    /**
     * Fencing (issue 31): run first inside a leader's write transaction. On PostgreSQL one statement
     * (the lease row, locked FOR SHARE until the commit); on SQLite none (one instance always leads).
     * @throws LeaseLostError when another instance took the lease over (its epoch is no longer `epoch`)
     */
    assertFence(epoch: number): void {
      if (fence && fence.get(epoch) === undefined) throw new LeaseLostError(epoch);
    },
  };
}

/** The cluster store's interface. */
export type ClusterStore = ReturnType<typeof clusterStore>;
