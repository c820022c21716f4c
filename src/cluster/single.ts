import type { Clock } from '../lib/clock.ts';
import type { ClusterView } from '../domain/cluster.ts';
import type { Store } from '../store/index.ts';
import type { Cluster, InstanceInfo } from './types.ts';

/**
 * One instance on SQLite: always the leader (only one process may use a data dir). Registers itself
 * in `cluster_instances` (replacing earlier runs) so `GET /v1/cluster` reads the same on both drivers.
 * Changes have nobody to go to: `publish` does nothing. No heartbeat timer: the instance that answers
 * is alive, so its `lastSeenAt` is the time of the answer (the stored one is the start; a timer would
 * also cost manual-clock tests that jump months a wake-up per beat).
 */
export function singleCluster(deps: { store: Store['cluster']; clock: Clock; instance: InstanceInfo }): Cluster {
  const { store, clock, instance } = deps;
  let running = false;
  return {
    mode: 'single',
    instanceId: instance.id,
    connected: true,
    alone: true,
    // SQLite is local: no outage to keep checks through (a failing disk keeps results in memory).
    keepsChecks: false,
    outageConfirmed: false,
    get isLeader() {
      return running;
    },
    // Nothing to fence: only one process may use a data dir (no statement per write on SQLite).
    fence: { epoch: () => null, valid: () => running, lost: () => {} },
    problems: () => [],
    // Leadership never changes while running: start() and stop() bracket it, and the leader work is
    // started and stopped by pharos.ts around them.
    onLeadership: () => () => {},
    onChecksReleased: () => () => {},
    publish() {},
    leaderUrl: () => null,
    onChange: () => () => {},
    async view(): Promise<ClusterView> {
      const now = clock.now();
      // The table holds this process only (register replaced earlier runs): no age filter.
      const instances = store.list(0).map((i) => (i.id === instance.id ? { ...i, lastSeenAt: now } : i));
      return { mode: 'single', self: instance.id, leader: instance.id, instances };
    },
    async start() {
      const now = clock.now();
      store.register({ ...instance, lastSeenAt: now, leader: true });
      running = true;
    },
    async stop() {
      running = false;
    },
  };
}
