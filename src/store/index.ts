import { alertsStore } from './alerts.ts';
import { checksStore } from './checks.ts';
import type { Db } from './db.ts';
import { healthchecksStore } from './healthchecks.ts';
import { maintenanceStore } from './maintenance.ts';
import { incidentsStore } from './incidents.ts';
import { statuspagesStore } from './statuspages.ts';
import { monitorsStore } from './monitors.ts';
import { outagesStore } from './outages.ts';
import { usersStore } from './users.ts';
import { subscribersStore } from './subscribers.ts';
import { pageReadsStore } from './page-reads.ts';
import { probesStore } from './probes.ts';
import { ssoConnectionsStore } from './sso-connections.ts';
import { kumaImportsStore } from './kuma.ts';
import { sessionsStore } from './sessions.ts';
import { consoleReadsStore } from './console-reads.ts';
import { invitationsStore } from './invitations.ts';
import { clusterStore } from './cluster.ts';

/** Every table family's module over one database handle, plus `tx` to run a function in one transaction. */
export function createStore(db: Db) {
  const checks = checksStore(db);
  return {
    db,
    users: usersStore(db),
    monitors: monitorsStore(db),
    checks,
    outages: outagesStore(db),
    healthchecks: healthchecksStore(db),
    alerts: alertsStore(db),
    maintenance: maintenanceStore(db),
    incidents: incidentsStore(db),
    statuspages: statuspagesStore(db),
    subscribers: subscribersStore(db),
    pageReads: pageReadsStore(db),
    probes: probesStore(db),
    ssoConnections: ssoConnectionsStore(db),
    kumaImports: kumaImportsStore(db),
    sessions: sessionsStore(db),
    consoleReads: consoleReadsStore(db, checks.lastCheckAts, checks.lastCheckAt),
    invitations: invitationsStore(db),
    cluster: clusterStore(db),
    /** Writes buffered pages (SQLite WAL checkpoint) and closes the database. */
    close(): void {
      db.checkpoint();
      db.close();
    },
    /** Runs `fn` in one transaction (SQLite: IMMEDIATE; nested calls become savepoints). See {@link Db.tx}. */
    tx<T>(fn: () => T): T {
      return db.tx(fn);
    },
  };
}

/** The store handed to the core. */
export type Store = ReturnType<typeof createStore>;
export type { Db, Dialect } from './driver.ts';
export type { OutageRecord } from './outages.ts';
export type { AlertRow } from './alerts.ts';
