import { AppError } from '../../lib/errors.ts';
import type { Db } from '../driver.ts';
import { migrationFailed, pendingMigrations, type Migration, type MigrationReport } from '../migrations/index.ts';
import { sql as baseline } from './0015_baseline.ts';
import { sql as resultsHourly, run as moveResultsHourly } from './0016_results_hourly.ts';
import { sql as clusterInstances } from './0017_cluster_instances.ts';
import { sql as signinHardening } from './0018_signin_hardening.ts';
import { sql as probeTokenRegions } from './0019_probe_token_regions.ts';
import { sql as subscriberProof } from './0020_subscriber_proof.ts';
import { sql as leaderLease } from './0021_leader_lease.ts';
import { sql as integrations } from './0022_integrations.ts';
import { sql as monitorBadges } from './0023_monitor_badges.ts';
import { sql as tagsGroups } from './0024_tags_groups.ts';
import { sql as maintenanceRecurrence } from './0025_maintenance_recurrence.ts';
import { sql as idsNeverRepeat } from './0027_ids_never_repeat.ts';
import { sql as people } from './0028_people.ts';
import { sql as onCallHandoffs } from './0029_on_call_handoffs.ts';
import { sql as monitorDependencies } from './0030_monitor_dependencies.ts';
import { sql as domainExpiry } from './0031_domain_expiry.ts';
import { sql as pageRequests } from './0032_page_requests.ts';
import { sql as onCall } from './0026_on_call.ts';

/**
 * PostgreSQL migrations, numbered like the SQLite ones (src/store/migrations/) so one version means
 * one schema on both: version 15 is the whole SQLite schema at 0015 in one step; every later SQLite
 * migration gets its PostgreSQL twin here with the same number (append only, never edit a released one).
 */
export const PG_MIGRATIONS: readonly Migration[] = [
  { version: 15, name: 'baseline', sql: baseline },
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
  { version: 27, name: 'ids_never_repeat', sql: idsNeverRepeat },
  { version: 28, name: 'people', sql: people },
  { version: 29, name: 'on_call_handoffs', sql: onCallHandoffs },
  { version: 30, name: 'monitor_dependencies', sql: monitorDependencies },
  { version: 31, name: 'domain_expiry', sql: domainExpiry },
  { version: 32, name: 'page_requests', sql: pageRequests },
];

/** Any 64-bit key, held for the migration transaction so instances starting together migrate one at a time. */
const MIGRATION_LOCK = 7_242_001;

/**
 * Applies every migration above the stored version (table `pharos_schema`), each step in its own
 * transaction together with its version bump (PostgreSQL runs DDL in transactions: a step that fails
 * leaves the schema and the version at the previous step, whole). Each transaction holds an advisory
 * lock and reads the version again, so instances starting together migrate one step at a time and
 * never apply a step twice. No copy is taken first (as SQLite's pre-upgrade copy): take a pg_dump
 * before upgrading (docs/operations.md "Upgrading").
 * @param onMigrated told what was migrated when any migration ran (`copy` null)
 * @returns the versions applied
 * @throws AppError `store.newer_schema` when the database was written by a newer Pharos (the
 *   message says what to do); `store.migration_failed` naming a step that failed (rolled back alone)
 */
export function migratePostgres(db: Db, migrations: readonly Migration[] = PG_MIGRATIONS, onMigrated?: (r: MigrationReport) => void): number[] {
  const applied: number[] = [];
  let from: number | null = null;
  for (;;) {
    const step = db.tx(() => {
      db.prepare('SELECT pg_advisory_xact_lock(?)').get(MIGRATION_LOCK);
      db.exec('CREATE TABLE IF NOT EXISTS pharos_schema (version BIGINT NOT NULL)');
      const row = db.prepare<[], { version: number }>('SELECT version FROM pharos_schema').get();
      const current = row?.version ?? 0;
      const latest = migrations.at(-1)?.version ?? 0;
      if (current > latest) {
        throw new AppError(500, 'store.newer_schema', `PostgreSQL database: schema version ${current} is newer than this Pharos knows (up to ${latest}): a newer Pharos wrote it; refusing to downgrade it. Run the newer Pharos, or restore the pg_dump taken before the upgrade (docs/operations.md "Upgrading")`);
      }
      from ??= current;
      const m = pendingMigrations(current, migrations)[0];
      if (!m) return null;
      try {
        db.exec(m.sql);
        m.run?.(db);
        if (row) db.prepare('UPDATE pharos_schema SET version = ?').run(m.version);
        else db.prepare('INSERT INTO pharos_schema(version) VALUES (?)').run(m.version);
      } catch (e) {
        // Lost connections and timeouts stay what they are (store.unavailable); anything else names the step.
        throw e instanceof AppError ? e : migrationFailed(m, current, e);
      }
      return m.version;
    });
    if (step === null) {
      if (applied.length > 0) onMigrated?.({ from: from ?? 0, to: applied.at(-1)!, applied, copy: null });
      return applied;
    }
    applied.push(step);
  }
}

/** The stored schema version (0 for an empty database). */
export function postgresSchemaVersion(db: Db): number {
  const exists = db.prepare<[], { t: string | null }>("SELECT to_regclass('pharos_schema') AS t").get();
  if (!exists?.t) return 0;
  return db.prepare<[], { version: number }>('SELECT version FROM pharos_schema').get()?.version ?? 0;
}
