import type { MonitorStats } from '../domain/monitor.ts';
import type { Db } from './db.ts';

/**
 * Reads of the console that no other store module has: the newest outages of one monitor or healthcheck.
 * `lastCheckAts`/`lastCheckAt` are the checks store's (raw results live in its hourly tables).
 */
export function consoleReadsStore(db: Db, lastCheckAts: () => Map<number, number>, lastCheckAt: (monitorId: number) => number | null) {
  const ofMonitor = db.prepare<[number, number], { uuid: string }>('SELECT uuid FROM outages WHERE monitor_id = ? ORDER BY start_at DESC LIMIT ?');
  const ofHealthcheck = db.prepare<[number, number], { uuid: string }>('SELECT uuid FROM outages WHERE healthcheck_id = ? ORDER BY start_at DESC LIMIT ?');
  // One statement for every monitor (index seeks inside SQLite): no per-monitor round trip from JS.
  // `down_ms`: outage time inside [since30, now] (outages_monitor index).
  type StatsRow = { id: number; last_at: number | null; checks: number | null; failures: number | null; down_ms: number | null };
  const statsSql = (where: string) =>
    `SELECT m.id, NULL AS last_at, sum(r.checks) AS checks, sum(r.failures) AS failures,
       (SELECT sum(min(coalesce(o.end_at, @now), @now) - max(o.start_at, @since30, m.created_at)) FROM outages o
         WHERE o.monitor_id = m.id AND (o.end_at IS NULL OR o.end_at > max(@since30, m.created_at)) AND o.start_at < @now) AS down_ms
     FROM monitors m LEFT JOIN check_rollups_hourly r ON r.monitor_id = m.id AND r.hour_start >= @since
     ${where} GROUP BY m.id`;
  const stats = db.prepare<[{ since: number; since30: number; now: number }], StatsRow>(statsSql(''));
  const statsOne = db.prepare<[{ since: number; since30: number; now: number; id: number }], StatsRow>(statsSql('WHERE m.id = @id'));
  const toStats = (r: StatsRow): MonitorStats => ({ lastAt: r.last_at, checks: r.checks ?? 0, failures: r.failures ?? 0, downMs30d: r.down_ms ?? 0 });
  const version = db.prepare<[], { v: string }>('SELECT sqlite_version() AS v');
  // Monitor by monitor through the rollups' primary key (monitor_id, hour_start): rows come in hour order.
  const hourly = db.prepare<[{ from: number; to: number }], { id: number; latencies: string }>(
    `SELECT m.id, group_concat(r.latency_sum_ms / r.checks) AS latencies FROM monitors m
       JOIN check_rollups_hourly r ON r.monitor_id = m.id AND r.hour_start >= @from AND r.hour_start < @to AND r.checks > 0 GROUP BY m.id`,
  );
  return {
    /** The database and its version: `{ name: 'SQLite', version: '3.50.4' }`, or PostgreSQL's server version. */
    databaseVersion: (): { name: 'SQLite' | 'PostgreSQL'; version: string } => ({ name: db.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite', version: version.get()!.v }),
    /**
     * Per monitor id: its newest check's time; its checks and failures in the rollups from `since`;
     * its outage time (ms) in [`since30`, `now`].
     */
    monitorStats(since: number, since30: number, now: number): Map<number, MonitorStats> {
      const out = new Map<number, MonitorStats>();
      const last = lastCheckAts();
      for (const r of stats.iterate({ since, since30, now })) out.set(r.id, toStats({ ...r, last_at: last.get(r.id) ?? null }));
      return out;
    },
    /** Per monitor id: the mean latency (whole ms) of each hourly rollup in [`from`, `to`), oldest first, comma-separated. */
    hourlyLatencies(from: number, to: number): Map<number, string> {
      const out = new Map<number, string>();
      for (const r of hourly.iterate({ from, to })) out.set(r.id, r.latencies);
      return out;
    },
    /** {@link monitorStats} of one monitor (a live update), or undefined for an unknown id. */
    oneMonitorStats(id: number, since: number, since30: number, now: number): MonitorStats | undefined {
      const r = statsOne.get({ since, since30, now, id });
      return r && toStats({ ...r, last_at: lastCheckAt(id) });
    },
    /** Uuids of a monitor's newest outages, newest first. */
    monitorOutageUuids: (monitorId: number, limit: number): string[] => ofMonitor.all(monitorId, limit).map((r) => r.uuid),
    /** Uuids of a healthcheck's newest outages, newest first. */
    healthcheckOutageUuids: (healthcheckId: number, limit: number): string[] => ofHealthcheck.all(healthcheckId, limit).map((r) => r.uuid),
  };
}

/** The console reads' interface. */
export type ConsoleReadsStore = ReturnType<typeof consoleReadsStore>;
