import { beatState, slowAfterMs, type Heartbeat, type LandedResult } from '../domain/heartbeat.ts';
import type { Interval } from '../domain/report.ts';
import type { Db } from './db.ts';
import type { Statement } from './driver.ts';
import { maintenanceStore } from './maintenance.ts';
import { HOUR_MS, ResultHours } from './results-hours.ts';

type Row = { id: number; uuid: string; settings: string; h: number | null };


/**
 * Heartbeats (issue 33 point 2): the newest checks of a page of monitors, read in one call, from the
 * hourly results tables (migration 0016) newest hour first. Per hour visited, one statement for every
 * monitor of the page that still wants bars (a window function keeps each monitor's newest `limit`),
 * so a page of 100 monitors checked every minute costs two or three statements, not one per monitor.
 */
export function heartbeatsStore(db: Db) {
  const lite = db.dialect !== 'postgres';
  const hours = new ResultHours(db);
  const maintenance = maintenanceStore(db);
  const cols = `m.id, m.uuid, m.settings, (SELECT max(r.hour_start) FROM check_rollups_hourly r WHERE r.monitor_id = m.id) AS h FROM monitors m`;
  const byUuid = db.prepare<[string | string[]], Row>(lite ? `SELECT ${cols} WHERE m.uuid IN (SELECT value FROM json_each(?))` : `SELECT ${cols} WHERE m.uuid = ANY(CAST(? AS text[]))`);
  const byId = db.prepare<[string | number[]], Omit<Row, 'h'>>(
    lite ? 'SELECT m.id, m.uuid, m.settings FROM monitors m WHERE m.id IN (SELECT value FROM json_each(?))' : 'SELECT m.id, m.uuid, m.settings FROM monitors m WHERE m.id = ANY(CAST(? AS bigint[]))',
  );
  const context = db.prepare<[number], { ok: number; region: string }>('SELECT ok, region FROM check_contexts WHERE id = ?');
  /** Per hour: each listed monitor's newest `limit` rows of that hour, packed as `t:ctx:latency,…` (one row a monitor). */
  const perHour = new Map<number, Statement<[number, string | number[]], { monitor_id: number; packed: string | null }>>();
  const newestOf = (hour: number) => {
    let s = perHour.get(hour);
    if (!s) {
      // Each monitor's newest rows by its key (monitor_id, t, …): at most `limit` rows read a monitor,
      // packed into one text per monitor, so a page of 100 monitors is 100 rows to carry, not 5,000
      // (measured at 10,000 monitors on SQLite, a page of 100: 5–9 ms with a window function over the rows, 3–5 ms so).
      const rows = `SELECT t, ctx, latency_ms FROM check_results_h${hour} WHERE monitor_id = j.id ORDER BY t DESC LIMIT CAST(? AS integer)`;
      s = db.prepare(
        lite
          ? `SELECT j.id AS monitor_id, (SELECT group_concat(t || ':' || ctx || ':' || latency_ms, ',') FROM (${rows})) AS packed FROM (SELECT value AS id FROM json_each(?)) j`
          : `SELECT j.id AS monitor_id, (SELECT string_agg(x.t || ':' || x.ctx || ':' || x.latency_ms, ',') FROM (${rows}) x) AS packed FROM unnest(CAST(? AS bigint[])) AS j(id)`,
      );
      perHour.set(hour, s);
    }
    return s;
  };
  /** Per hour: one monitor's rows with `t` (ms into the hour) in [from, to). */
  const ranged = new Map<number, Statement<[number, number, number], { t: number; ctx: number; latency_ms: number }>>();
  const rowsOf = (hour: number) => {
    let s = ranged.get(hour);
    if (!s) ranged.set(hour, (s = db.prepare(`SELECT t, ctx, latency_ms FROM check_results_h${hour} WHERE monitor_id = ? AND t >= ? AND t < ?`)));
    return s;
  };
  const list = (ids: number[]) => (lite ? JSON.stringify(ids) : ids);
  const windowsOf = (ids: number[], from: number, to: number): Map<number, Interval[]> => (ids.length === 0 ? new Map() : maintenance.windowsBetween(from, to));

  return {
    /**
     * The newest `limit` checks of each monitor named (oldest first, as the bars are drawn), with each
     * check's state (src/domain/heartbeat.ts `beatState`: maintenance windows, failures, the http
     * degraded threshold). Monitors unknown or never checked get an empty list; results older than the
     * retention (the hourly tables dropped) are not there.
     * @param uuids monitor uuids (a page of the overview, or one monitor)
     * @param now epoch ms (maintenance windows are read up to it)
     * @returns uuid → heartbeats, oldest first
     */
    recent(uuids: string[], limit: number, now: number): Map<string, Heartbeat[]> {
      const out = new Map<string, Heartbeat[]>();
      if (uuids.length === 0 || limit <= 0) return out;
      const mons = byUuid.all(lite ? JSON.stringify(uuids) : uuids);
      const raw = new Map<number, Array<{ at: number; ctx: number; latencyMs: number }>>();
      for (const m of mons) {
        out.set(m.uuid, []);
        if (m.h !== null) raw.set(m.id, []);
      }
      const newest = new Map(mons.filter((m) => m.h !== null).map((m) => [m.id, Number(m.h) / HOUR_MS]));
      const all = hours.hours();
      const live = new Set(all);
      for (const h of perHour.keys()) if (!live.has(h)) perHour.delete(h);
      for (let i = all.length - 1; i >= 0 && newest.size > 0; i--) {
        const hour = all[i]!;
        const want = [...newest].filter(([, top]) => top >= hour).map(([id]) => id);
        if (want.length === 0) continue;
        for (const r of newestOf(hour).all(limit, list(want))) {
          if (!r.packed) continue;
          const got = raw.get(Number(r.monitor_id))!;
          for (const row of r.packed.split(',')) {
            const [t, ctx, ms] = row.split(':');
            got.push({ at: hour * HOUR_MS + Number(t), ctx: Number(ctx), latencyMs: Number(ms) });
          }
        }
        for (const id of want) {
          const got = raw.get(id)!;
          if (got.length >= limit) newest.delete(id);
        }
      }
      const contexts = new Map<number, { ok: number; region: string }>();
      const ctx = (id: number) => {
        let c = contexts.get(id);
        if (!c) contexts.set(id, (c = context.get(id) ?? { ok: 0, region: '' }));
        return c;
      };
      let oldest = now;
      for (const list of raw.values()) {
        // Hours were visited newest first and rows come in no set order within an hour.
        list.sort((a, b) => b.at - a.at);
        list.length = Math.min(list.length, limit);
        if (list.length) oldest = Math.min(oldest, list[list.length - 1]!.at);
      }
      const windows = windowsOf([...raw.keys()], oldest, now + 1);
      for (const m of mons) {
        const list = raw.get(m.id);
        if (!list) continue;
        const slow = slowAfterMs(JSON.parse(m.settings) as Record<string, unknown>);
        const w = windows.get(m.id) ?? [];
        out.set(
          m.uuid,
          list.reverse().map((r) => {
            const c = ctx(r.ctx);
            return { at: r.at, latencyMs: r.latencyMs, region: c.region, state: beatState(c.ok === 1, r.latencyMs, r.at, slow, w) };
          }),
        );
      }
      return out;
    },
    /**
     * Results that just landed as heartbeats of their monitors (the live stream): the same states as
     * {@link recent}; results of monitors deleted meanwhile are left out.
     * @returns in the order given, each with its monitor's uuid
     */
    landed(results: LandedResult[], now: number): Array<{ uuid: string; beat: Heartbeat }> {
      if (results.length === 0) return [];
      const ids = [...new Set(results.map((r) => r.monitorId))];
      const mons = new Map(byId.all(list(ids)).map((m) => [Number(m.id), { uuid: m.uuid, slow: slowAfterMs(JSON.parse(m.settings) as Record<string, unknown>) }]));
      let from = Infinity; // a loop, not Math.min(...): a storm's batch can exceed the arguments a call takes
      for (const r of results) if (r.at < from) from = r.at;
      const windows = windowsOf(ids, from, now + 1);
      const out: Array<{ uuid: string; beat: Heartbeat }> = [];
      for (const r of results) {
        const m = mons.get(r.monitorId);
        if (m) out.push({ uuid: m.uuid, beat: { at: r.at, latencyMs: Math.round(r.latencyMs), region: r.region, state: beatState(r.ok, r.latencyMs, r.at, m.slow, windows.get(r.monitorId) ?? []) } });
      }
      return out;
    },
    /**
     * A monitor's response times in [`from`, `to`) per region (the monitor page's chart, issue 33
     * point 2), from the raw results: the mean latency of each `bucketMs` bucket that has checks,
     * failures included (a timeout is a long response). Meant for an hour or a day (the 7 and 30 day
     * charts read the hourly rollups instead).
     * @returns one series per region, by name; points `[bucket start ms, mean ms]`, oldest first
     */
    latencyByRegion(monitorId: number, from: number, to: number, bucketMs: number): Array<{ region: string; points: Array<[number, number]> }> {
      const sums = new Map<string, Map<number, [number, number]>>();
      const contexts = new Map<number, string>();
      const all = hours.hours();
      const live = new Set(all);
      for (const h of ranged.keys()) if (!live.has(h)) ranged.delete(h);
      for (const hour of all) {
        if ((hour + 1) * HOUR_MS <= from || hour * HOUR_MS >= to) continue;
        const base = hour * HOUR_MS;
        for (const r of rowsOf(hour).all(monitorId, from - base, to - base)) {
          const ctx = Number(r.ctx);
          let region = contexts.get(ctx);
          if (region === undefined) contexts.set(ctx, (region = context.get(ctx)?.region ?? ''));
          const at = base + Number(r.t);
          const bucket = from + Math.floor((at - from) / bucketMs) * bucketMs;
          let byBucket = sums.get(region);
          if (!byBucket) sums.set(region, (byBucket = new Map()));
          const s = byBucket.get(bucket);
          if (s) {
            s[0] += Number(r.latency_ms);
            s[1]++;
          } else byBucket.set(bucket, [Number(r.latency_ms), 1]);
        }
      }
      return [...sums]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([region, byBucket]) => ({ region, points: [...byBucket].sort((a, b) => a[0] - b[0]).map(([t, [sum, n]]): [number, number] => [t, Math.round(sum / n)]) }));
    },
  };
}

/** The heartbeats store's interface. */
export type HeartbeatsStore = ReturnType<typeof heartbeatsStore>;
