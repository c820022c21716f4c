import type { ClusterChange, ClusterView, LeaderFence } from '../domain/cluster.ts';

/**
 * Who leads (issue 22): exactly one instance of a database runs the scheduler, the healthcheck
 * deadlines, the maintenance timers, the escalation stepper and the alert dispatcher.
 */
export interface Leadership {
  /** True while this instance leads: it holds the lease and, by its monotonic clock, the lease has not run out unrenewed. */
  readonly isLeader: boolean;
  /**
   * Fencing (issue 31): the lease's epoch that leader writes carry, and the cheap check of the lease
   * before each leader action (a timer that fires after the process was frozen must not act).
   */
  readonly fence: LeaderFence;
  /**
   * True when no other instance was alive at the last heartbeat (always with SQLite). A leader that
   * loses its database connection while alone keeps its checks going (results wait in the store's
   * write buffer): nobody else can take over, since another instance would have to reach the database
   * to start. With other instances alive it keeps them only while they confirm a database outage
   * ({@link keepsChecks}), else stops everything so that a new leader never overlaps it.
   */
  readonly alone: boolean;
  /**
   * True while this instance, no longer leading because it lost the database (while alone, or with its
   * lease still valid by its own clock), keeps its checks going (issue 31 point 5): with other instances
   * alive only while they report that they cannot reach the database either (asked over HTTP at once and
   * every renewal period; the first sign of a partition stops the checks: {@link onChecksReleased}).
   * Always false with one instance on SQLite.
   */
  readonly keepsChecks: boolean;
  /**
   * True while {@link keepsChecks} and the outage is confirmed (alone, or every peer answered that the
   * database is unreachable): alerts for state changes decided now go straight to their channels.
   */
  readonly outageConfirmed: boolean;
  /**
   * Calls `fn(true)` when this instance becomes the leader and `fn(false)` the moment it stops
   * being one (connection lost, lease not renewed in time, a fenced write refused, stop), and `fn(false)`
   * again when an instance that lost it while alone (its checks kept) finds another one leading. Listeners run
   * synchronously, in order; a throwing listener is logged and does not stop the others. Returns the
   * unsubscribe function.
   */
  onLeadership(fn: (leader: boolean) => void): () => void;
  /**
   * Calls `fn` when checks kept going without leadership ({@link keepsChecks}) must stop: another instance
   * leads now, or a peer may reach the database (a partition, not an outage). Returns the unsubscribe function.
   */
  onChecksReleased(fn: () => void): () => void;
}

/** This instance's identity in the cluster (times epoch ms). */
export interface InstanceInfo {
  id: string;
  address: string;
  version: string;
  startedAt: number;
}

/**
 * The cluster as one instance sees it: leadership, the instances listing, and change messages
 * between instances (a change made here that the others must follow: they re-read it from the store).
 */
export interface Cluster extends Leadership {
  readonly mode: ClusterView['mode'];
  readonly instanceId: string;
  /**
   * False while this instance cannot reach the cluster's database (PostgreSQL: its cluster connection
   * is down or not made yet); `/healthz` then answers 503 so a load balancer sends requests elsewhere.
   * Always true with one instance.
   */
  readonly connected: boolean;
  /**
   * Tells the other instances about a committed change (PostgreSQL NOTIFY; nothing with one instance).
   * Never throws and never blocks: changes are batched per event-loop turn; while the connection is
   * down they are dropped (the leader rebuilds its timers from the store when it gains leadership,
   * and a deadline re-reads the store before it flips anything).
   */
  publish(change: ClusterChange): void;
  /**
   * The leader's base URL (`http://host:port`, from its `address`) when another instance leads, else
   * null (this instance leads, there is one instance, or no leader is known right now). Refreshed
   * at every heartbeat. Followers forward agents' requests there.
   */
  leaderUrl(): string | null;
  /**
   * What `/healthz` says about the cluster, from memory (no I/O): problems in words, empty when none
   * (e.g. `lease not renewed for 6.1 s`, `no leader: the lease is free or expired`, `database slow: last
   * heartbeat 7.0 s ago`). Always empty with one instance.
   */
  problems(): string[];
  /** Calls `fn` for each change another instance published. Returns the unsubscribe function. */
  onChange(fn: (change: ClusterChange) => void): () => void;
  /**
   * The listing for `GET /v1/cluster`.
   * @throws AppError 503 `cluster.unavailable` when the database cannot be asked now
   */
  view(): Promise<ClusterView>;
  /** Registers this instance and starts trying to lead (single: leads at once). */
  start(): Promise<void>;
  /** Stops heartbeats, gives leadership up (listeners hear `false`) and closes connections. */
  stop(): Promise<void>;
}

/** Calls each listener; one that throws is reported through `onError` and the others still run. */
export function callAll<T>(listeners: Iterable<(v: T) => void>, value: T, onError: (e: unknown) => void): void {
  for (const fn of [...listeners]) {
    try {
      fn(value);
    } catch (e) {
      onError(e);
    }
  }
}
