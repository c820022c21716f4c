import type { Db } from './db.ts';

/** Reads of the console that no other store module has: the newest outages of one monitor or healthcheck. */
export function consoleReadsStore(db: Db) {
  const ofMonitor = db.prepare<[number, number], { uuid: string }>('SELECT uuid FROM outages WHERE monitor_id = ? ORDER BY start_at DESC LIMIT ?');
  const ofHealthcheck = db.prepare<[number, number], { uuid: string }>('SELECT uuid FROM outages WHERE healthcheck_id = ? ORDER BY start_at DESC LIMIT ?');
  // One statement for every monitor (index seeks inside SQLite): no per-monitor round trip from JS.
  const stats = db.prepare<[number], { id: number; last_at: number | null; checks: number | null; failures: number | null }>(
    `SELECT m.id, (SELECT max(at) FROM check_results WHERE monitor_id = m.id) AS last_at, sum(r.checks) AS checks, sum(r.failures) AS failures
     FROM monitors m LEFT JOIN check_rollups_hourly r ON r.monitor_id = m.id AND r.hour_start >= ?
     GROUP BY m.id`,
  );
  const version = db.prepare<[], { v: string }>('SELECT sqlite_version() AS v');
  return {
    /** The SQLite library's version, e.g. `3.50.4`. */
    sqliteVersion: (): string => version.get()!.v,
    /** Per monitor id: its newest check's time and its checks and failures in the hourly rollups from `since` (epoch ms). */
    monitorStats(since: number): Map<number, { lastAt: number | null; checks: number; failures: number }> {
      const out = new Map<number, { lastAt: number | null; checks: number; failures: number }>();
      for (const r of stats.iterate(since)) out.set(r.id, { lastAt: r.last_at, checks: r.checks ?? 0, failures: r.failures ?? 0 });
      return out;
    },
    /** Uuids of a monitor's newest outages, newest first. */
    monitorOutageUuids: (monitorId: number, limit: number): string[] => ofMonitor.all(monitorId, limit).map((r) => r.uuid),
    /** Uuids of a healthcheck's newest outages, newest first. */
    healthcheckOutageUuids: (healthcheckId: number, limit: number): string[] => ofHealthcheck.all(healthcheckId, limit).map((r) => r.uuid),
  };
}

/** The console reads' interface. */
export type ConsoleReadsStore = ReturnType<typeof consoleReadsStore>;
