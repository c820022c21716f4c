import type { HourRollup, Interval } from '../domain/report.ts';
import type { Db } from './db.ts';

/**
 * The reads behind public status pages. Every one is an index range read bounded by time (the
 * last 90 days of a service's outages, a day or a week of hourly rollups), so a page costs the same
 * with a week or with years of history.
 */
export function pageReadsStore(db: Db) {
  const monitorOutages = db.prepare<[number, number, number], { start_at: number; end_at: number | null }>(
    `SELECT start_at, end_at FROM outages INDEXED BY outages_monitor WHERE monitor_id = ? AND end_at > ?
     UNION ALL SELECT start_at, end_at FROM outages INDEXED BY outages_monitor WHERE monitor_id = ? AND end_at IS NULL`,
  );
  const healthcheckOutages = db.prepare<[number, number, number], { start_at: number; end_at: number | null }>(
    `SELECT start_at, end_at FROM outages INDEXED BY outages_healthcheck WHERE healthcheck_id = ? AND end_at > ?
     UNION ALL SELECT start_at, end_at FROM outages INDEXED BY outages_healthcheck WHERE healthcheck_id = ? AND end_at IS NULL`,
  );
  const rollups = db.prepare<[number, number], { hour_start: number; checks: number; failures: number; latency_sum_ms: number }>(
    'SELECT hour_start, checks, failures, latency_sum_ms FROM check_rollups_hourly WHERE monitor_id = ? AND hour_start >= ? ORDER BY hour_start',
  );
  const incidentsOfPage = db.prepare<[string, number, number], { uuid: string }>(
    // Incidents name their pages in a JSON array of uuids; the quotes make the match exact.
    "SELECT uuid FROM incidents WHERE statuspages LIKE '%' || ? || '%' AND (updated_at >= ? OR created_at >= ?) ORDER BY created_at DESC, id DESC LIMIT 500",
  );
  const windowsEndingAfter = db.prepare<[number], { uuid: string }>('SELECT uuid FROM maintenance_windows WHERE end_at > ? ORDER BY start_at, id');
  const toIntervals = (rows: Array<{ start_at: number; end_at: number | null }>): Interval[] => rows.map((r) => ({ startAt: r.start_at, endAt: r.end_at }));
  return {
    /** A monitor's outages ongoing or ended after `since` (epoch ms). */
    monitorOutagesSince: (monitorId: number, since: number): Interval[] => toIntervals(monitorOutages.all(monitorId, since, monitorId)),
    /** A healthcheck's outages ongoing or ended after `since` (epoch ms). */
    healthcheckOutagesSince: (healthcheckId: number, since: number): Interval[] => toIntervals(healthcheckOutages.all(healthcheckId, since, healthcheckId)),
    /** A monitor's hourly rollups from the hour starting at or after `since`, oldest first. */
    rollupsSince: (monitorId: number, since: number): HourRollup[] =>
      rollups.all(monitorId, since).map((r) => ({ hourStart: r.hour_start, checks: r.checks, failures: r.failures, latencyAvgMs: r.checks > 0 ? r.latency_sum_ms / r.checks : 0 })),
    /** Uuids of the incidents shown on page `statuspageUuid` created or updated since `since`, newest first (at most 500). */
    incidentUuidsOfPage: (statuspageUuid: string, since: number): string[] => incidentsOfPage.all(`"${statuspageUuid}"`, since, since).map((r) => r.uuid),
    /** Uuids of maintenance windows ending after `since` (ongoing, upcoming, or recently completed). */
    windowUuidsEndingAfter: (since: number): string[] => windowsEndingAfter.all(since).map((r) => r.uuid),
  };
}

/** The page reads' interface. */
export type PageReadsStore = ReturnType<typeof pageReadsStore>;
