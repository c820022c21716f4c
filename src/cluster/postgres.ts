import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { Clock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import type { Logger } from '../lib/logger.ts';
import { CLUSTER_FORGET_MS, sortInstances, type ClusterChange, type ClusterInstance, type ClusterView } from '../domain/cluster.ts';
import { callAll, type Cluster, type InstanceInfo } from './types.ts';
import { LEASE_SQL, instanceOf, type InstanceRow } from './lease-sql.ts';
import { OutageWatch } from './outage-watch.ts';
import { changeSender } from './change-sender.ts';

/** The NOTIFY channel of change messages (payload: JSON `{from, changes}`). */
export const CHANGES_CHANNEL = 'pharos_cluster';
/** NOTIFY payloads must stay under 8000 bytes; a batch is cut into messages below this. */
const MAX_PAYLOAD_BYTES = 7000;

/** Timing of the leadership, ms. */
export interface PostgresClusterOptions {
  /** Renewal and heartbeat period (followers try to take an expired lease over as often); also each statement's timeout. Default 2000. */
  heartbeatMs?: number;
  /** Lease time: the database lets another instance take over this long after the last renewal. Default 5 × heartbeatMs (10 s). */
  leaseMs?: number;
  /**
   * The leader stops its leader work this long before the lease would end, by its own monotonic clock
   * counted from when the last successful renewal was sent. Default heartbeatMs (2 s).
   */
  marginMs?: number;
  /** Longest wait between reconnection attempts (backoff from 250 ms, doubling). Default 5000. */
  reconnectMaxMs?: number;
  /** How long `healthcheck` change messages are held to go out together (change-sender.ts). Default 200. */
  coalesceMs?: number;
}

/**
 * Leadership as a lease with fencing (issue 31), held through one dedicated connection per instance
 * that also carries the heartbeats, the instances listing and LISTEN/NOTIFY for change messages.
 *
 * - The lease is the row of `leader_lease`: holder, epoch (the fencing number, +1 at every take-over)
 *   and `expires_at` in the database's clock. Every `heartbeatMs` the leader renews it
 *   (`… WHERE holder = me AND epoch = mine`); a follower takes it over when it has expired in the
 *   database's clock, or at once when the holder's cluster session is gone (a killed process's socket is
 *   closed by its kernel): `UPDATE … SET epoch = epoch + 1 … RETURNING epoch`.
 * - The leader times its lease by its own monotonic clock (performance.now): it leads until the time a
 *   successful renewal was *sent* + lease − margin. Past that unrenewed (database slow or cut off, the
 *   process frozen), it stops leader work by itself, before the database lets anyone take over; and
 *   `fence.valid()`, asked before each leader action, finds it out even when the timers of a thawed
 *   process fire in another order.
 * - Every leader write carries the epoch (`store.cluster.assertFence`, FOR SHARE on the row): once
 *   another instance took over, the write is refused and the old leader stops (`fence.lost`).
 * - A connection error ends leadership at once too (listeners hear `false` first), the socket is
 *   destroyed and the instance reconnects with backoff; it may renew its own lease again (same epoch)
 *   at once when it kept its checks (alone, or a database outage its peers confirm: `kept`), else after
 *   3 heartbeats, so a healthy follower goes first.
 */
export function postgresCluster(deps: { url: string; clock: Clock; logger: Logger; instance: InstanceInfo; options?: PostgresClusterOptions; storeAvailable?: () => boolean }): Cluster {
  const { url, clock, logger, instance } = deps;
  const heartbeatMs = deps.options?.heartbeatMs ?? 2000;
  const leaseMs = deps.options?.leaseMs ?? 5 * heartbeatMs;
  const marginMs = deps.options?.marginMs ?? heartbeatMs;
  const reconnectMaxMs = deps.options?.reconnectMaxMs ?? 5000;
  if (leaseMs - marginMs < 2 * heartbeatMs) throw new Error(`cluster lease ${leaseMs} ms too short: it must be at least the margin (${marginMs} ms) plus two renewals (${2 * heartbeatMs} ms)`);
  const storeAvailable = deps.storeAvailable ?? (() => true);
  const leadershipListeners = new Set<(leader: boolean) => void>();
  const changeListeners = new Set<(c: ClusterChange) => void>();
  const releaseListeners = new Set<() => void>();
  let client: pg.Client | null = null;
  let leader = false;
  /** The lease's epoch this instance holds or last held (null: never led). */
  let epoch: number | null = null;
  /** performance.now() before which the held lease is valid here (sent time of the last renewal + lease − margin). */
  let validUntil = 0;
  let expiry: NodeJS.Timeout | null = null;
  /** performance.now() of the last renewal that succeeded, and of the last heartbeat that completed. */
  let renewedAt = 0;
  let beatAt = 0;
  let stopped = true;
  let tick: NodeJS.Timeout | null = null;
  let backoffMs = 250;
  /** The database was unreachable: logged once when it starts and once when it ends. */
  let failing = false;
  // Change messages: the cluster connection also carries them; a failure surfaces on the next heartbeat.
  const changes = changeSender({
    from: instance.id,
    maxBytes: MAX_PAYLOAD_BYTES,
    coalesceMs: deps.options?.coalesceMs,
    ready: () => client !== null,
    send: (payload) => void run(client!, 'SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, payload]).catch((e: Error) => logger.warn('cluster: a change message was not sent', { error: e.message })),
  });
  /** Queries of the current connection run one after another (pg 9 drops its implicit queue). */
  let chain: Promise<unknown> = Promise.resolve();
  const run = <R extends pg.QueryResultRow = pg.QueryResultRow>(c: pg.Client, text: string, values?: unknown[]): Promise<pg.QueryResult<R>> => {
    const p = chain.then(() => c.query<R>(text, values));
    chain = p.catch(() => {});
    return p;
  };
  /** An instance that just lost leadership with others alive does not take or renew the lease before this (performance.now()). */
  let contendAfter = 0;
  /** Where the current leader answers when it is another instance (read at each follower heartbeat). */
  let leaderAddress: string | null = null;
  /** No other instance beat in the last 5 heartbeats (as of the last heartbeat). */
  let alone = false;
  /** Lost the database while alone or with the lease valid, not led since: checks go on (issue 31 point 5; `watch` asks the
   * peers). Kept because alone (`keptAlone`): their end is told as `false` once more; else by `onChecksReleased`. */
  let [kept, keptAlone] = [false, false];
  let peers: string[] = []; // `host:port` of the other live instances as of the last heartbeat
  const stopKept = (why: string) => {
    if (!kept) return;
    [kept, contendAfter] = [false, performance.now() + 3 * heartbeatMs];
    logger.warn(`this instance (${instance.id}) stops the checks it kept going: ${why}`, { instance: instance.id });
    return keptAlone ? callAll(leadershipListeners, false, report) : callAll(releaseListeners, undefined, report);
  };
  const watch = new OutageWatch({ peers: () => peers, periodMs: heartbeatMs, answerMs: Math.max(200, Math.floor(marginMs / 2) - 100), logger, stop: stopKept });
  /** The current connection is made and this instance registered on it. */
  let joined = false;

  const report = (e: unknown) => logger.error('cluster: a leadership listener failed', { error: (e as Error).message });
  const setLeader = (next: boolean, why = '', unreachable = false) => {
    if (leader === next) return;
    leader = next;
    if (expiry) clearTimeout(expiry);
    expiry = null;
    // A leader that was alone keeps its checks (see `alone`) and renews again at once; so does one that
    // lost the database while its lease was still valid (not a frozen process: a thawed one is past it),
    // while its peers confirm they cannot reach the database either (OutageWatch). One with followers
    // that lost leadership otherwise lets a healthy follower take over first.
    if (!next) {
      keptAlone = alone;
      if (alone) kept = true;
      else if (unreachable && peers.length > 0 && performance.now() < validUntil + marginMs / 2) {
        kept = true;
        watch.begin();
      } else contendAfter = performance.now() + 3 * heartbeatMs;
    } else {
      kept = false;
      watch.end();
    }
    if (next) logger.info(`this instance (${instance.id}) is now the leader (lease epoch ${epoch}): it runs the scheduler, deadlines, maintenance timers and alerts`, { instance: instance.id, epoch });
    else logger.warn(`this instance (${instance.id}) is no longer the leader${why ? ` (${why})` : ''}: leader work stopped`, { instance: instance.id, epoch });
    callAll(leadershipListeners, next, report);
  };
  /** The lease ran out unrenewed by this instance's monotonic clock: leadership ends now. */
  const expired = () => {
    if (leader && performance.now() >= validUntil) setLeader(false, `lease not renewed for ${((performance.now() - renewedAt) / 1000).toFixed(1)} s`, true);
  };
  /** A renewal (or take-over) sent at `sentAt` succeeded: valid until sentAt + lease − margin. */
  const renewed = (sentAt: number) => {
    renewedAt = performance.now();
    validUntil = sentAt + leaseMs - marginMs;
    if (expiry) clearTimeout(expiry);
    expiry = setTimeout(expired, Math.max(0, validUntil - performance.now()));
    expiry.unref();
  };

  /** Drops the connection: leadership first (synchronously), then the socket. */
  const lose = (c: pg.Client, why: string) => {
    if (client !== c) return;
    client = null;
    joined = false;
    if (tick) clearTimeout(tick);
    tick = null;
    setLeader(false, 'lost the database connection', true);
    if (!failing && !stopped) logger.error(`cluster: lost the database connection (${why}); reconnecting`, { instance: instance.id });
    failing = !stopped;
    // destroy, not end(): end() waits for the server's answer, which a dead link never sends.
    (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    c.end().catch(() => {});
    if (!stopped) {
      const wait = backoffMs;
      // Checks kept through an outage: try every second, to renew the lease before a follower takes it.
      backoffMs = Math.min(backoffMs * 2, kept ? 1000 : reconnectMaxMs);
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
      // A lease statement waits at most half a heartbeat for a row lock (a fenced write in progress).
      await run(c, `SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3; SET lock_timeout = ${Math.max(100, Math.floor(heartbeatMs / 2))}`);
      await run(c, `LISTEN ${CHANGES_CHANNEL}`);
      const now = clock.now();
      await run(c, LEASE_SQL.register, [instance.id, instance.address, instance.version, instance.startedAt, now]);
      // Forget instances long gone.
      await run(c, 'DELETE FROM cluster_instances WHERE last_seen_at < $1', [now - CLUSTER_FORGET_MS]);
    } catch (e) {
      lose(c, (e as Error).message);
      return;
    }
    if (client !== c) return;
    joined = true;
    beatAt = performance.now();
    if (failing) logger.info('cluster: connected to the database again', { instance: instance.id });
    // Back after losing the database while another led: that leader (it may have kept checking through an outage) renews first.
    if (failing && !kept && leaderAddress !== null) contendAfter = Math.max(contendAfter, performance.now() + 2 * heartbeatMs);
    failing = false;
    backoffMs = 250;
    changes.flush();
    await beat(c);
  };

  /** Renews the held (or last held) lease; true when it is still this instance's (same epoch). */
  const renew = async (c: pg.Client): Promise<boolean | null> => {
    const sentAt = performance.now();
    try {
      const r = await run<{ epoch: string }>(c, LEASE_SQL.renew, [instance.id, epoch, leaseMs]);
      if (r.rows.length === 0) return false;
      renewed(sentAt);
      return true;
    } catch (e) {
      // Waited too long behind a fenced write of this instance's own store: the next beat renews.
      if ((e as { code?: string }).code === '55P03') return null;
      throw e;
    }
  };

  /** Takes an expired (or orphaned) lease over; true when this instance now holds it. */
  const takeOver = async (c: pg.Client): Promise<boolean> => {
    const sentAt = performance.now();
    try {
      const r = await run<{ epoch: string }>(c, LEASE_SQL.takeOver, [instance.id, leaseMs]);
      if (r.rows.length === 0) return false;
      epoch = Number(r.rows[0]!.epoch);
      renewed(sentAt);
      return true;
    } catch (e) {
      if ((e as { code?: string }).code !== '55P03') throw e;
      // The expired lease's row is locked by a fenced write of a process frozen inside its transaction:
      // end that session (its transaction rolls back), and take over at the next beat.
      const ended = await run<{ pid: number }>(c, LEASE_SQL.endStaleHolders, [leaseMs]);
      if (ended.rows.length > 0) logger.warn(`cluster: ended ${ended.rows.length} database session(s) left idle in a transaction holding the expired lease's row (a frozen leader): taking over`, { pids: ended.rows.map((r) => r.pid).join(',') });
      return false;
    }
  };

  /** One heartbeat: the leader renews; a follower takes an expired lease over; everyone records that it is alive. */
  const beat = async (c: pg.Client) => {
    if (client !== c || stopped) return;
    try {
      const mayContend = alone || performance.now() >= contendAfter;
      // (An instance that kept its checks through an outage renews as soon as its store is back too.)
      if (leader || (epoch !== null && mayContend && storeAvailable())) {
        // The leader renews only while its store works (or nobody else could take over anyway).
        const mine = leader && !storeAvailable() && !alone ? null : await renew(c);
        if (client !== c) return;
        if (mine === true && !leader) setLeader(true);
        else if (mine === false) {
          epoch = null;
          if (leader) setLeader(false, 'another instance took the lease over');
          // Someone else leads now: the checks this instance kept going must stop too (listeners hear `false` once more).
          else stopKept('another instance took the lease over');
        }
      }
      if (!leader && epoch === null && mayContend && storeAvailable() && (await takeOver(c)) && client === c) {
        await run(c, 'UPDATE cluster_instances SET leader = CASE WHEN id = $1 THEN 1 ELSE 0 END', [instance.id]);
        if (client !== c) return;
        setLeader(true);
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
      peers = others.rows.map((r) => r.address);
      beatAt = performance.now();
    } catch (e) {
      lose(c, (e as Error).message);
      return;
    }
    if (client !== c || stopped) return;
    tick = setTimeout(() => void beat(c), heartbeatMs);
    tick.unref();
  };

  const secondsSince = (at: number) => ((performance.now() - at) / 1000).toFixed(1);
  return {
    mode: 'postgres',
    instanceId: instance.id,
    get connected() {
      return joined;
    },
    get alone() {
      return alone;
    },
    get keepsChecks() {
      return kept;
    },
    get outageConfirmed() {
      return kept && (alone || watch.confirmed);
    },
    get isLeader() {
      return leader && performance.now() < validUntil;
    },
    fence: {
      epoch: () => epoch,
      valid() {
        expired();
        return leader;
      },
      lost(e) {
        if (e !== epoch) return;
        epoch = null;
        // Someone else leads: checks kept going (alone, or through an outage) must stop too.
        alone = false;
        if (leader) setLeader(false, 'a write was refused: another instance took the lease over');
        else stopKept('a write was refused: another instance took the lease over');
      },
    },
    problems() {
      if (!joined) return ['cluster connection down'];
      const out: string[] = [];
      if (performance.now() - beatAt > 2 * heartbeatMs) out.push(`database slow: last heartbeat ${secondsSince(beatAt)} s ago`);
      if (leader && performance.now() - renewedAt > 2 * heartbeatMs) out.push(`lease not renewed for ${secondsSince(renewedAt)} s`);
      if (!leader && leaderAddress === null) out.push('no leader: the lease is free or expired');
      return out;
    },
    onLeadership(fn) {
      leadershipListeners.add(fn);
      return () => leadershipListeners.delete(fn);
    },
    publish(change) {
      if (stopped || !client) return;
      changes.publish(change);
    },
    leaderUrl: () => (leader || !client || !leaderAddress ? null : `http://${leaderAddress}`),
    onChecksReleased(fn) {
      releaseListeners.add(fn);
      return () => releaseListeners.delete(fn);
    },
    onChange(fn) {
      changeListeners.add(fn);
      return () => changeListeners.delete(fn);
    },
    async view(): Promise<ClusterView> {
      const c = client;
      if (!c) throw new AppError(503, 'cluster.unavailable', 'the database cannot be reached: the cluster listing is unavailable');
      try {
        const r = await run<InstanceRow>(c, LEASE_SQL.listing, [clock.now() - CLUSTER_FORGET_MS]);
        const instances: ClusterInstance[] = sortInstances(r.rows.map(instanceOf));
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
      watch.end();
      kept = false;
      if (tick) clearTimeout(tick);
      tick = null;
      const c = client;
      // Changes still held go out before the goodbye (same connection, in order); nothing after it.
      changes.flush();
      changes.stop();
      joined = false;
      const held = leader ? epoch : null;
      if (!c) return setLeader(false);
      client = null;
      setLeader(false, 'stopping');
      // A clean goodbye: the lease ends now (same epoch: this instance's last writes stay valid) and the
      // listing says this instance does not lead, so a follower takes over at its next heartbeat.
      if (held !== null) await run(c, LEASE_SQL.release, [instance.id, held]).catch(() => {});
      await run(c, 'UPDATE cluster_instances SET leader = 0, last_seen_at = $2 WHERE id = $1', [instance.id, clock.now()]).catch(() => {});
      await c.end().catch(() => {});
    },
  };
}
