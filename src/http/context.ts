import type { Core } from '../core/index.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Principal } from '../domain/user.ts';
import type { ClusterView } from '../domain/cluster.ts';
import type { BackupStatus } from '../domain/backup.ts';

/** Hono environment: the authenticated principal is set by the auth middleware on API routes. */
export interface AppEnv {
  Variables: { principal: Principal };
}

/** The narrow dependencies of the HTTP layer (house rule 5: no singletons). */
export interface HttpDeps {
  core: Core;
  clock: Clock;
  logger: Logger;
  /** Prometheus text exposition of the process's metrics. */
  metricsText: () => Promise<string>;
  metricsContentType: string;
  version: string;
  /**
   * Sends a test message straight through the configured channel `name` (the console's "send test
   * alert"; not through the outbox: the person waits for the answer).
   * @returns null when delivered, else why not (unknown channel, the channel's error)
   */
  testAlert?: (name: string, by: string) => Promise<string | null>;
  /**
   * The instances sharing this database and the leader (`GET /v1/cluster`, issue 22).
   * @throws AppError 503 `cluster.unavailable` when the database cannot be asked
   */
  cluster?: () => Promise<ClusterView>;
  /**
   * For `/healthz`, from memory (never a store round trip, issue 31): `unavailable` (503, a load balancer
   * sends requests elsewhere) while this instance cannot serve (database unreachable, store worker down,
   * cluster connection down); `degraded` (200, it serves) while leadership is not as it should be (lease
   * not renewed in time, no leader, database slow), with the reasons in words; whether it leads (its
   * lease valid by its monotonic clock).
   * `database`: whether this instance reaches the database now; `keepsChecks`: it no longer leads but
   * keeps its checks going through a database outage (issue 31 point 5); other instances ask both.
   */
  health?: () => { status: 'ok' | 'degraded' | 'unavailable'; instance: string; leader: boolean; reasons: string[]; database?: 'reachable' | 'unreachable'; keepsChecks?: boolean };
  /** The leader's base URL when another instance leads (agent routes are forwarded there), else null. */
  leaderUrl?: () => string | null;
  /** Scheduled backups for the console's Settings (issue 37; src/backup-schedule.ts). */
  backups?: () => BackupStatus;
}
