import type { Healthcheck, HealthcheckSettings, HealthcheckStatus, PeriodUnit } from '../domain/healthcheck.ts';
import type { Ping, PingEffect, PingKind, StoredPing } from '../domain/ping.ts';
import type { Db } from './db.ts';
import type { Query, TxSteps } from './driver.ts';

interface HealthcheckRow {
  id: number;
  uuid: string;
  public_uuid: string;
  name: string;
  period_value: number | null;
  period_type: string | null;
  cron: string | null;
  timezone: string;
  grace_value: number;
  grace_type: string;
  escalation_policy_uuid: string | null;
  paused: number;
  status: string;
  clock_start_at: number;
  last_ping_at: number | null;
  last_start_at: number | null;
  pings_total: number;
  created_at: number;
  updated_at: number;
}

const toHealthcheck = (r: HealthcheckRow): Healthcheck => ({
  id: r.id,
  uuid: r.uuid,
  publicUuid: r.public_uuid,
  name: r.name,
  periodValue: r.period_value,
  periodType: r.period_type as PeriodUnit | null,
  cron: r.cron,
  timezone: r.timezone,
  graceValue: r.grace_value,
  graceType: r.grace_type as PeriodUnit,
  escalationPolicyUuid: r.escalation_policy_uuid,
  paused: r.paused === 1,
  status: r.status as HealthcheckStatus,
  clockStartAt: r.clock_start_at,
  lastPingAt: r.last_ping_at,
  lastStartAt: r.last_start_at,
  pingsTotal: r.pings_total,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

interface PingRow {
  n: number;
  at: number;
  kind: PingKind;
  exit_code: number | null;
  method: string;
  source_ip: string | null;
  user_agent: string | null;
  body: string | null;
  duration_ms: number | null;
}

const toPing = (r: PingRow): StoredPing => ({
  n: r.n,
  at: r.at,
  kind: r.kind,
  exitCode: r.exit_code,
  method: r.method,
  sourceIp: r.source_ip,
  userAgent: r.user_agent,
  body: r.body,
  durationMs: r.duration_ms,
});

const settingsParams = (s: HealthcheckSettings) => ({
  name: s.name,
  period_value: s.periodValue,
  period_type: s.periodType,
  cron: s.cron,
  timezone: s.timezone,
  grace_value: s.graceValue,
  grace_type: s.graceType,
  escalation_policy_uuid: s.escalationPolicyUuid,
});

/** Rows per multi-row ping INSERT, largest first (64 × 10 parameters stays far below either database's limit). */
const PING_CHUNKS = [64, 16, 4, 1] as const;

/** One ping of a batch for {@link HealthchecksStore.recordPings}: the token it was sent to and the ping. */
export interface PingOfBatch {
  token: string;
  ping: Ping;
}

/** What {@link HealthchecksStore.recordPings} stored for one ping: its row (with its number) and the healthcheck as the ping left it. */
export interface RecordedPing {
  stored: StoredPing;
  healthcheck: Healthcheck;
}

/** Thrown inside a batch's transaction when a ping would flip its healthcheck: the batch is rolled back and goes the synchronous way. */
const FLIPS = Symbol('a ping of the batch flips its healthcheck');

// The batch statements of PostgreSQL (issue 31): one per kind, arrays unnested server-side, as the
// results flush does (store/checks.ts). The rows are locked in id order first, so transactions of
// several instances over the same healthchecks queue behind each other instead of deadlocking.
const PG_LOCK = 'SELECT * FROM healthchecks WHERE uuid = ANY(CAST(? AS text[])) ORDER BY id FOR UPDATE';
const PG_COUNT = `UPDATE healthchecks AS h SET pings_total = x.total, last_ping_at = x.last_ping_at, last_start_at = x.last_start_at,
    status = x.status, clock_start_at = x.clock_start_at
  FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS bigint[]))
    AS x(id, total, last_ping_at, last_start_at, status, clock_start_at)
  WHERE h.id = x.id`;
const PG_INSERT = `INSERT INTO pings(healthcheck_id, n, at, kind, exit_code, method, source_ip, user_agent, body, duration_ms)
  SELECT * FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS bigint[]),
    CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS bigint[]))`;
const PG_PRUNE = 'DELETE FROM pings AS p USING unnest(CAST(? AS bigint[]), CAST(? AS bigint[])) AS x(id, n) WHERE p.healthcheck_id = x.id AND p.n <= x.n';
// SQLite: the same steps one statement per healthcheck (or per chunk of rows), as the synchronous path.
const LITE_READ = 'SELECT * FROM healthchecks WHERE uuid = ?';
const LITE_COUNT = 'UPDATE healthchecks SET pings_total = ?, last_ping_at = ?, last_start_at = ?, status = ?, clock_start_at = ? WHERE id = ?';
const LITE_PRUNE = 'DELETE FROM pings WHERE healthcheck_id = ? AND n <= ?';
const EXISTS = 'SELECT 1 AS one FROM healthchecks WHERE uuid = ?';
const insertPingsSql = (rows: number) =>
  `INSERT INTO pings(healthcheck_id, n, at, kind, exit_code, method, source_ip, user_agent, body, duration_ms)
         VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`;
const LITE_INSERT = new Map(PING_CHUNKS.map((size) => [size, insertPingsSql(size)]));

/** Each counted healthcheck's newest ping number beyond `keep`: what its older rows are pruned up to. */
function pruneTo(pings: ReadonlyArray<{ healthcheckId: number; stored: StoredPing }>, keep: number): Map<number, number> {
  const newest = new Map<number, number>();
  for (const { healthcheckId: id, stored } of pings) if (stored.n > keep && stored.n > (newest.get(id) ?? 0)) newest.set(id, stored.n);
  return new Map([...newest].map(([id, n]) => [id, n - keep]));
}

/** The writes of a counted batch: the healthchecks' final states, the ping rows, the pruning (see {@link HealthchecksStore.recordPings}). */
function batchWrites(db: Db, finals: Healthcheck[], pings: Array<{ healthcheckId: number; stored: StoredPing }>, keep: number): Query[] {
  const prune = pruneTo(pings, keep);
  if (db.dialect === 'postgres') {
    const col = <T>(f: (p: { healthcheckId: number; stored: StoredPing }) => T) => pings.map(f);
    const queries: Query[] = [
      {
        sql: PG_COUNT,
        params: [finals.map((h) => h.id), finals.map((h) => h.pingsTotal), finals.map((h) => h.lastPingAt), finals.map((h) => h.lastStartAt), finals.map((h) => h.status), finals.map((h) => h.clockStartAt)],
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
  const queries: Query[] = finals.map((h) => ({ sql: LITE_COUNT, params: [h.pingsTotal, h.lastPingAt, h.lastStartAt, h.status, h.clockStartAt, h.id] }));
  let i = 0;
  for (const size of PING_CHUNKS) {
    for (; pings.length - i >= size; i += size) {
      const params: unknown[] = [];
      for (let j = i; j < i + size; j++) {
        const { healthcheckId: id, stored: p } = pings[j]!;
        params.push(id, p.n, p.at, p.kind, p.exitCode, p.method, p.sourceIp, p.userAgent, p.body, p.durationMs);
      }
      queries.push({ sql: LITE_INSERT.get(size)!, params });
    }
  }
  for (const [id, n] of prune) queries.push({ sql: LITE_PRUNE, params: [id, n] });
  return queries;
}

/** Healthcheck rows, their pings and flips. All reads return domain types. */
export function healthchecksStore(db: Db) {
  const all = db.prepare<[], HealthcheckRow>('SELECT * FROM healthchecks ORDER BY id');
  const byUuid = db.prepare<[string], HealthcheckRow>('SELECT * FROM healthchecks WHERE uuid = ?');
  const byPublicUuid = db.prepare<[string], HealthcheckRow>('SELECT * FROM healthchecks WHERE public_uuid = ?');
  const byId = db.prepare<[number], HealthcheckRow>('SELECT * FROM healthchecks WHERE id = ?');
  const insert = db.prepare(
    `INSERT INTO healthchecks(uuid, public_uuid, name, period_value, period_type, cron, timezone, grace_value, grace_type,
       escalation_policy_uuid, paused, status, clock_start_at, created_at, updated_at)
     VALUES (@uuid, @public_uuid, @name, @period_value, @period_type, @cron, @timezone, @grace_value, @grace_type,
       @escalation_policy_uuid, 0, 'up', @now, @now, @now)`,
  );
  const update = db.prepare(
    `UPDATE healthchecks SET name=@name, period_value=@period_value, period_type=@period_type, cron=@cron,
       timezone=@timezone, grace_value=@grace_value, grace_type=@grace_type,
       escalation_policy_uuid=@escalation_policy_uuid, updated_at=@now
     WHERE id=@id`,
  );
  const del = db.prepare('DELETE FROM healthchecks WHERE id = ?');
  const setPaused = db.prepare('UPDATE healthchecks SET paused = ?, clock_start_at = ?, updated_at = ? WHERE id = ?');
  const setState = db.prepare('UPDATE healthchecks SET status = ?, clock_start_at = ? WHERE id = ?');
  // SQLite: without RETURNING (about a third of the statement's cost); the number comes from the row
  // read in this transaction, exact because SQLite serializes writers (BEGIN IMMEDIATE). PostgreSQL:
  // RETURNING, as another node may count the same healthcheck concurrently.
  const serializedWriters = db.dialect === 'sqlite';
  const countPing = db.prepare<[number, number | null, string, number, number], { pings_total: number }>(
    `UPDATE healthchecks SET pings_total = pings_total + 1, last_ping_at = ?, last_start_at = ?, status = ?, clock_start_at = ?
     WHERE id = ?${serializedWriters ? '' : ' RETURNING pings_total'}`,
  );
  // Multi-row INSERTs of a batch's pings: one statement per PING_CHUNKS size (largest first), so a
  // batch of n pings takes about n/64 statements instead of n (on PostgreSQL: round trips).
  const insertPings = new Map(PING_CHUNKS.map((size) => [size, db.prepare(LITE_INSERT.get(size)!)]));
  const prunePings = db.prepare(LITE_PRUNE);
  const lockRows = serializedWriters ? null : db.prepare<[string[]], { id: number }>('SELECT id FROM healthchecks WHERE uuid = ANY(CAST(? AS text[])) ORDER BY id FOR UPDATE');
  const latestPings = db.prepare<[number, number], PingRow>('SELECT * FROM pings WHERE healthcheck_id = ? ORDER BY n DESC LIMIT ?');
  const insertFlip = db.prepare('INSERT INTO healthcheck_flips(healthcheck_id, at, status, reason) VALUES (?, ?, ?, ?)');
  const flipsFor = db.prepare<[number], { at: number; status: HealthcheckStatus; reason: string | null }>(
    'SELECT at, status, reason FROM healthcheck_flips WHERE healthcheck_id = ? ORDER BY at, id',
  );

  const one = (r: HealthcheckRow | undefined) => r && toHealthcheck(r);
  return {
    list: (): Healthcheck[] => all.all().map(toHealthcheck),
    get: (uuid: string): Healthcheck | undefined => one(byUuid.get(uuid)),
    getByPublicUuid: (publicUuid: string): Healthcheck | undefined => one(byPublicUuid.get(publicUuid)),
    getById: (id: number): Healthcheck | undefined => one(byId.get(id)),
    /** Inserts a new, active, `up` healthcheck whose clock starts at `now`; returns it as stored. */
    insert(uuid: string, publicUuid: string, s: HealthcheckSettings, now: number): Healthcheck {
      insert.run({ ...settingsParams(s), uuid, public_uuid: publicUuid, now });
      return toHealthcheck(byUuid.get(uuid)!);
    },
    /** Replaces the settings (state and clock are kept); returns it as stored. */
    update(id: number, s: HealthcheckSettings, now: number): Healthcheck {
      update.run({ ...settingsParams(s), id, now });
      return toHealthcheck(byId.get(id)!);
    },
    /** Deletes a healthcheck; its pings, flips and outages go with it (ON DELETE CASCADE). */
    delete(id: number): void {
      del.run(id);
    },
    /** Pauses or resumes; `clockStartAt` is where the period counts from afterwards. */
    setPaused(id: number, paused: boolean, clockStartAt: number, now: number): void {
      setPaused.run(paused ? 1 : 0, clockStartAt, now, id);
    },
    setState(id: number, status: HealthcheckStatus, clockStartAt: number): void {
      setState.run(status, clockStartAt, id);
    },
    /**
     * Counts a ping as the healthcheck's next numbered ping and stores the healthcheck's new state
     * (one UPDATE; on PostgreSQL with RETURNING, where another node may count the same healthcheck
     * concurrently). The ping row itself is written by {@link insertPings}, which must follow in the
     * same transaction (the ingest writes a whole batch's rows at once). A success or fail after a
     * start signal gets the run's `durationMs`. Call inside a transaction, with `hc` as read in it.
     * @returns the ping as it is to be stored (with its number `n`) and the healthcheck as it is now
     */
    countPing(hc: Healthcheck, ping: Ping, next: Pick<Healthcheck, 'status' | 'clockStartAt'>): { stored: StoredPing; healthcheck: Healthcheck } {
      const lastStartAt = ping.kind === 'start' ? ping.at : null;
      const durationMs = ping.kind !== 'start' && hc.lastStartAt !== null ? Math.max(0, ping.at - hc.lastStartAt) : null;
      let n: number;
      if (serializedWriters) {
        countPing.run(ping.at, lastStartAt, next.status, next.clockStartAt, hc.id);
        n = hc.pingsTotal + 1;
      } else n = countPing.get(ping.at, lastStartAt, next.status, next.clockStartAt, hc.id)!.pings_total;
      return { stored: { ...ping, n, durationMs }, healthcheck: { ...hc, ...next, lastPingAt: ping.at, lastStartAt, pingsTotal: n } };
    },
    /**
     * Writes the rows of pings counted by {@link countPing} (multi-row INSERTs), then keeps only the
     * newest `keep` pings of each healthcheck among them. Call inside the same transaction.
     */
    insertPings(pings: ReadonlyArray<{ healthcheckId: number; stored: StoredPing }>, keep: number): void {
      let i = 0;
      for (const size of PING_CHUNKS) {
        const insert = insertPings.get(size)!;
        for (; pings.length - i >= size; i += size) {
          const params: unknown[] = [];
          for (let j = i; j < i + size; j++) {
            const { healthcheckId: id, stored: p } = pings[j]!;
            params.push(id, p.n, p.at, p.kind, p.exitCode, p.method, p.sourceIp, p.userAgent, p.body, p.durationMs);
          }
          insert.run(...params);
        }
      }
      // Pruned after the inserts, by each healthcheck's newest number: one pinged twice in the batch
      // keeps its newest `keep` rows, this batch's included.
      for (const [id, n] of pruneTo(pings, keep)) prunePings.run(id, n);
    },
    /**
     * Locks the healthchecks of `tokens` for the rest of the transaction, in id order (PostgreSQL:
     * `SELECT … ORDER BY id FOR UPDATE`; SQLite: nothing, its writers are serialized). A ping batch
     * takes its rows this way before counting, so concurrent batches of several instances cannot
     * deadlock (issue 31 point 4: two batches counted the same healthchecks in opposite orders).
     */
    lockForPings(tokens: readonly string[]): void {
      lockRows?.all([...new Set(tokens)]);
    },
    /**
     * Stores a batch of pings in one transaction without blocking the event loop (`db.txAsync`; on
     * SQLite synchronously, settled when returned): reads and locks the batch's healthchecks (in id
     * order), applies `effect` (the pure state machine) ping by ping in order, then writes each
     * healthcheck's final count and state, the ping rows and the pruning to the newest `keep` — on
     * PostgreSQL two steps, one statement per kind. A ping that would flip its healthcheck (an
     * outage opens or resolves: escalation rows and events) is not for this path: the batch is rolled
     * back, nothing is written, and `'flips'` tells the caller to take the synchronous one.
     * @returns per ping, in order, what was stored (null: unknown token), or 'flips'
     * @throws (rejects) AppError 503 `store.unavailable` when the database cannot be reached in time
     */
    async recordPings(batch: readonly PingOfBatch[], keep: number, effect: (hc: Healthcheck, ping: Ping) => PingEffect): Promise<Array<RecordedPing | null> | 'flips'> {
      const postgres = !serializedWriters;
      function* steps(): TxSteps<Array<RecordedPing | null>> {
        const tokens = [...new Set(batch.map((p) => p.token))];
        const read = yield { queries: postgres ? [{ sql: PG_LOCK, params: [tokens] }] : tokens.map((t) => ({ sql: LITE_READ, params: [t] })) };
        const current = new Map<string, Healthcheck>();
        for (const r of read) for (const row of r.rows) current.set((row as unknown as HealthcheckRow).uuid, toHealthcheck(row as unknown as HealthcheckRow));
        const out: Array<RecordedPing | null> = [];
        const rows: Array<{ healthcheckId: number; stored: StoredPing }> = [];
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
          const stored: StoredPing = { ...ping, n: hc.pingsTotal + 1, durationMs };
          const healthcheck: Healthcheck = { ...hc, status: next.status, clockStartAt: next.clockStartAt, lastPingAt: ping.at, lastStartAt, pingsTotal: stored.n };
          current.set(token, healthcheck);
          out.push({ stored, healthcheck });
          rows.push({ healthcheckId: hc.id, stored });
          touched.add(hc.id);
        }
        if (rows.length === 0) return out;
        // Each counted healthcheck as the batch's last ping of it left it.
        const finals = [...current.values()].filter((h) => touched.has(h.id)).sort((a, b) => a.id - b.id);
        yield { queries: batchWrites(db, finals, rows, keep), commit: true };
        return out;
      }
      try {
        return await db.txAsync(steps);
      } catch (e) {
        if (e === FLIPS) return 'flips';
        throw e;
      }
    },
    /** True when `uuid` names a healthcheck (one indexed read, without blocking the event loop: `db.txAsync`). */
    async existsAsync(uuid: string): Promise<boolean> {
      return db.txAsync(function* () {
        const [r] = yield { queries: [{ sql: EXISTS, params: [uuid] }], commit: true };
        return r!.rows.length > 0;
      });
    },
    /** The newest pings of a healthcheck, newest first. */
    latestPings: (healthcheckId: number, limit: number): StoredPing[] => latestPings.all(healthcheckId, limit).map(toPing),
    /** Records a status change. */
    insertFlip(healthcheckId: number, at: number, status: HealthcheckStatus, reason: string | null): void {
      insertFlip.run(healthcheckId, at, status, reason);
    },
    flips: (healthcheckId: number) => flipsFor.all(healthcheckId),
  };
}

/** The healthchecks store's interface. */
export type HealthchecksStore = ReturnType<typeof healthchecksStore>;
