import type { CheckResult, StoredResult } from '../domain/check.ts';
import { LOCAL_PROBE } from '../domain/probe.ts';
import type { MonitorStatus } from '../domain/monitor.ts';
import type { Db } from './db.ts';
import { CODE_BASE, HOUR_MS, ResultHours, type HourStatements } from './results-hours.ts';

/**
 * Check results, their hourly rollups and the flip records. Raw results live in one WITHOUT ROWID table
 * per UTC hour (migration 0016, src/store/results-hours.ts): a row is (monitor_id, ms into the hour,
 * context id, latency, status − 200), ~15 B, and what repeats (ok, region, probe, reason) is stored once in
 * `check_contexts`. Every stored result has its hourly rollup (same transaction), which is how reads find
 * the newest hour of a monitor without visiting every hour.
 */
export function checksStore(db: Db) {
  const hours = new ResultHours(db);
  const upsertRollup = db.prepare(
    `INSERT INTO check_rollups_hourly(monitor_id, hour_start, checks, failures, latency_sum_ms, latency_max_ms)
     SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM monitors WHERE id = ?)
     ON CONFLICT(monitor_id, hour_start) DO UPDATE SET checks = checks + excluded.checks,
       failures = failures + excluded.failures, latency_sum_ms = latency_sum_ms + excluded.latency_sum_ms,
       latency_max_ms = max(latency_max_ms, excluded.latency_max_ms)`,
  );
  // PostgreSQL: the rollups of a flush in one statement (arrays unnested server-side): one round trip.
  const upsertRollupsPg =
    db.dialect === 'postgres'
      ? db.prepare(
          `INSERT INTO check_rollups_hourly AS r(monitor_id, hour_start, checks, failures, latency_sum_ms, latency_max_ms)
           SELECT t.* FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[]))
             AS t(monitor_id, hour_start, checks, failures, latency_sum_ms, latency_max_ms)
           WHERE EXISTS (SELECT 1 FROM monitors m WHERE m.id = t.monitor_id)
           ON CONFLICT(monitor_id, hour_start) DO UPDATE SET checks = r.checks + excluded.checks,
             failures = r.failures + excluded.failures, latency_sum_ms = r.latency_sum_ms + excluded.latency_sum_ms,
             latency_max_ms = greatest(r.latency_max_ms, excluded.latency_max_ms)`,
        )
      : undefined;
  const insertFlip = db.prepare('INSERT INTO monitor_flips(monitor_id, at, status, reason) VALUES (?, ?, ?, ?)');
  const flipsFor = db.prepare<[number], { at: number; status: MonitorStatus; reason: string | null }>(
    'SELECT at, status, reason FROM monitor_flips WHERE monitor_id = ? ORDER BY at, id',
  );
  const newestHourOf = db.prepare<[number], { h: number | null }>('SELECT max(hour_start) AS h FROM check_rollups_hourly WHERE monitor_id = ?');
  const newestHour = { get: (monitorId: number): number | null => newestHourOf.get(monitorId)?.h ?? null };
  const newestHours = db.prepare<[], { id: number; h: number | null }>(
    'SELECT m.id, (SELECT max(hour_start) FROM check_rollups_hourly WHERE monitor_id = m.id) AS h FROM monitors m',
  );
  // The same for a list of monitor ids (one page of the console's overview).
  const newestHoursOf = db.prepare<[unknown], { id: number; h: number | null }>(
    db.dialect === 'postgres'
      ? 'SELECT j.id, (SELECT max(hour_start) FROM check_rollups_hourly WHERE monitor_id = j.id) AS h FROM unnest(CAST(? AS bigint[])) AS j(id)'
      : 'SELECT j.value AS id, (SELECT max(hour_start) FROM check_rollups_hourly WHERE monitor_id = j.value) AS h FROM json_each(?) j',
  );
  const monitorExistsOf = db.prepare<[number], { x: number }>('SELECT 1 AS x FROM monitors WHERE id = ?');
  const monitorExists = { get: (monitorId: number): boolean => monitorExistsOf.get(monitorId) !== undefined };
  const findContext = db.prepare<[number, string, string | null, string | null], { id: number; last_hour: number }>(
    'SELECT id, last_hour FROM check_contexts WHERE ok = ? AND region = ? AND probe IS ? AND reason IS ?',
  );
  const addContext = db.prepare<[number, string, string | null, string | null, number], { id: number }>('INSERT INTO check_contexts(ok, region, probe, reason, last_hour) VALUES (?, ?, ?, ?, ?) RETURNING id');
  const touchContext = db.prepare('UPDATE check_contexts SET last_hour = ? WHERE id = ? AND last_hour < ?');
  const contextById = db.prepare<[number], { ok: number; region: string; probe: string | null; reason: string | null }>(
    'SELECT ok, region, probe, reason FROM check_contexts WHERE id = ?',
  );
  const pruneContexts = db.prepare('DELETE FROM check_contexts WHERE last_hour < ?');

  /** The context id of (ok, region, probe, reason), added or marked used in `hour`; `seen` caches per batch (rolled-back ids never outlive it). */
  const contextId = (seen: Map<string, number>, ok: number, region: string, probe: string | null, reason: string | null, hour: number): number => {
    const key = JSON.stringify([ok, region, probe, reason, hour]);
    let id = seen.get(key);
    if (id === undefined) {
      const row = findContext.get(ok, region, probe, reason);
      if (row) {
        id = row.id;
        if (row.last_hour < hour) touchContext.run(hour, id, hour);
      } else id = addContext.get(ok, region, probe, reason, hour)!.id;
      seen.set(key, id);
    }
    return id;
  };

  /**
   * PostgreSQL: each hour's rows in one INSERT … SELECT FROM unnest … ON CONFLICT DO NOTHING RETURNING;
   * a row not stored (its monitor deleted meanwhile, or an exact repeat) takes SQLite's path one by one:
   * dropped when the monitor is gone, else stored 1 ms later.
   */
  const insertPendingPg = (
    pending: Array<{ r: CheckResult; hourNo: number; t: number; ctx: number; code: number; stmts: HourStatements }>,
    count: (r: CheckResult, hourNo: number) => void,
  ) => {
    const byHour = new Map<number, typeof pending>();
    for (const p of pending) {
      const list = byHour.get(p.hourNo);
      if (list) list.push(p);
      else byHour.set(p.hourNo, [p]);
    }
    for (const [hourNo, rows] of byHour) {
      const stmts = rows[0]!.stmts;
      const lat = (p: (typeof rows)[number]) => Math.round(p.r.latencyMs);
      const stored = stmts.insertMany!.all(rows.map((p) => p.r.monitorId), rows.map((p) => p.t), rows.map((p) => p.ctx), rows.map(lat), rows.map((p) => p.code));
      const left = new Map<string, number>();
      for (const s of stored) {
        const k = `${s.monitor_id}:${s.t}:${s.ctx}:${s.latency_ms}:${s.code}`;
        left.set(k, (left.get(k) ?? 0) + 1);
      }
      for (const p of rows) {
        const k = `${p.r.monitorId}:${p.t}:${p.ctx}:${lat(p)}:${p.code}`;
        const n = left.get(k) ?? 0;
        if (n > 0) {
          left.set(k, n - 1);
          count(p.r, hourNo);
          continue;
        }
        if (!monitorExists.get(p.r.monitorId)) continue;
        let t = p.t;
        while (stmts.insert.run(p.r.monitorId, ++t, p.ctx, lat(p), p.code, p.r.monitorId).changes === 0);
        count(p.r, hourNo);
      }
    }
  };

  /** Newest-first results of a monitor from its newest hour down, at most `limit`. */
  const latest = (monitorId: number, limit: number): StoredResult[] => {
    const top = newestHour.get(monitorId);
    if (top == null || limit <= 0) return [];
    const out: StoredResult[] = [];
    const contexts = new Map<number, { ok: number; region: string; probe: string | null; reason: string | null }>();
    for (const h of hours.hoursDownFrom(top / HOUR_MS)) {
      for (const r of hours.of(h).latest.all(monitorId, limit - out.length)) {
        let c = contexts.get(r.ctx);
        if (!c) contexts.set(r.ctx, (c = contextById.get(r.ctx) ?? { ok: 0, region: '', probe: null, reason: null }));
        out.push({ at: h * HOUR_MS + r.t, region: c.region, probe: c.probe ?? LOCAL_PROBE, ok: c.ok, latency_ms: r.latency_ms, status_code: r.code + CODE_BASE, reason: c.reason });
      }
      if (out.length >= limit) break;
    }
    return out;
  };

  /** Start time of the newest stored result of a monitor, looking from its newest rollup hour down. */
  const lastCheckAt = (monitorId: number): number | null => {
    const top = newestHour.get(monitorId);
    if (top == null) return null;
    for (const h of hours.hoursDownFrom(top / HOUR_MS)) {
      const t = hours.of(h).newest.get(monitorId)!.t;
      if (t !== null) return h * HOUR_MS + t;
    }
    return null;
  };

  return {
    /**
     * Inserts results and folds them into the hourly rollups. Call inside a transaction.
     * Cost is one insert per result plus one upsert per (monitor, hour) and one context lookup per
     * distinct (ok, region, probe, reason, hour) in the batch. Creates an hour's table on its first result.
     * Two results identical in every stored field (same monitor, millisecond, region, probe, outcome,
     * latency, status) cannot share a key: the repeat is stored 1 ms later, so none is lost.
     */
    insertResults(results: readonly CheckResult[]): void {
      const rollups = new Map<string, { monitorId: number; hour: number; checks: number; failures: number; sum: number; max: number }>();
      const seen = new Map<string, number>();
      const ensured = new Map<number, HourStatements>();
      const pending: Array<{ r: CheckResult; hourNo: number; t: number; ctx: number; code: number; stmts: HourStatements }> = [];
      const count = (r: CheckResult, hourNo: number) => {
        const hour = hourNo * HOUR_MS;
        const key = `${r.monitorId}:${hour}`;
        let h = rollups.get(key);
        if (!h) rollups.set(key, (h = { monitorId: r.monitorId, hour, checks: 0, failures: 0, sum: 0, max: 0 }));
        h.checks++;
        if (!r.ok) h.failures++;
        h.sum += r.latencyMs;
        h.max = Math.max(h.max, r.latencyMs);
      };
      for (const r of results) {
        const hourNo = Math.floor(r.at / HOUR_MS);
        const ok = r.ok ? 1 : 0;
        const ctx = contextId(seen, ok, r.region, r.probe === LOCAL_PROBE ? null : r.probe, r.reason, hourNo);
        let stmts = ensured.get(hourNo);
        if (!stmts) ensured.set(hourNo, (stmts = hours.ensure(hourNo)));
        let t = r.at - hourNo * HOUR_MS;
        const code = r.statusCode - CODE_BASE;
        if (stmts.insertMany) {
          // PostgreSQL: rows go in one statement per hour below; a refused row falls back to this loop there.
          pending.push({ r, hourNo, t, ctx, code, stmts });
          continue;
        }
        if (stmts.insert.run(r.monitorId, t, ctx, r.latencyMs, code, r.monitorId).changes === 0) {
          if (!monitorExists.get(r.monitorId)) continue;
          while (stmts.insert.run(r.monitorId, ++t, ctx, r.latencyMs, code, r.monitorId).changes === 0);
        }
        count(r, hourNo);
      }
      if (pending.length) insertPendingPg(pending, count);
      if (upsertRollupsPg) {
        const hs = [...rollups.values()];
        if (hs.length) upsertRollupsPg.run(hs.map((h) => h.monitorId), hs.map((h) => h.hour), hs.map((h) => h.checks), hs.map((h) => h.failures), hs.map((h) => Math.round(h.sum)), hs.map((h) => Math.round(h.max)));
        return;
      }
      for (const h of rollups.values()) upsertRollup.run(h.monitorId, h.hour, h.checks, h.failures, h.sum, h.max, h.monitorId);
    },
    /** Records a status change of a monitor. */
    insertFlip(monitorId: number, at: number, status: MonitorStatus, reason: string | null): void {
      insertFlip.run(monitorId, at, status, reason);
    },
    /** Start time (epoch ms) of the newest stored result of a monitor (two or three index seeks), or null. */
    lastCheckAt,
    /**
     * {@link lastCheckAt} of every monitor (or of `ids` only), in one statement per hour visited (one
     * for almost all monitors: the newest hour), for lists such as the console's overview.
     * @returns monitor id → epoch ms; monitors without a stored result are absent
     */
    lastCheckAts(ids?: readonly number[]): Map<number, number> {
      const out = new Map<number, number>();
      const byHour = new Map<number, number[]>();
      if (ids?.length === 0) return out;
      for (const r of ids ? newestHoursOf.iterate(db.dialect === 'postgres' ? ids : JSON.stringify(ids)) : newestHours.iterate()) {
        if (r.h === null) continue;
        const h = r.h / HOUR_MS;
        const list = byHour.get(h);
        if (list) list.push(r.id);
        else byHour.set(h, [r.id]);
      }
      for (const [h, ids] of byHour) {
        const missing: number[] = [];
        if (hours.hours().includes(h)) {
          for (const r of hours.of(h).newestOf.iterate(db.dialect === 'postgres' ? ids : JSON.stringify(ids))) {
            if (r.t === null) missing.push(r.id);
            else out.set(r.id, h * HOUR_MS + r.t);
          }
        } else missing.push(...ids);
        for (const id of missing) {
          const at = lastCheckAt(id);
          if (at !== null) out.set(id, at);
        }
      }
      return out;
    },
    /** Stored results of a monitor (every hour's table: for tests and tools, not hot paths). */
    countResults: (monitorId: number): number => hours.hours().reduce((n, h) => n + hours.of(h).count.get(monitorId)!.n, 0),
    /** The newest `limit` results of a monitor, newest first. */
    latestResults: latest,
    flips: (monitorId: number) => flipsFor.all(monitorId),
    /**
     * Hours whose table can go at a prune with this cutoff: those that ended at or before `cutoffMs`
     * (a result is deleted once its whole hour is past the retention: retention rounds up to the hour).
     */
    expiredHours: (cutoffMs: number): number[] => hours.hours().filter((h) => (h + 1) * HOUR_MS <= cutoffMs),
    /**
     * Drops one hour's results whole. Call inside a transaction.
     * @param hour floor(epoch ms / 3,600,000)
     * @returns results it held
     */
    dropHour: (hour: number): number => hours.drop(hour),
    /** Deletes the contexts no remaining hour uses (newest use before the oldest hour left). Call inside a transaction. */
    pruneContexts(): number {
      const oldest = hours.hours()[0];
      return oldest === undefined ? pruneContexts.run(Number.MAX_SAFE_INTEGER).changes : pruneContexts.run(oldest).changes;
    },
  };
}

/** The checks store's interface. */
export type ChecksStore = ReturnType<typeof checksStore>;
