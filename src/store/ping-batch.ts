import type { Healthcheck } from '../domain/healthcheck.ts';
import type { Ping, PingEffect, StoredPing } from '../domain/ping.ts';
import type { Db } from './db.ts';
import type { Query } from './driver.ts';
import type { HealthcheckRow } from './healthchecks.ts';

/**
 * A batch of pings stored without blocking the event loop (issue 31): `recordPings` of the
 * healthchecks store (store/healthchecks.ts), and the statements and helpers it shares with the
 * synchronous path there.
 */

/**
 * How every read of a healthcheck row starts (both drivers; `h` is the healthchecks table): its
 * columns, and `reopen` (1 or 0): down with no open outage, i.e. a person resolved its outage while
 * it was still down (issue 33 point 11; a down healthcheck otherwise always has its outage open).
 * The next missed deadline or fail ping then opens a new outage. One indexed look-up per down row.
 */
export const HEALTHCHECK_SELECT = `SELECT h.*, CASE WHEN h.status = 'down' AND NOT EXISTS
    (SELECT 1 FROM outages o WHERE o.healthcheck_id = h.id AND o.end_at IS NULL) THEN 1 ELSE 0 END AS reopen
  FROM healthchecks h`;

/** Rows per multi-row ping INSERT, largest first (64 × 10 parameters stays far below either database's limit). */
export const PING_CHUNKS = [64, 16, 4, 1] as const;

/** One ping of a batch for `recordPings`: the token it was sent to and the ping. */
export interface PingOfBatch {
  token: string;
  ping: Ping;
}

/** What `recordPings` stored for one ping: its row (with its number) and the healthcheck as the ping left it. */
export interface RecordedPing {
  stored: StoredPing;
  healthcheck: Healthcheck;
}

/** Thrown inside a batch's transaction when a ping would flip its healthcheck: the batch is rolled back and goes the synchronous way. */
const FLIPS = Symbol('a ping of the batch flips its healthcheck');
/** Reads and guarded writes of a ping batch on PostgreSQL before it takes the synchronous transaction instead. */
const CONFLICT_TRIES = 4;

// The batch statements of PostgreSQL (issue 31): one per kind, arrays unnested server-side, as the
// results flush does (store/checks.ts). The batch reads its healthchecks, then writes in one step:
// the rows locked in id order first (so transactions of several instances over the same healthchecks
// queue behind each other instead of deadlocking), the counters guarded by what was read.
const PG_READ = `${HEALTHCHECK_SELECT} WHERE h.uuid = ANY(CAST(? AS text[]))`;
const PG_LOCK = 'SELECT id FROM healthchecks WHERE id = ANY(CAST(? AS bigint[])) ORDER BY id FOR UPDATE';
const PG_COUNT = `UPDATE healthchecks AS h SET pings_total = x.total, last_ping_at = x.last_ping_at, last_start_at = x.last_start_at,
    status = x.status, clock_start_at = x.clock_start_at
  FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS bigint[]),
      CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[]))
    AS x(id, total, last_ping_at, last_start_at, status, clock_start_at, was_total, was_status, was_paused, was_clock, was_last_start)
  WHERE h.id = x.id AND h.pings_total = x.was_total AND h.status = x.was_status AND h.paused = x.was_paused
    AND h.clock_start_at = x.was_clock AND h.last_start_at IS NOT DISTINCT FROM x.was_last_start`;
const PG_INSERT = `INSERT INTO pings(healthcheck_id, n, at, kind, exit_code, method, source_ip, user_agent, body, duration_ms)
  SELECT * FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS bigint[]),
    CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS bigint[]))`;
const PG_PRUNE = 'DELETE FROM pings AS p USING unnest(CAST(? AS bigint[]), CAST(? AS bigint[])) AS x(id, n) WHERE p.healthcheck_id = x.id AND p.n <= x.n';
// SQLite: the synchronous path's statements (store/healthchecks.ts prepares them).
export const LITE_PRUNE = 'DELETE FROM pings WHERE healthcheck_id = ? AND n <= ?';
const insertPingsSql = (rows: number) =>
  `INSERT INTO pings(healthcheck_id, n, at, kind, exit_code, method, source_ip, user_agent, body, duration_ms)
         VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`;
