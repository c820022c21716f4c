import type { Store } from '../store/index.ts';
import type { Cluster } from './types.ts';

/**
 * What `/healthz` answers (issue 31), computed from memory only — no store round trip, so it answers in
 * milliseconds whatever the database does. `unavailable` (503): this instance cannot serve (database
 * unreachable or its store worker down, or its cluster connection down); `degraded` (200): it serves,
 * but leadership is not as it should be (lease not renewed in time, no leader, database slow); `ok` (200).
 * `leader` is true only while the lease is valid by this instance's monotonic clock; `database` and
 * `keepsChecks` are what the other instances ask during a database outage (issue 31 point 5).
 */
export function clusterHealth(
  cluster: Cluster,
  store: Pick<Store, 'available'>,
): { status: 'ok' | 'degraded' | 'unavailable'; instance: string; leader: boolean; reasons: string[]; database: 'reachable' | 'unreachable'; keepsChecks: boolean } {
  const down: string[] = [];
  if (!store.available()) down.push('database unreachable (or the store worker is down)');
  if (!cluster.connected) down.push('cluster connection down');
  // The last leader through a database outage (issue 31 point 5): what it does meanwhile.
  if (cluster.keepsChecks) {
    down.push(
      cluster.outageConfirmed
        ? 'database outage: this instance (the last leader) keeps checking, keeps results in memory and its outage journal, and sends alerts straight to their channels'
        : 'database unreachable: this instance (the last leader) keeps checking while it asks the other instances whether they reach the database',
    );
  }
  const problems = down.length > 0 ? [] : cluster.problems();
  return {
    status: down.length > 0 ? 'unavailable' : problems.length > 0 ? 'degraded' : 'ok',
    instance: cluster.instanceId,
    leader: cluster.isLeader,
    reasons: [...down, ...problems],
    // Peers ask this during an outage (cluster/outage-watch.ts): the store and the cluster connection both work.
    database: store.available() && cluster.connected ? 'reachable' : 'unreachable',
    keepsChecks: cluster.keepsChecks,
  };
}
