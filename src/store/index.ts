import { alertsStore } from './alerts.ts';
import { checksStore } from './checks.ts';
import { heartbeatsStore } from './heartbeats.ts';
import type { Db } from './db.ts';
import { healthchecksStore } from './healthchecks.ts';
import { maintenanceStore } from './maintenance.ts';
import { incidentsStore } from './incidents.ts';
import { statuspagesStore } from './statuspages.ts';
import { monitorsStore } from './monitors.ts';
import { tagsStore } from './tags.ts';
import { outagesStore } from './outages.ts';
import { usersStore } from './users.ts';
import { subscribersStore } from './subscribers.ts';
import { pageReadsStore } from './page-reads.ts';
import { probesStore } from './probes.ts';
import { ssoConnectionsStore } from './sso-connections.ts';
import { kumaImportsStore } from './kuma.ts';
import { sessionsStore } from './sessions.ts';
import { consoleReadsStore } from './console-reads.ts';
import { overviewStore } from './overview.ts';
import { invitationsStore } from './invitations.ts';
import { clusterStore } from './cluster.ts';
import { integrationsStore } from './integrations.ts';
import { escalationPoliciesStore } from './escalation-policies.ts';
import { onCallStore } from './on-call.ts';
import { peopleStore } from './people.ts';
import { auditLogStore } from './audit-log.ts';
import { secretKeyStore } from './secret-check.ts';
import { sqliteOf } from './db.ts';
import { scoped } from './tx-scope.ts';
import { AppError } from '../lib/errors.ts';
import { directAsyncStore, type AsyncStore } from './async.ts';

/** Every table family's module over one database handle (what {@link Store} adds `tx`, `close`… to). */
function modulesOf(db: Db) {
  const checks = checksStore(db);
  return {
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
    heartbeats: heartbeatsStore(db),
    overview: overviewStore(db, checks.lastCheckAts),
    invitations: invitationsStore(db),
    cluster: clusterStore(db),
    integrations: integrationsStore(db),
    escalationPolicies: escalationPoliciesStore(db),
    onCall: onCallStore(db),
    people: peopleStore(db),
    auditLog: auditLogStore(db),
    secretKey: secretKeyStore(db),
    tags: tagsStore(db),
  };
}

/** The table families' modules of a store (what {@link Store} adds `tx`, `async`, `close`… to). */
export type StoreModules = ReturnType<typeof modulesOf>;

/**
 * The store handed to the core: one module per table family (domain values in and out), and the
 * driver-neutral operations below. No raw database handle is part of it (issue 22); the SQLite and
 * PostgreSQL drivers behind it are chosen in open.ts.
 */
export type Store = StoreModules & {
  /**
   * The same modules answering with Promises, and transactions by registered procedure (store/async.ts):
   * what code on the event loop uses, because on PostgreSQL these calls never block it (issue 31).
   */
  readonly async: AsyncStore;
  /**
   * Runs `fn` in one transaction (SQLite: BEGIN IMMEDIATE; PostgreSQL: one pinned connection; nested
   * calls become savepoints; `fn` throwing rolls back and rethrows). `fn` is handed a
   * transaction-scoped store of the same shape (tx-scope.ts): calls through it join the transaction,
   * and using it after the transaction ended throws. See {@link Db.tx}.
   */
  tx<T>(fn: (tx: Store) => T): T;
  /** False while the database cannot be reached (store calls then throw AppError 503 `store.unavailable`); SQLite: always true. */
  available(): boolean;
  /**
   * Writes an online copy of the SQLite database to `file` (better-sqlite3's backup API; the server may
   * keep writing meanwhile). Resolves once the copy is complete.
   * @throws AppError 400 `store.unsupported` on PostgreSQL (use pg_dump); the driver's error when `file` cannot be written
   */
  backupTo(file: string): Promise<void>;
  /**
   * Writes buffered pages (SQLite WAL checkpoint) and closes the database.
   * @throws Error when called inside a transaction
   */
  close(): void;
};

const handles = new WeakMap<object, Db>();

/** The store of the modules over `db`. */
export function createStore(db: Db, opts: { async?: (modules: StoreModules) => AsyncStore; onClose?: () => void } = {}): Store {
  const modules = modulesOf(db);
  let asyncStore: AsyncStore | undefined;
  const store: Store = {
    ...modules,
    get async(): AsyncStore {
      return (asyncStore ??= opts.async ? opts.async(modules) : directAsyncStore(store, modules));
    },
    tx<T>(fn: (tx: Store) => T): T {
      return db.tx(() => {
        const scope = { open: true };
        try {
          return fn(scoped(store, scope));
        } finally {
          scope.open = false;
        }
      });
    },
    available: () => db.available(),
    async backupTo(file: string): Promise<void> {
      const lite = sqliteOf(db);
      if (!lite) throw new AppError(400, 'store.unsupported', 'backup: the database is PostgreSQL: back it up with its own tools (pg_dump)');
      await lite.backup(file);
    },
    close(): void {
      if (db.inTransaction) throw new Error('store: close() inside a transaction');
      opts.onClose?.();
      db.checkpoint();
      db.close();
    },
  };
  handles.set(store, db);
  return store;
}

/**
 * The database handle under `store`, for src/store/ itself and for tests that look at rows or inject
 * faults (test/support/store-faults.ts). Nothing else in src/ may call it (test/unit/architecture.test.ts).
 * @throws Error for an object that is not a store made by {@link createStore} (a transaction-scoped one included)
 */
export function rawDb(store: Store): Db {
  const db = handles.get(store);
  if (!db) throw new Error('rawDb: not a store made by createStore');
  return db;
}

export type { Db, Dialect } from './driver.ts';
