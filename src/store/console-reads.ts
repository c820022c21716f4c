import type { Db } from './db.ts';

/** Reads of the console that no other store module has: the newest outages of one monitor or healthcheck. */
export function consoleReadsStore(db: Db) {
  const ofMonitor = db.prepare<[number, number], { uuid: string }>('SELECT uuid FROM outages WHERE monitor_id = ? ORDER BY start_at DESC LIMIT ?');
  const ofHealthcheck = db.prepare<[number, number], { uuid: string }>('SELECT uuid FROM outages WHERE healthcheck_id = ? ORDER BY start_at DESC LIMIT ?');
  return {
    /** Uuids of a monitor's newest outages, newest first. */
    monitorOutageUuids: (monitorId: number, limit: number): string[] => ofMonitor.all(monitorId, limit).map((r) => r.uuid),
    /** Uuids of a healthcheck's newest outages, newest first. */
    healthcheckOutageUuids: (healthcheckId: number, limit: number): string[] => ofHealthcheck.all(healthcheckId, limit).map((r) => r.uuid),
  };
}

/** The console reads' interface. */
export type ConsoleReadsStore = ReturnType<typeof consoleReadsStore>;