export const LITE_INSERT = new Map(PING_CHUNKS.map((size) => [size, insertPingsSql(size)]));

/** Each counted healthcheck's newest ping number beyond `keep`: what its older rows are pruned up to. */
export function pruneTo(pings: ReadonlyArray<{ healthcheckId: number; stored: StoredPing }>, keep: number): Map<number, number> {
  const newest = new Map<number, number>();
  for (const { healthcheckId: id, stored } of pings) if (stored.n > keep && stored.n > (newest.get(id) ?? 0)) newest.set(id, stored.n);
  return new Map([...newest].map(([id, n]) => [id, n - keep]));
}

/** PostgreSQL's writes of a counted batch, one step: the locks, the guarded final states, the ping rows, the pruning (see `recordPings`). */
function batchWrites(finals: Healthcheck[], read: Map<number, Healthcheck>, pings: Array<{ healthcheckId: number; stored: StoredPing }>, keep: number): Query[] {
  const prune = pruneTo(pings, keep);
  {
    const col = <T>(f: (p: { healthcheckId: number; stored: StoredPing }) => T) => pings.map(f);
    const was = <T>(f: (h: Healthcheck) => T) => finals.map((h) => f(read.get(h.id)!));
    const queries: Query[] = [
      { sql: PG_LOCK, params: [finals.map((h) => h.id)] },
      {
        sql: PG_COUNT,
        params: [
          finals.map((h) => h.id),
          finals.map((h) => h.pingsTotal),
          finals.map((h) => h.lastPingAt),
          finals.map((h) => h.lastStartAt),
          finals.map((h) => h.status),
          finals.map((h) => h.clockStartAt),
          was((h) => h.pingsTotal),
          was((h) => h.status),
          was((h) => (h.paused ? 1 : 0)),
          was((h) => h.clockStartAt),
          was((h) => h.lastStartAt),
        ],
        // Another instance counted, or the API or a deadline changed, one of them since the read: read again.
        expectChanges: finals.length,
      },
      {
        sql: PG_INSERT,
        params: [
          col((p) => p.healthcheckId),
          col((p) => p.stored.n),
          col((p) => p.stored.at),
          col((p) => p.stored.kind),
          col((p) => p.stored.exitCode),
          col((p) => p.stored.method),
          col((p) => p.stored.sourceIp),
          col((p) => p.stored.userAgent),
          col((p) => p.stored.body),
          col((p) => p.stored.durationMs),
        ],
      },
    ];
    if (prune.size > 0) queries.push({ sql: PG_PRUNE, params: [[...prune.keys()], [...prune.values()]] });
    return queries;
  }
}

/** SQLite's side of a batch: the healthchecks store's own prepared statements. */
export interface SqliteBatch {
  /** The row of the healthcheck of `token`, if any. */
  read(token: string): HealthcheckRow | undefined;
  /** Writes the counted healthchecks' final states, the ping rows and the pruning to the newest `keep`. */
  write(finals: readonly Healthcheck[], pings: ReadonlyArray<{ healthcheckId: number; stored: StoredPing }>, keep: number): void;
}

/**
 * The batch operations of the healthchecks store over `db` (`toHealthcheck`: its row mapper; `lite`:
 * its SQLite statements, null on PostgreSQL).
 */
