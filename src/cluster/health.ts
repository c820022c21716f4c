import type { Store } from '../store/index.ts';
import type { Cluster } from './types.ts';

/**
 * What `/healthz` answers (issue 31), computed from memory only — no store round trip, so it answers in
 * milliseconds whatever the database does. `unavailable` (503): this instance cannot serve (database
 * unreachable or its store worker down, or its cluster connection down); `degraded` (200): it serves,
 * but leadership is not as it should be (lease not renewed in time, no leader, database slow); `ok` (200).
 * `leader` is true only while the lease is valid by this instance's monotonic clock.
 */
export function clusterHealth(cluster: Cluster, store: Pick<Store, 'available'>): { status: 'ok' | 'degraded' | 'unavailable'; instance: string; leader: boolean; reasons: string[] } {
  const down: string[] = [];
  if (!store.available()) down.push('database unreachable (or the store worker is down)');
  if (!cluster.connected) down.push('cluster connection down');
  const problems = down.length > 0 ? [] : cluster.problems();
  return {
    status: down.length > 0 ? 'unavailable' : problems.length > 0 ? 'degraded' : 'ok',
    instance: cluster.instanceId,
    leader: cluster.isLeader,
    reasons: [...down, ...problems],
  };
}
