import type { CheckResult } from '../domain/check.ts';
import { LOCAL_PROBE } from '../domain/probe.ts';
import type { MonitorStatus } from '../domain/monitor.ts';
import type { Db } from './db.ts';

const HOUR_MS = 3_600_000;

/** Check results, their hourly rollups and the flip records. */
export function checksStore(db: Db) {
  // INSERT … SELECT … WHERE EXISTS: a result of a monitor deleted while it sat in the write buffer is
  // dropped instead of failing the whole batch on the foreign key.
  const insertResult = db.prepare(
    `INSERT INTO check_results(monitor_id, at, region, probe, ok, latency_ms, status_code, reason)
     SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM monitors WHERE id = ?)`,
  );
  const upsertRollup = db.prepare(
    `INSERT INTO check_rollups_hourly(monitor_id, hour_start, checks, failures, latency_sum_ms, latency_max_ms)
     SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM monitors WHERE id = ?)
     ON CONFLICT(monitor_id, hour_start) DO UPDATE SET checks = checks + excluded.checks,
       failures = failures + excluded.failures, latency_sum_ms = latency_sum_ms + excluded.latency_sum_ms,
       latency_max_ms = max(latency_max_ms, excluded.latency_max_ms)`,
  );
  // PostgreSQL: one statement per flush for all results and one for all rollups (arrays unnested
  // server-side), so a flush is two round trips through the driver's worker instead of one per row.
  const pg = db.dialect === 'postgres';
  const insertResultsPg = pg
    ? db.prepare(
        `INSERT INTO check_results(monitor_id, at, region, probe, ok, latency_ms, status_code, reason)
         SELECT t.* FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS text[]))
           AS t(monitor_id, at, region, probe, ok, latency_ms, status_code, reason)
         WHERE EXISTS (SELECT 1 FROM monitors m WHERE m.id = t.monitor_id)`,
      )
    : undefined;
  const upsertRollupsPg = pg
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
  const countFor = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM check_results WHERE monitor_id = ?');
  const latest = db.prepare<[number, number], { at: number; region: string; probe: string; ok: number; latency_ms: number; status_code: number; reason: string | null }>(
    `SELECT at, region, coalesce(probe, '${LOCAL_PROBE}') AS probe, ok, latency_ms, status_code, reason FROM check_results WHERE monitor_id = ? ORDER BY at DESC LIMIT ?`,
  );
  const flipsFor = db.prepare<[number], { at: number; status: MonitorStatus; reason: string | null }>(
    'SELECT at, status, reason FROM monitor_flips WHERE monitor_id = ? ORDER BY at, id',
  );
  const lastAt = db.prepare<[number], { at: number | null }>('SELECT max(at) AS at FROM check_results WHERE monitor_id = ?');
  const pruneChunk = db.prepare(
    'DELETE FROM check_results WHERE id IN (SELECT id FROM check_results ORDER BY id LIMIT ?) AND at < ?',
  );

  return {
    /**
     * Inserts results and folds them into the hourly rollups. Call inside a transaction.
     * Cost is one insert per result plus one upsert per (monitor, hour) in the batch.
     */
    insertResults(results: readonly CheckResult[]): void {
      const hours = new Map<string, { monitorId: number; hour: number; checks: number; failures: number; sum: number; max: number }>();
      if (insertResultsPg && results.length) {
        const col = <T>(f: (r: CheckResult) => T) => results.map(f);
        insertResultsPg.run(col((r) => r.monitorId), col((r) => r.at), col((r) => r.region), col((r) => (r.probe === LOCAL_PROBE ? null : r.probe)), col((r) => (r.ok ? 1 : 0)), col((r) => Math.round(r.latencyMs)), col((r) => r.statusCode), col((r) => r.reason));
      }
      for (const r of results) {
        if (!insertResultsPg) insertResult.run(r.monitorId, r.at, r.region, r.probe === LOCAL_PROBE ? null : r.probe, r.ok ? 1 : 0, r.latencyMs, r.statusCode, r.reason, r.monitorId);
        const hour = r.at - (r.at % HOUR_MS);
        const key = `${r.monitorId}:${hour}`;
        let h = hours.get(key);
        if (!h) hours.set(key, (h = { monitorId: r.monitorId, hour, checks: 0, failures: 0, sum: 0, max: 0 }));
        h.checks++;
        if (!r.ok) h.failures++;
        h.sum += r.latencyMs;
        h.max = Math.max(h.max, r.latencyMs);
      }
      if (upsertRollupsPg) {
        if (!hours.size) return;
        const hs = [...hours.values()];
        upsertRollupsPg.run(hs.map((h) => h.monitorId), hs.map((h) => h.hour), hs.map((h) => h.checks), hs.map((h) => h.failures), hs.map((h) => Math.round(h.sum)), hs.map((h) => Math.round(h.max)));
        return;
      }
      for (const h of hours.values()) upsertRollup.run(h.monitorId, h.hour, h.checks, h.failures, h.sum, h.max, h.monitorId);
    },
    /** Records a status change of a monitor. */
    insertFlip(monitorId: number, at: number, status: MonitorStatus, reason: string | null): void {
      insertFlip.run(monitorId, at, status, reason);
    },
    /** Start time of the newest stored result of a monitor (an index seek), or null. */
    lastCheckAt: (monitorId: number): number | null => lastAt.get(monitorId)!.at,
    countResults: (monitorId: number): number => countFor.get(monitorId)!.n,
    latestResults: (monitorId: number, limit: number) => latest.all(monitorId, limit),
    flips: (monitorId: number) => flipsFor.all(monitorId),
    /**
     * Deletes raw results older than `cutoffMs`, oldest rowids first, in chunks of `chunk` rows
     * (rows are appended in time order, so the oldest rowids hold the oldest results).
     * @returns rows deleted by this call (at most `chunk`)
     */
    pruneResultsBefore: (cutoffMs: number, chunk = 5000): number => pruneChunk.run(chunk, cutoffMs).changes,
  };
}

/** The checks store's interface. */
export type ChecksStore = ReturnType<typeof checksStore>;
