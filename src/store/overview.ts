import type { OverviewPageData, OverviewQuery } from '../domain/overview.ts';
import type { Db } from './db.ts';
import { healthchecksStore } from './healthchecks.ts';
import { maintenanceStore } from './maintenance.ts';
import { monitorsStore } from './monitors.ts';

/**
 * The overview's rows as one relation: the status a row shows (`paused`; `pending` until the first
 * check or ping; else the stored `up`/`down`), its last status change (newest flip, else creation) and
 * response time (mean of its newest hourly rollup with checks), so filters, sorts and paging run in
 * SQL and a page reads its own rows only, whatever the number of monitors.
 */
const rowsSql = (lite: boolean) => {
  const held = lite ? 'm.uuid IN (SELECT value FROM json_each(@held))' : 'm.uuid = ANY(CAST(@held AS text[]))';
  return `SELECT 'monitor' AS kind, m.id, m.uuid, m.name, m.url, m.protocol,
      CASE WHEN m.paused = 1 THEN 'paused'
           WHEN m.status = 'up' AND NOT EXISTS (SELECT 1 FROM check_rollups_hourly r WHERE r.monitor_id = m.id) THEN 'pending'
           ELSE m.status END AS st,
      COALESCE((SELECT max(f.at) FROM monitor_flips f WHERE f.monitor_id = m.id), m.created_at) AS changed,
      (SELECT r.latency_sum_ms / r.checks FROM check_rollups_hourly r WHERE r.monitor_id = m.id AND r.checks > 0 ORDER BY r.hour_start DESC LIMIT 1) AS rt,
      CASE WHEN ${held} THEN 1 ELSE 0 END AS maint, m.group_name AS grp
    FROM monitors m
    UNION ALL
    SELECT 'healthcheck', h.id, h.uuid, h.name, '', 'healthcheck',
      CASE WHEN h.paused = 1 THEN 'paused' WHEN h.status = 'down' THEN 'down' WHEN h.last_ping_at IS NULL THEN 'pending' ELSE 'up' END,
      COALESCE((SELECT max(f.at) FROM healthcheck_flips f WHERE f.healthcheck_id = h.id), h.created_at),
      NULL, 0, NULL
    FROM healthchecks h`;
};

const RANK = "CASE st WHEN 'down' THEN 0 WHEN 'pending' THEN 1 WHEN 'up' THEN 2 ELSE 3 END";

/**
 * The console overview's paged read (issue 33 point 5): filter, sort and page in SQL, then the
 * monitors and healthchecks of that page with what their rows need (newest check, outages and
 * maintenance windows of [since, now]), all in one call (one round trip to the store host on
 * PostgreSQL). Cost: one pass over the monitors' index seeks for the order and one for the counts,
 * plus a page's worth of row reads.
 * @param lastCheckAt the checks store's (raw results live in its hourly tables)
 */
export function overviewStore(db: Db, lastCheckAt: (monitorId: number) => number | null) {
  const lite = db.dialect !== 'postgres';
  const monitors = monitorsStore(db);
  const healthchecks = healthchecksStore(db);
  const maintenance = maintenanceStore(db);
  const rows = rowsSql(lite);
  // Names in plain code-point order on both databases (PostgreSQL's default collation ignores punctuation).
  const name = lite ? 'lower(name)' : 'lower(name) COLLATE "C"';
  const counts = db.prepare<[{ held: unknown }], { st: string; n: number; maint: number }>(`SELECT st, count(*) AS n, sum(maint) AS maint FROM (${rows}) x GROUP BY st`);
  const statements = new Map<string, ReturnType<typeof db.prepare<[Record<string, unknown>], { kind: 'monitor' | 'healthcheck'; uuid: string; total: number }>>>();
  const pageOf = (q: OverviewQuery) => {
    const where: string[] = [];
    const params: Record<string, unknown> = { held: lite ? JSON.stringify(q.held) : q.held, limit: q.limit, offset: q.offset };
    if (q.q) {
      where.push("(name LIKE @q ESCAPE '\\' OR url LIKE @q ESCAPE '\\')");
      params.q = `%${q.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    }
    if (q.status === 'maintenance') where.push('maint = 1');
    else if (q.status) {
      where.push('st = @status');
      params.status = q.status;
    }
    if (q.protocol) {
      where.push('protocol = @protocol');
      params.protocol = q.protocol;
    }
    if (q.tag) {
      where.push("kind = 'monitor' AND EXISTS (SELECT 1 FROM monitor_tags mt JOIN tags t ON t.id = mt.tag_id WHERE mt.monitor_id = x.id AND t.name_key = @tag)");
      params.tag = q.tag.toLowerCase();
    }
    if (q.group) {
      where.push('grp = @group');
      params.group = q.group;
    }
    const d = q.dir === 'desc' ? 'DESC' : 'ASC';
    const order = {
      status: `${RANK} ${d}, ${name} ${d}, id ${d}`,
      name: `${name} ${d}, kind ${d}, id ${d}`,
      changed: `changed ${d}, kind ${d}, id ${d}`,
      response: `(rt IS NULL), rt ${d}, ${name} ASC, id ASC`,
    }[q.sort];
    const sql = `SELECT kind, uuid, count(*) OVER () AS total FROM (${rows}) x ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} LIMIT @limit OFFSET @offset`;
    let st = statements.get(sql);
    if (!st) statements.set(sql, (st = db.prepare(sql)));
    return { rows: st.all(params), params };
  };
  const countsOf = (held: string[]): OverviewPageData['counts'] => {
    const c = { up: 0, down: 0, paused: 0, pending: 0, maintenance: 0 };
    for (const r of counts.all({ held: lite ? JSON.stringify(held) : held })) {
      if (r.st in c) c[r.st as 'up'] = Number(r.n);
      c.maintenance += Number(r.maint ?? 0);
    }
    return c;
  };
  return {
    /** Monitors and healthchecks by overview status, and monitors among `held` (uuids in maintenance). */
    counts: countsOf,
    /**
     * One page of the overview (see {@link OverviewQuery}). A page past the end has no items and the
     * true `total`. Rows deleted between the two reads are left out.
     */
    page(q: OverviewQuery): OverviewPageData {
      const { rows: keys } = pageOf(q);
      let total = keys[0]?.total ?? 0;
      if (keys.length === 0 && q.offset > 0) total = pageOf({ ...q, offset: 0, limit: 1 }).rows[0]?.total ?? 0;
      const c = countsOf(q.held);
      const items: OverviewPageData['items'] = [];
      // Outages and windows of the range for every monitor at once: two range reads whose cost follows
      // what happened in the range, where one read per row would be 2 × 50 round trips on PostgreSQL.
      const monitorRows = keys.some((k) => k.kind === 'monitor');
      const outages = monitorRows ? maintenance.outagesBetween(q.since, q.now + 1) : new Map<number, never[]>();
      const windows = monitorRows ? maintenance.windowsBetween(q.since, q.now + 1) : new Map<number, never[]>();
      for (const k of keys) {
        if (k.kind === 'healthcheck') {
          const h = healthchecks.get(k.uuid);
          if (h) items.push({ kind: 'healthcheck', healthcheck: h });
          continue;
        }
        const m = monitors.get(k.uuid);
        if (!m) continue;
        items.push({
          kind: 'monitor',
          monitor: m,
          lastAt: lastCheckAt(m.id),
          outages: outages.get(m.id) ?? [],
          windows: windows.get(m.id) ?? [],
        });
      }
      return { items, total: Number(total), counts: c };
    },
  };
}

/** The overview store's interface. */
export type OverviewStore = ReturnType<typeof overviewStore>;
