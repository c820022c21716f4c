import pg from 'pg';
import type { Clock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import type { Logger } from '../lib/logger.ts';
import { CLUSTER_FORGET_MS, sortInstances, type ClusterChange, type ClusterInstance, type ClusterView } from '../domain/cluster.ts';
import { callAll, type Cluster, type InstanceInfo } from './types.ts';

/**
 * The advisory lock every instance of one database tries to hold: `pg_try_advisory_lock(classid, objid)`
 * with classid 'PHAR' (0x50484152) and objid 1. Whoever holds it leads; it ends with the session.
 */
export const LEADER_LOCK = [0x50484152, 1] as const;
/** The NOTIFY channel of change messages (payload: JSON `{from, changes}`). */
export const CHANGES_CHANNEL = 'pharos_cluster';
/** NOTIFY payloads must stay under 8000 bytes; a batch is cut into messages below this. */
const MAX_PAYLOAD_BYTES = 7000;

/** Timing of the leadership, ms. */
export interface PostgresClusterOptions {
  /** Heartbeat (and, for followers, lock attempt) period; also the heartbeat's query timeout. Default 2000. */
  heartbeatMs?: number;
  /** Longest wait between reconnection attempts (backoff from 250 ms, doubling). Default 5000. */
  reconnectMaxMs?: number;
}

/**
 * Leadership by a PostgreSQL advisory lock held on one dedicated connection per instance (issue 22),
 * which also carries the heartbeats, the instances listing and LISTEN/NOTIFY for change messages.
 *
 * - Every `heartbeatMs` a follower tries `pg_try_advisory_lock`; the one that gets it leads.
 * - The leader's heartbeat is a query with a `heartbeatMs` timeout. When it fails, or the connection
 *   reports an error or ends, the instance stops leading at once (listeners hear `false` before
 *   anything else happens), destroys the socket (so the server frees the lock as soon as it sees the
 *   close) and reconnects with backoff as a follower.
 * - The session sets server-side TCP keepalives (idle 5 s, interval 2 s, 3 probes): a leader whose
 *   machine vanished without closing its socket loses the lock on the server after ~11 s, while a
 *   leader that merely lost its network stops its leader work after at most 2 × `heartbeatMs`
 *   (4 s by default) — before the server lets anyone else take the lock. A killed process's socket
 *   is closed by its kernel: the lock is free at once and the next follower attempt (≤ `heartbeatMs`)
 *   takes it.
 */
export function postgresCluster(deps: { url: string; clock: Clock; logger: Logger; instance: InstanceInfo; options?: PostgresClusterOptions }): Cluster {
  const { url, clock, logger, instance } = deps;
  const heartbeatMs = deps.options?.heartbeatMs ?? 2000;
  const reconnectMaxMs = deps.options?.reconnectMaxMs ?? 5000;
  const leadershipListeners = new Set<(leader: boolean) => void>();
  const changeListeners = new Set<(c: ClusterChange) => void>();
  let client: pg.Client | null = null;
  let leader = false;
  let stopped = true;
  let tick: NodeJS.Timeout | null = null;
  let backoffMs = 250;
  /** The database was unreachable: logged once when it starts and once when it ends. */
  let failing = false;
  const pending = new Map<string, ClusterChange>();
  let flushQueued = false;
  /** Queries of the current connection run one after another (pg 9 drops its implicit queue). */
  let chain: Promise<unknown> = Promise.resolve();
  const run = <R extends pg.QueryResultRow = pg.QueryResultRow>(c: pg.Client, text: string, values?: unknown[]): Promise<pg.QueryResult<R>> => {
    const p = chain.then(() => c.query<R>(text, values));
    chain = p.catch(() => {});
    return p;
  };
  /**
   * An instance that just lost leadership does not try the lock again before this time (epoch ms of
   * the real clock): a healthy follower takes over, rather than the instance whose link just failed.
   */
  let contendAfter = 0;
  /** Where the current leader answers when it is another instance (read at each follower heartbeat). */
  let leaderAddress: string | null = null;
  /** No other instance beat in the last 5 heartbeats (as of the last heartbeat). */
  let alone = false;
  /** Lost leadership while alone, not led since: the leader work may still be checking. */
  let lostAlone = false;
  /** The current connection is made and this instance registered on it. */
  let joined = false;

  const report = (e: unknown) => logger.error('cluster: a leadership listener failed', { error: (e as Error).message });
  const setLeader = (next: boolean) => {
    if (leader === next) return;
    leader = next;
    // A leader that was alone keeps its checks (see `alone`) and tries again at once; one with
    // followers lets a healthy follower take over first.
    if (!next) {
      if (alone) lostAlone = true;
      else contendAfter = Date.now() + 3 * heartbeatMs;
    } else lostAlone = false;
    if (next) logger.info(`this instance (${instance.id}) is now the leader: it runs the scheduler, deadlines, maintenance timers and alerts`, { instance: instance.id });
    else logger.warn(`this instance (${instance.id}) is no longer the leader: leader work stopped`, { instance: instance.id });
    callAll(leadershipListeners, next, report);
  };

  /** Drops the connection: leadership first (synchronously), then the socket. */
  const lose = (c: pg.Client, why: string) => {
    if (client !== c) return;
    client = null;
    joined = false;
    if (tick) clearTimeout(tick);
    tick = null;
    setLeader(false);
    if (!failing && !stopped) logger.error(`cluster: lost the database connection (${why}); reconnecting`, { instance: instance.id });
    failing = !stopped;
    // destroy, not end(): end() waits for the server's answer, which a dead link never sends.
    (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    c.end().catch(() => {});
    if (!stopped) {
      const wait = backoffMs;
      backoffMs = Math.min(backoffMs * 2, reconnectMaxMs);
      tick = setTimeout(() => void connect(), wait);
      tick.unref();
    }
  };

  const connect = async () => {
    tick = null;
    if (stopped) return;
    const c = new pg.Client({ connectionString: url, application_name: `pharos ${instance.id}`, keepAlive: true, connectionTimeoutMillis: Math.max(heartbeatMs, 2000), query_timeout: heartbeatMs });
    c.on('error', (e) => lose(c, e.message));
    c.on('end', () => lose(c, 'connection closed'));
    c.on('notification', (n) => {
      if (n.channel !== CHANGES_CHANNEL || !n.payload) return;
      try {
        const msg = JSON.parse(n.payload) as { from: string; changes: ClusterChange[] };
        if (msg.from === instance.id) return;
        for (const change of msg.changes) callAll(changeListeners, change, (e) => logger.error('cluster: following a change failed', { change: change.kind, error: (e as Error).message }));
      } catch (e) {
        logger.warn('cluster: an unreadable change message was ignored', { error: (e as Error).message });
      }
    });
    client = c;
    chain = Promise.resolve();
    try {
      await c.connect();
      await run(c, 'SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3');
      await run(c, `LISTEN ${CHANGES_CHANNEL}`);
      const now = clock.now();
      await run(
        c,
        `INSERT INTO cluster_instances(id, address, version, started_at, last_seen_at, leader) VALUES ($1, $2, $3, $4, $5, 0)
         ON CONFLICT (id) DO UPDATE SET last_seen_at = EXCLUDED.last_seen_at`,
        [instance.id, instance.address, instance.version, instance.startedAt, now],
      );
      // Forget instances long gone.
      await run(c, 'DELETE FROM cluster_instances WHERE last_seen_at < $1', [now - CLUSTER_FORGET_MS]);
    } catch (e) {
      lose(c, (e as Error).message);
      return;
    }
    if (client !== c) return;
    joined = true;
    if (failing) logger.info('cluster: connected to the database again', { instance: instance.id });
    failing = false;
    backoffMs = 250;
    if (pending.size > 0) flush();
    await beat(c);
  };

  /** One heartbeat: a follower tries the lock; everyone records that it is alive. */
  const beat = async (c: pg.Client) => {
    if (client !== c || stopped) return;
    try {
      if (!leader && Date.now() >= contendAfter) {
        const r = await run<{ got: boolean }>(c, 'SELECT pg_try_advisory_lock($1, $2) AS got', [LEADER_LOCK[0], LEADER_LOCK[1]]);
        if (!r.rows[0]?.got && lostAlone) {
          // Someone else leads now (it started while this one was cut off): the checks this instance
          // kept going must stop too. Listeners hear `false` once more.
          lostAlone = false;
          callAll(leadershipListeners, false, report);
        }
        if (r.rows[0]?.got && client === c) {
          await run(c, 'UPDATE cluster_instances SET leader = CASE WHEN id = $1 THEN 1 ELSE 0 END', [instance.id]);
          if (client !== c) return;
          setLeader(true);
        }
      }
      await run(c, 'UPDATE cluster_instances SET last_seen_at = $2, leader = $3 WHERE id = $1', [instance.id, clock.now(), leader ? 1 : 0]);
      // The other live instances: where the leader answers (followers forward agents there), and
      // whether this instance is alone (then its checks go on through a database outage, see `alone`).
      const others = await run<{ address: string; leader: number }>(c, 'SELECT address, leader FROM cluster_instances WHERE id <> $1 AND last_seen_at >= $2 ORDER BY last_seen_at DESC', [
        instance.id,
        clock.now() - 5 * heartbeatMs,
      ]);
      leaderAddress = leader ? null : (others.rows.find((r) => r.leader === 1)?.address ?? null);
      alone = others.rows.length === 0;
    } catch (e) {
      lose(c, (e as Error).message);
      return;
    }
    if (client !== c || stopped) return;
    tick = setTimeout(() => void beat(c), heartbeatMs);
    tick.unref();
  };

  /** Sends the batched changes as NOTIFY messages under the payload limit. */
  const flush = () => {
    flushQueued = false;
    const c = client;
    if (!c || pending.size === 0) return;
    const all = [...pending.values()];
    pending.clear();
    let batch: ClusterChange[] = [];
    let bytes = 0;
    const send = () => {
      if (batch.length === 0) return;
      const payload = JSON.stringify({ from: instance.id, changes: batch });
      // The lock connection also carries these: a failure here surfaces on the next heartbeat.
      run(c, 'SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, payload]).catch((e: Error) => logger.warn('cluster: a change message was not sent', { error: e.message }));
      batch = [];
      bytes = 0;
    };
    for (const change of all) {
      const size = JSON.stringify(change).length + 1;
      if (bytes + size > MAX_PAYLOAD_BYTES) send();
      batch.push(change);
      bytes += size;
    }
    send();
  };

  return {
    mode: 'postgres',
    instanceId: instance.id,
    get connected() {
      return joined;
    },
    get alone() {
      return alone;
    },
    get isLeader() {
      return leader;
    },
    onLeadership(fn) {
      leadershipListeners.add(fn);
      return () => leadershipListeners.delete(fn);
    },
    publish(change) {
      if (stopped || !client) return;
      const key = JSON.stringify(change);
      pending.delete(key);
      pending.set(key, change);
      if (!flushQueued) {
        flushQueued = true;
        setImmediate(flush);
      }
    },
    leaderUrl: () => (leader || !client || !leaderAddress ? null : `http://${leaderAddress}`),
    onChange(fn) {
      changeListeners.add(fn);
      return () => changeListeners.delete(fn);
    },
    async view(): Promise<ClusterView> {
      const c = client;
      if (!c) throw new AppError(503, 'cluster.unavailable', 'the database cannot be reached: the cluster listing is unavailable');
      try {
        const r = await run<{ id: string; address: string; version: string; started_at: string; last_seen_at: string; leader: number }>(
          c,
          'SELECT id, address, version, started_at, last_seen_at, leader FROM cluster_instances WHERE last_seen_at >= $1',
          [clock.now() - CLUSTER_FORGET_MS],
        );
        const instances: ClusterInstance[] = sortInstances(
          r.rows.map((row) => ({ id: row.id, address: row.address, version: row.version, startedAt: Number(row.started_at), lastSeenAt: Number(row.last_seen_at), leader: row.leader === 1 })),
        );
        return { mode: 'postgres', self: instance.id, leader: instances.find((i) => i.leader)?.id ?? null, instances };
      } catch (e) {
        throw new AppError(503, 'cluster.unavailable', `the database did not answer: ${(e as Error).message}`);
      }
    },
    async start() {
      stopped = false;
      await connect();
    },
    async stop() {
      stopped = true;
      if (tick) clearTimeout(tick);
      tick = null;
      const c = client;
      joined = false;
      if (!c) return setLeader(false);
      client = null;
      setLeader(false);
      // A clean goodbye frees the lock at once and marks this instance as not leading.
      await run(c, 'UPDATE cluster_instances SET leader = 0, last_seen_at = $2 WHERE id = $1', [instance.id, clock.now()]).catch(() => {});
      await c.end().catch(() => {});
    },
  };
}
