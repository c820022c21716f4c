import { AppError } from '../../lib/errors.ts';
import { sql as init } from './0001_init.ts';
import { sql as healthchecks } from './0002_healthchecks.ts';
import { sql as alerting } from './0003_alerting.ts';
import { sql as maintenance } from './0004_maintenance.ts';
import { sql as incidents } from './0005_incidents.ts';
import { sql as statuspages } from './0006_statuspages.ts';
import { sql as pages } from './0007_pages.ts';
import { sql as probes } from './0008_probes.ts';
import { sql as ssoConnections } from './0009_sso_connections.ts';
import { sql as channels } from './0010_channels.ts';
import { sql as clients } from './0011_clients.ts';
import { sql as subscriberLimits } from './0012_subscriber_limits.ts';
import { sql as console } from './0013_console.ts';
import { sql as protocolSettings } from './0014_protocol_settings.ts';
import { sql as consoleSso } from './0015_console_sso.ts';
import { sql as resultsHourly, run as moveResultsHourly } from './0016_results_hourly_tables.ts';
import { sql as clusterInstances } from './0017_cluster_instances.ts';
import { sql as signinHardening } from './0018_signin_hardening.ts';
import { sql as probeTokenRegions } from './0019_probe_token_regions.ts';
import { sql as subscriberProof } from './0020_subscriber_proof.ts';
import { sql as leaderLease } from './0021_leader_lease.ts';
import { sql as integrations } from './0022_integrations.ts';
import { sql as monitorBadges } from './0023_monitor_badges.ts';
import { sql as tagsGroups } from './0024_tags_groups.ts';
import { sql as maintenanceRecurrence } from './0025_maintenance_recurrence.ts';
import { sql as onCall } from './0026_on_call.ts';
import { sql as idsNeverRepeat, run as rebuildWithAutoincrement } from './0027_ids_never_repeat.ts';
import { sql as people } from './0028_people.ts';
import { sql as onCallHandoffs } from './0029_on_call_handoffs.ts';
import { sql as monitorDependencies } from './0030_monitor_dependencies.ts';
import { sql as domainExpiry } from './0031_domain_expiry.ts';
import { sql as pageRequests } from './0032_page_requests.ts';
import type { Db } from '../db.ts';

/** One numbered, named schema change (house rule 6). `version` is stored in `PRAGMA user_version`. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** A data step after `sql`, in the same transaction (for what SQL alone cannot say, e.g. tables named by data). */
  run?: (db: Db) => void;
  /**
   * SQLite: foreign keys off while it runs (a table rebuild: DROP TABLE would cascade), then
   * `PRAGMA foreign_key_check` before its commit (a violation rolls it back). PostgreSQL ignores it.
   */
  foreignKeysOff?: boolean;
}

/** Every migration, in order. Append only: never edit a released one. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'init', sql: init },
  { version: 2, name: 'healthchecks', sql: healthchecks },
  { version: 3, name: 'alerting', sql: alerting },
  { version: 4, name: 'maintenance', sql: maintenance },
  { version: 5, name: 'incidents', sql: incidents },
  { version: 6, name: 'statuspages', sql: statuspages },
  { version: 7, name: 'pages', sql: pages },
  { version: 8, name: 'probes', sql: probes },
  { version: 9, name: 'sso_connections', sql: ssoConnections },
  { version: 10, name: 'channels', sql: channels },
  { version: 11, name: 'clients', sql: clients },
  { version: 12, name: 'subscriber_limits', sql: subscriberLimits },
  { version: 13, name: 'console', sql: console },
  { version: 14, name: 'protocol_settings', sql: protocolSettings },
  { version: 15, name: 'console_sso', sql: consoleSso },
  { version: 16, name: 'results_hourly_tables', sql: resultsHourly, run: moveResultsHourly },
  { version: 17, name: 'cluster_instances', sql: clusterInstances },
  { version: 18, name: 'signin_hardening', sql: signinHardening },
  { version: 19, name: 'probe_token_regions', sql: probeTokenRegions },
  { version: 20, name: 'subscriber_proof', sql: subscriberProof },
  { version: 21, name: 'leader_lease', sql: leaderLease },
  { version: 22, name: 'integrations', sql: integrations },
  { version: 23, name: 'monitor_badges', sql: monitorBadges },
  { version: 24, name: 'tags_groups', sql: tagsGroups },
  { version: 25, name: 'maintenance_recurrence', sql: maintenanceRecurrence },
  { version: 26, name: 'on_call', sql: onCall },
  { version: 27, name: 'ids_never_repeat', sql: idsNeverRepeat, run: rebuildWithAutoincrement, foreignKeysOff: true },
  { version: 28, name: 'people', sql: people },
  { version: 29, name: 'on_call_handoffs', sql: onCallHandoffs },
  { version: 30, name: 'monitor_dependencies', sql: monitorDependencies },
  { version: 31, name: 'domain_expiry', sql: domainExpiry },
  { version: 32, name: 'page_requests', sql: pageRequests },
];

/**
 * The migrations above `current`, in order (both dialects number them alike).
 * @throws AppError `store.newer_schema` when `current` is above the last of `migrations`: a database
 *   written by a newer Pharos (downgrade refused)
 */
export function pendingMigrations(current: number, migrations: readonly Migration[]): Migration[] {
  const latest = migrations.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new AppError(500, 'store.newer_schema', `database schema version ${current} is newer than this Pharos knows (${latest}); refusing to downgrade`);
  }
  return migrations.filter((m) => m.version > current);
}

/** What opening a database migrated (issue 37 point 4: said in one log line at start). */
export interface MigrationReport {
  /** The schema version found (0: a new database). */
  from: number;
  /** The schema version now. */
  to: number;
  /** The versions applied, each in its own transaction. */
  applied: number[];
  /** The copy of the database taken before them (SQLite), or null (a new database; PostgreSQL: pg_dump). */
  copy: string | null;
}

/**
 * The error of migration `m` failing (a step rolled back alone): which one, why, and that the
 * database stays whole at `previous`.
 */
export function migrationFailed(m: Migration, previous: number, e: unknown): AppError {
  return new AppError(500, 'store.migration_failed', `migration ${m.version} ${m.name} failed: ${(e as Error).message}; the database stays at schema version ${previous} (each migration is its own transaction)`);
}
