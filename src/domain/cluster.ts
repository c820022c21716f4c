import { AppError } from '../lib/errors.ts';
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
  /** Tags of these monitors changed (a bulk add, a tag renamed, recoloured or deleted): console rows to redraw. */
  | { kind: 'monitor.tagged'; uuids: string[] }
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

/**
 * A leader write was refused because another instance took the lease over (issue 31, fencing): the
 * lease's epoch is no longer `epoch`. Whoever catches it stops its leader work; a request that meets it
 * answers 503.
 */
export class LeaseLostError extends AppError {
  readonly epoch: number;
  /** @param epoch the fencing number the refused write carried */
  constructor(epoch: number) {
    super(503, 'cluster.lease_lost', `this instance no longer leads: another instance took the lease over (fencing number ${epoch} is stale)`);
    this.name = 'LeaseLostError';
    this.epoch = epoch;
  }
}

/**
 * What leader writes carry (issue 31): the fencing number of the lease this instance holds or last held,
 * and the leader's own check of its lease by its monotonic clock. Built by the cluster; handed to the
 * checks service, the escalation stepper and the alert dispatcher.
 */
export interface LeaderFence {
  /** The fencing number leader writes carry; null when there is none to check (SQLite: one instance; never led). */
  epoch(): number | null;
  /**
   * True while this instance leads and its lease is still valid by its monotonic clock. Cheap (no I/O);
   * when the lease ran out unrenewed it ends leadership at once (listeners hear `false`) and answers false.
   */
  valid(): boolean;
  /** A fenced write was refused (a newer leader exists): ends leadership at once. */
  lost(epoch: number): void;
}
