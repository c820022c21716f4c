import type { MaintenanceWindow } from './maintenance.ts';

/**
 * Several `pharos serve` on one database (issue 22, high availability): the instances and which one
 * leads. Only the leader runs the scheduler, the healthcheck deadlines, the maintenance timers, the
 * escalation stepper and the alert dispatcher; every instance serves the API, pings, pages and the console.
 */

/** One running `pharos serve` as the cluster sees it (all times epoch ms). */
export interface ClusterInstance {
  /** Random per process start (`ins_…`): a restarted process is a new instance. */
  id: string;
  /** Where it runs: `host:port` of its listener (the host's name when it listens on every address). */
  address: string;
  version: string;
  startedAt: number;
  /** Its last heartbeat (a live instance beats every few seconds). */
  lastSeenAt: number;
  leader: boolean;
}

/** `GET /v1/cluster`: the mode, this instance, the leader and the instances seen recently. */
export interface ClusterView {
  /** `single`: SQLite, one instance, always the leader; `postgres`: leadership by an advisory lock. */
  mode: 'single' | 'postgres';
  /** The instance that answered. */
  self: string;
  /** The leader's id, or null while none holds the lock (a fail-over in progress). */
  leader: string | null;
  /** Instances seen in the last {@link CLUSTER_FORGET_MS}, leader first, then by start. */
  instances: ClusterInstance[];
}

/** Instances silent this long are left out of the listing (and removed by the next starting instance), ms. */
export const CLUSTER_FORGET_MS = 10 * 60_000;

/**
 * A change one instance made that the others must follow (sent over PostgreSQL NOTIFY): the entity
 * is re-read from the store by the receivers. `kind` names the core event family.
 */
export type ClusterChange =
  | { kind: 'healthcheck'; uuid: string }
  | { kind: 'healthcheck.deleted'; id: number; uuid: string }
  | { kind: 'monitor'; uuid: string; created: boolean }
  | { kind: 'monitor.deleted'; id: number; uuid: string }
  | { kind: 'monitor.degraded'; id: number; degraded: boolean }
  | { kind: 'maintenance'; uuid: string }
  | { kind: 'maintenance.deleted'; window: MaintenanceWindow }
  | { kind: 'outage'; uuid: string; event: 'opened' | 'resolved' | 'acknowledged' | 'unacknowledged' | 'escalated' }
  | { kind: 'outage.deleted'; uuid: string; incidentNumber: number }
  /** Public status-page content changed (page render caches drop it). */
  | { kind: 'statuspage.content'; what: 'incident' | 'component' | 'statuspage'; uuid: string }
  /** Messages were queued in the outbox (the leader's dispatcher wakes). */
  | { kind: 'alerts'; count: number };

/** Orders a listing: leader first, then by start time. */
export function sortInstances(list: ClusterInstance[]): ClusterInstance[] {
  return [...list].sort((a, b) => Number(b.leader) - Number(a.leader) || a.startedAt - b.startedAt || a.id.localeCompare(b.id));
}