export function pingBatch(db: Db, toHealthcheck: (r: HealthcheckRow) => Healthcheck, lite: SqliteBatch | null) {
  return {
    /**
     * Stores a batch of pings without blocking the event loop (`db.txAsync`; on SQLite synchronously,
     * settled when returned): reads the batch's healthchecks, applies `effect` (the pure state
     * machine) ping by ping in order, then writes each healthcheck's final count and state, the ping
     * rows and the pruning to the newest `keep`. SQLite: one transaction. PostgreSQL: a read, then one
     * transaction in one hop — the rows locked in id order, the counters guarded by what was read
     * (changed meanwhile: read again), one statement per kind. A ping that would flip its healthcheck (an
     * outage opens or resolves: escalation rows and events) is not for this path: the batch is rolled
     * back, nothing is written, and `'synchronous'` tells the caller to take the synchronous one (also
     * after a few guarded writes lost to concurrent ones on PostgreSQL).
     * @returns per ping, in order, what was stored (null: unknown token), or 'synchronous'
     * @throws (rejects) AppError 503 `store.unavailable` when the database cannot be reached in time
     */
    async recordPings(batch: readonly PingOfBatch[], keep: number, effect: (hc: Healthcheck, ping: Ping) => PingEffect): Promise<Array<RecordedPing | null> | 'synchronous'> {
      const tokens = [...new Set(batch.map((p) => p.token))];
      /** The batch applied to the healthchecks as read: per ping what to store, and the writes. */
      const plan = (rows: readonly Record<string, unknown>[]) => {
        const current = new Map<string, Healthcheck>();
        const read = new Map<number, Healthcheck>();
        for (const row of rows) {
          const hc = toHealthcheck(row as unknown as HealthcheckRow);
          current.set(hc.uuid, hc);
          read.set(hc.id, hc);
        }
        const out: Array<RecordedPing | null> = [];
        const stored: Array<{ healthcheckId: number; stored: StoredPing }> = [];
        const touched = new Set<number>();
        for (const { token, ping } of batch) {
          const hc = current.get(token);
          if (!hc) {
            out.push(null);
            continue;
          }
          const next = effect(hc, ping);
          if (next.flip) throw FLIPS;
          // As countPing: the count, the new status and clock; a start opens a run, the next ping ends it.
          const lastStartAt = ping.kind === 'start' ? ping.at : null;
          const durationMs = ping.kind !== 'start' && hc.lastStartAt !== null ? Math.max(0, ping.at - hc.lastStartAt) : null;
          const row: StoredPing = { ...ping, n: hc.pingsTotal + 1, durationMs };
          const healthcheck: Healthcheck = { ...hc, status: next.status, clockStartAt: next.clockStartAt, lastPingAt: ping.at, lastStartAt, pingsTotal: row.n };
          current.set(token, healthcheck);
          out.push({ stored: row, healthcheck });
          stored.push({ healthcheckId: hc.id, stored: row });
          touched.add(hc.id);
        }
        // Each counted healthcheck as the batch's last ping of it left it, in id order.
        const finals = [...current.values()].filter((h) => touched.has(h.id)).sort((a, b) => a.id - b.id);
        return { out, finals, read, stored };
      };
      try {
        if (lite) {
          // SQLite, the synchronous fast path behind the same promise: read and write in one
          // transaction at once with the store's own prepared statements (nothing interleaves, no guard).
          return db.tx(() => {
            const rows: HealthcheckRow[] = [];
            for (const t of tokens) {
              const row = lite.read(t);
              if (row) rows.push(row);
            }
            const { out, finals, stored } = plan(rows as unknown as Record<string, unknown>[]);
            if (stored.length > 0) lite.write(finals, stored, keep);
            return out;
          });
        }
        // PostgreSQL: no row lock held while a step travels through the event loop (driver.ts,
        // TxSteps): a plain read, then the locks, the guarded counters and the rows in one step.
        for (let attempt = 1; ; attempt++) {
          const rows = await db.txAsync(function* () {
            const [r] = yield { queries: [{ sql: PG_READ, params: [tokens] }], commit: true };
            return r!.rows;
          });
          const { out, finals, read, stored } = plan(rows);
          if (stored.length === 0) return out;
          const writes = batchWrites(finals, read, stored, keep);
          try {
            await db.txAsync(function* () {
              yield { queries: writes, commit: true };
            });
            return out;
          } catch (e) {
            if ((e as { code?: string }).code !== 'store.conflict') throw e;
            // Contended (several instances counting the same healthchecks): after a few tries the
            // synchronous transaction, which locks before it reads.
            if (attempt === CONFLICT_TRIES) return 'synchronous';
          }
        }
      } catch (e) {
        if (e === FLIPS) return 'synchronous';
        throw e;
      }
    },
  };
}
