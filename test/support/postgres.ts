import { appendFileSync, chownSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { daemonDir, freePort, runAs, setupAs, startDaemon, type Daemon } from './daemons.ts';
import { waitFor } from './process.ts';

/** Debian's PostgreSQL 15 server binaries (package `postgresql`). */
export const PG_BIN = '/usr/lib/postgresql/15/bin';

/**
 * A real PostgreSQL cluster made by the test in a temp dir (initdb), listening on 127.0.0.1 only.
 * User `pharos`, password `s3cret` over TCP (scram-sha-256), trust on the Unix socket in `dir`.
 */
export interface TestPostgres {
  /** `postgres://pharos:s3cret@127.0.0.1:<port>/<database>` */
  url: string;
  port: number;
  /** The cluster's folder (data in `<dir>/data`, the socket in `<dir>`). */
  dir: string;
  /** A superuser client over the Unix socket (not connected yet). */
  admin(database?: string): pg.Client;
  /** A new empty database on this cluster; its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (SIGINT, fast shutdown: clients are cut) and waits for its exit. */
  stop(): Promise<void>;
  /** SIGKILLs the server (a crash: no shutdown at all). */
  kill(): Promise<void>;
  /** Starts the server again on the same data and port (after `stop` or `kill`). */
  start(): Promise<void>;
  /** Stops the server and removes its folder. */
  cleanup(): Promise<void>;
  /** The running postmaster and every process it forked (backends, checkpointer, …): to freeze with SIGSTOP, or to read their CPU. */
  pids(): number[];
}

/**
 * The postmaster of the cluster whose data is in `<dir>/data` and every process it forked, read from
 * its pid file and /proc (a process that ends meanwhile is left out).
 */
export function clusterPids(dir: string): number[] {
  const postmaster = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false; // the process ended meanwhile
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

/**
 * Starts a fresh PostgreSQL cluster for a test (`initdb` + `postgres`, as the `postgres` user when
 * the tests run as root). fsync is off: these are tests, not durability proofs of PostgreSQL.
 * @param database the database `url` points at (created when not `postgres`)
 * @param opts.untilExit a cluster shared by a whole test process: it does not keep the process
 *   alive and is shut down (SIGQUIT, immediate) and removed when the process exits
 */
export async function startPostgres(database = 'pharos', opts: { untilExit?: boolean } = {}): Promise<TestPostgres> {
  const dir = daemonDir('postgres');
  const data = join(dir, 'data');
  writeFileSync(join(dir, 'pw'), 's3cret\n');
  const ids = runAs('postgres');
  if (ids.uid !== undefined) chownSync(join(dir, 'pw'), ids.uid, ids.gid!);
  setupAs('postgres', `${PG_BIN}/initdb`, ['-D', data, '-U', 'pharos', `--pwfile=${join(dir, 'pw')}`, '--auth-host=scram-sha-256', '--auth-local=trust', '-E', 'UTF8', '--no-sync']);
  appendFileSync(join(data, 'pg_hba.conf'), 'host all all 127.0.0.0/8 scram-sha-256\n');
  const port = await freePort();
  const args = ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200'];
  let server: Daemon | null = null;
  const up = async () => {
    server = await startDaemon('postgres', `${PG_BIN}/postgres`, args, port, { signal: 'SIGINT' });
    // The port opens before recovery ends ("the database system is starting up"): wait for a query.
    for (let i = 0; ; i++) {
      const c = new pg.Client({ host: dir, port, user: 'pharos', database: 'postgres' });
      try {
        await c.connect();
        await c.query('SELECT 1');
        break;
      } catch (e) {
        if (i >= 300) throw e;
        await new Promise((r) => setTimeout(r, 100));
      } finally {
        await c.end().catch(() => {});
      }
    }
    if (opts.untilExit) {
      const s: Daemon = server;
      s.proc.unref();
      for (const stream of [s.proc.stdout, s.proc.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
    }
  };
  if (opts.untilExit) {
    process.once('exit', () => {
      const s: Daemon | null = server;
      if (s?.proc.pid && s.proc.exitCode === null) s.proc.kill('SIGQUIT');
      rmSync(dir, { recursive: true, force: true });
    });
  }
  await up();
  const urlOf = (db: string) => `postgres://pharos:s3cret@127.0.0.1:${port}/${db}`;
  const admin = (db = 'postgres') => new pg.Client({ host: dir, port, user: 'pharos', database: db });
  const createDatabase = async (name: string) => {
    const c = admin();
    await c.connect();
    try {
      await c.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
    } finally {
      await c.end();
    }
    return urlOf(name);
  };
  if (database !== 'postgres') await createDatabase(database);
  return {
    url: urlOf(database),
    port,
    dir,
    admin,
    createDatabase,
    async stop() {
      await server?.stop();
      server = null;
    },
    async kill() {
      if (!server) return;
      const s: Daemon = server;
      server = null;
      s.proc.kill('SIGKILL');
      if (s.proc.exitCode === null && s.proc.signalCode === null) await new Promise((r) => s.proc.once('exit', r));
      // A killed postmaster leaves its backends and the pid file; the next start waits for them to go.
      rmSync(join(data, 'postmaster.pid'), { force: true });
    },
    async start() {
      if (!server) await up();
    },
    pids: () => clusterPids(dir),
    async cleanup() {
      await server?.stop();
      server = null;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until no Pharos session (`application_name` 'pharos') is idle inside a transaction: what a
 * transaction whose caller gave up, and that nobody ended, looks like on the server.
 * @param admin a connected client of the cluster (any database: pg_stat_activity covers them all)
 * @throws after {@link waitFor}'s default timeout, naming what it waited for
 */
export async function noPharosSessionIdleInTransaction(admin: pg.Client): Promise<void> {
  await waitFor('no Pharos session idle in a transaction', async () => {
    const r = await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'pharos' AND state LIKE 'idle in transaction%'");
    return r.rows[0]!.n === 0;
  });
}
