import type { MonitorStats } from '../domain/monitor.ts';
import type { Db } from './db.ts';

/**
 * Reads of the console that no other store module has: the newest outages of one monitor or healthcheck.
 * `lastCheckAts`/`lastCheckAt` are the checks store's (raw results live in its hourly tables).
 */
export function consoleReadsStore(db: Db, lastCheckAts: () => Map<number, number>, lastCheckAt: (monitorId: number) => number | null) {
  const ofMonitor = db.prepare<[number, number], { uuid: string }>('SELECT uuid FROM outages WHERE monitor_id = ? ORDER BY start_at DESC LIMIT ?');
  const ofHealthcheck = db.prepare<[number, number], { uuid: string }>('SELECT uuid FROM outages WHERE healthcheck_id = ? ORDER BY start_at DESC LIMIT ?');
  const version = db.prepare<[], { v: string }>('SELECT sqlite_version() AS v');
  // Monitor by monitor through the rollups' primary key (monitor_id, hour_start): rows come in hour order.
  const hourly = db.prepare<[{ from: number; to: number }], { id: number; latencies: string }>(
    `SELECT m.id, group_concat(r.latency_sum_ms / r.checks) AS latencies FROM monitors m
       JOIN check_rollups_hourly r ON r.monitor_id = m.id AND r.hour_start >= @from AND r.hour_start < @to AND r.checks > 0 GROUP BY m.id`,
  );
  return {
    /** The database and its version: `{ name: 'SQLite', version: '3.50.4' }`, or PostgreSQL's server version. */
    databaseVersion: (): { name: 'SQLite' | 'PostgreSQL'; version: string } => ({ name: db.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite', version: version.get()!.v }),
    /** Per monitor id: its newest check's time (monitors never checked are left out). Uptime comes from outages (src/domain/uptime.ts). */
    monitorStats(): Map<number, MonitorStats> {
      const out = new Map<number, MonitorStats>();
      for (const [id, at] of lastCheckAts()) out.set(id, { lastAt: at });
      return out;
    },
    /** Per monitor id: the mean latency (whole ms) of each hourly rollup in [`from`, `to`), oldest first, comma-separated. */
    hourlyLatencies(from: number, to: number): Map<number, string> {
      const out = new Map<number, string>();
      for (const r of hourly.iterate({ from, to })) out.set(r.id, r.latencies);
      return out;
    },
    /** {@link monitorStats} of one monitor (a live update). */
    oneMonitorStats: (id: number): MonitorStats => ({ lastAt: lastCheckAt(id) }),
    /** Uuids of a monitor's newest outages, newest first. */
    monitorOutageUuids: (monitorId: number, limit: number): string[] => ofMonitor.all(monitorId, limit).map((r) => r.uuid),
    /** Uuids of a healthcheck's newest outages, newest first. */
    healthcheckOutageUuids: (healthcheckId: number, limit: number): string[] => ofHealthcheck.all(healthcheckId, limit).map((r) => r.uuid),
  };
}

/** The console reads' interface. */
export type ConsoleReadsStore = ReturnType<typeof consoleReadsStore>;
