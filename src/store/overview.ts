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
const rowsSql = (lite: boolean, cols: { changed: boolean; rt: boolean } = { changed: true, rt: true }) => {
  const held = lite ? 'm.uuid IN (SELECT value FROM json_each(@held))' : 'm.uuid = ANY(CAST(@held AS text[]))';
  return `SELECT 'monitor' AS kind, m.id, m.uuid, m.name, m.url, m.protocol,
      CASE WHEN m.paused = 1 THEN 'paused'
           WHEN m.status = 'up'${lite ? ' AND m.id NOT IN (SELECT value FROM json_each(@checked))' : ''} AND NOT EXISTS (SELECT 1 FROM check_rollups_hourly r WHERE r.monitor_id = m.id) THEN 'pending'
           ELSE m.status END AS st,
      ${cols.changed ? 'COALESCE((SELECT max(f.at) FROM monitor_flips f WHERE f.monitor_id = m.id), m.created_at)' : 'NULL'} AS changed,
      ${cols.rt ? '(SELECT r.latency_sum_ms / r.checks FROM check_rollups_hourly r WHERE r.monitor_id = m.id AND r.checks > 0 ORDER BY r.hour_start DESC LIMIT 1)' : 'NULL'} AS rt,
      CASE WHEN ${held} THEN 1 ELSE 0 END AS maint, m.group_name AS grp
    FROM monitors m
    UNION ALL
    SELECT 'healthcheck', h.id, h.uuid, h.name, '', 'healthcheck',
      CASE WHEN h.paused = 1 THEN 'paused' WHEN h.status = 'down' THEN 'down' WHEN h.last_ping_at IS NULL THEN 'pending' ELSE 'up' END,
      ${cols.changed ? 'COALESCE((SELECT max(f.at) FROM healthcheck_flips f WHERE f.healthcheck_id = h.id), h.created_at)' : 'NULL'},
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
 * @param lastCheckAts the checks store's (raw results live in its hourly tables): newest check by monitor id of `ids`
 */
export function overviewStore(db: Db, lastCheckAts: (ids: number[]) => Map<number, number>) {
  const lite = db.dialect !== 'postgres';
  const monitors = monitorsStore(db);
  const healthchecks = healthchecksStore(db);
  const maintenance = maintenanceStore(db);
  // The counts need neither the last change nor the response time (each a seek per row); a page only the one it sorts by.
  const bare = rowsSql(lite, { changed: false, rt: false });
  // Names in plain code-point order on both databases (PostgreSQL's default collation ignores punctuation).
  const name = lite ? 'lower(name)' : 'lower(name) COLLATE "C"';
  type Stmt<R> = ReturnType<typeof db.prepare<[Record<string, unknown>], R>>;
  const statements = new Map<string, Stmt<unknown>>();
  const prepared = <R>(sql: string): Stmt<R> => {
    let st = statements.get(sql);
    if (!st) statements.set(sql, (st = db.prepare(sql)));
    return st as Stmt<R>;
  };
  /** The filter of `q` as SQL over the rows relation, with its parameters. */
  const filterOf = (q: Pick<OverviewQuery, 'q' | 'status' | 'protocol' | 'tag' | 'group' | 'held' | 'checked'>) => {
    const where: string[] = [];
    const params: Record<string, unknown> = lite ? { held: JSON.stringify(q.held), checked: JSON.stringify(q.checked ?? []) } : { held: q.held };
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
    return { sql: where.length ? where.join(' AND ') : '', params };
  };
  /** Counts by status over everything and, in the same pass, how many rows match the filter. */
  const tally = (q: Pick<OverviewQuery, 'q' | 'status' | 'protocol' | 'tag' | 'group' | 'held' | 'checked'>) => {
    const f = filterOf(q);
    const matching = f.sql ? `sum(CASE WHEN ${f.sql} THEN 1 ELSE 0 END)` : 'count(*)';
    const c = { up: 0, down: 0, paused: 0, pending: 0, maintenance: 0 };
    let total = 0;
    for (const r of prepared<{ st: string; n: number; maint: number; matching: number }>(`SELECT st, count(*) AS n, sum(maint) AS maint, ${matching} AS matching FROM (${bare}) x GROUP BY st`).all(f.params)) {
      if (r.st in c) c[r.st as 'up'] = Number(r.n);
      c.maintenance += Number(r.maint ?? 0);
      total += Number(r.matching ?? 0);
    }
    return { counts: c, total };
  };
  const pageOf = (q: OverviewQuery) => {
    const f = filterOf(q);
    const d = q.dir === 'desc' ? 'DESC' : 'ASC';
    const order = {
      status: `${RANK} ${d}, ${name} ${d}, id ${d}`,
      name: `${name} ${d}, kind ${d}, id ${d}`,
      changed: `changed ${d}, kind ${d}, id ${d}`,
      // One expression (the subquery read once a row), monitors without a response time last either way.
      response: `coalesce(rt, ${q.dir === 'desc' ? '-1' : '9000000000000000'}) ${d}, ${name} ASC, id ASC`,
    }[q.sort];
    // One pass over the monitors: the rows relation is read once (its per-monitor seeks into the
    // rollups are the page's cost at 10,000 monitors), materialized with the columns this order needs;
    // the counts over everything and the filter's total are window sums over it, then the filter and the page.
    const extra = q.sort === 'changed' ? ', changed' : q.sort === 'response' ? ', rt' : '';
    const sum = (cond: string) => `sum(CASE WHEN ${cond} THEN 1 ELSE 0 END) OVER ()`;
    const sql = `WITH y AS MATERIALIZED (SELECT kind, id, uuid, name, st, maint${extra}, ${f.sql ? `CASE WHEN ${f.sql} THEN 1 ELSE 0 END` : '1'} AS hit FROM (${rowsSql(lite, { changed: q.sort === 'changed', rt: q.sort === 'response' })}) x)
      SELECT kind, uuid, n_up, n_down, n_paused, n_pending, n_maint, total FROM (
        SELECT y.*, ${sum("st = 'up'")} AS n_up, ${sum("st = 'down'")} AS n_down, ${sum("st = 'paused'")} AS n_paused, ${sum("st = 'pending'")} AS n_pending,
          sum(maint) OVER () AS n_maint, sum(hit) OVER () AS total FROM y
      ) z WHERE hit = 1 ORDER BY ${order} LIMIT @limit OFFSET @offset`;
    return prepared<{ kind: 'monitor' | 'healthcheck'; uuid: string; n_up: number; n_down: number; n_paused: number; n_pending: number; n_maint: number; total: number }>(sql).all({ ...f.params, limit: q.limit, offset: q.offset });
  };
  return {
    /** Monitors and healthchecks by overview status, and monitors among `held` (uuids in maintenance); `checked` as {@link OverviewQuery.checked}. */
    counts: (held: string[], checked: number[] = []): OverviewPageData['counts'] => tally({ q: '', status: '', protocol: '', tag: '', group: '', held, checked }).counts,
    /**
     * One page of the overview (see {@link OverviewQuery}) with the counts and the filter's total (one
     * grouped pass). A page past the end has no items and the true `total`. Rows deleted between the
     * reads are left out.
     */
    page(q: OverviewQuery): OverviewPageData {
      const keys = pageOf(q);
      const first = keys[0];
      // A page past the end has no row to carry the counts: read them apart (rare).
      const { counts: c, total } = first
        ? { counts: { up: Number(first.n_up), down: Number(first.n_down), paused: Number(first.n_paused), pending: Number(first.n_pending), maintenance: Number(first.n_maint ?? 0) }, total: Number(first.total) }
        : tally(q);
      const items: OverviewPageData['items'] = [];
      // Outages and windows of the range for every monitor at once: two range reads whose cost follows
      // what happened in the range, where one read per row would be 2 × 50 round trips on PostgreSQL.
      const monitorRows = keys.some((k) => k.kind === 'monitor');
      const outages = monitorRows ? maintenance.outagesBetween(q.since, q.now + 1) : new Map<number, never[]>();
      const windows = monitorRows ? maintenance.windowsBetween(q.since, q.now + 1) : new Map<number, never[]>();
      const found = keys.map((k) => (k.kind === 'monitor' ? monitors.get(k.uuid) : undefined));
      // Newest checks of the page's monitors in one statement per hour (not two or three per row).
      const last = lastCheckAts(found.flatMap((m) => (m ? [m.id] : [])));
      for (const [i, k] of keys.entries()) {
        if (k.kind === 'healthcheck') {
          const h = healthchecks.get(k.uuid);
          if (h) items.push({ kind: 'healthcheck', healthcheck: h });
          continue;
        }
        const m = found[i];
        if (!m) continue;
        items.push({
          kind: 'monitor',
          monitor: m,
          lastAt: last.get(m.id) ?? null,
          outages: outages.get(m.id) ?? [],
          windows: windows.get(m.id) ?? [],
        });
      }
      return { items, total, counts: c };
    },
  };
}

/** The overview store's interface. */
export type OverviewStore = ReturnType<typeof overviewStore>;
