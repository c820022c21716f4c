import type { Healthcheck, HealthcheckSettings, HealthcheckStatus, PeriodUnit } from '../domain/healthcheck.ts';
import type { Ping, PingKind, StoredPing } from '../domain/ping.ts';
import type { Db } from './db.ts';
import { HEALTHCHECK_SELECT, LITE_INSERT, LITE_PRUNE, PING_CHUNKS, pingBatch, pruneTo } from './ping-batch.ts';

const EXISTS = 'SELECT 1 AS one FROM healthchecks WHERE uuid = ?';

/** A row of `healthchecks` as both drivers return it. */
export interface HealthcheckRow {
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
  /** 1: down with no open outage (ping-batch.ts HEALTHCHECK_SELECT). */
  reopen: number;
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
  reopen: Number(r.reopen) === 1,
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


/** Healthcheck rows, their pings and flips. All reads return domain types. */
export function healthchecksStore(db: Db) {
  const all = db.prepare<[], HealthcheckRow>(`${HEALTHCHECK_SELECT} ORDER BY h.id`);
  const byUuid = db.prepare<[string], HealthcheckRow>(`${HEALTHCHECK_SELECT} WHERE h.uuid = ?`);
  const byPublicUuid = db.prepare<[string], HealthcheckRow>(`${HEALTHCHECK_SELECT} WHERE h.public_uuid = ?`);
  const byId = db.prepare<[number], HealthcheckRow>(`${HEALTHCHECK_SELECT} WHERE h.id = ?`);
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

  // The batch path's counters: each healthcheck's final state after its pings (store/ping-batch.ts).
  const setCounts = db.prepare('UPDATE healthchecks SET pings_total = ?, last_ping_at = ?, last_start_at = ?, status = ?, clock_start_at = ? WHERE id = ?');
  const writePings = (pings: ReadonlyArray<{ healthcheckId: number; stored: StoredPing }>, keep: number): void => {
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
  };

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
    insertPings: (pings: ReadonlyArray<{ healthcheckId: number; stored: StoredPing }>, keep: number): void => writePings(pings, keep),
    /**
     * Locks the healthchecks of `tokens` for the rest of the transaction, in id order (PostgreSQL:
     * `SELECT … ORDER BY id FOR UPDATE`; SQLite: nothing, its writers are serialized). A ping batch
     * takes its rows this way before counting, so concurrent batches of several instances cannot
     * deadlock (issue 31 point 4: two batches counted the same healthchecks in opposite orders).
     */
    lockForPings(tokens: readonly string[]): void {
      lockRows?.all([...new Set(tokens)]);
    },
    ...pingBatch(
      db,
      toHealthcheck,
      serializedWriters
        ? {
            read: (token) => byUuid.get(token),
            write: (finals, pings, keep) => {
              for (const h of finals) setCounts.run(h.pingsTotal, h.lastPingAt, h.lastStartAt, h.status, h.clockStartAt, h.id);
              writePings(pings, keep);
            },
          }
        : null,
    ),
    /** True when `uuid` names a healthcheck (one indexed read, without blocking the event loop: `db.txAsync`). */
    async existsAsync(uuid: string): Promise<boolean> {
      return db.txAsync(function* () {
        const [r] = yield { queries: [{ sql: EXISTS, params: [uuid] }], commit: true };
        return r!.rows.length > 0;
      });
    },
    /**
     * The healthchecks of `uuids` (secret `tok_` uuids) that exist, in no particular order, without
     * blocking the event loop: on PostgreSQL one statement (`uuid = ANY(…)`) through `db.txAsync`; on
     * SQLite indexed reads at once (settled promise). What a follower re-reads relayed changes with.
     * @throws (rejects) AppError 503 `store.unavailable` when the database cannot be reached in time
     */
    async getManyAsync(uuids: readonly string[]): Promise<Healthcheck[]> {
      if (serializedWriters) return uuids.flatMap((u) => one(byUuid.get(u)) ?? []);
      const list = [...uuids];
      const rows = await db.txAsync(function* () {
        const [r] = yield { queries: [{ sql: `${HEALTHCHECK_SELECT} WHERE h.uuid = ANY(CAST(? AS text[]))`, params: [list] }], commit: true };
        return r!.rows;
      });
      return rows.map((r) => toHealthcheck(r as unknown as HealthcheckRow));
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
