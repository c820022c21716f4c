import type { Clock } from '../lib/clock.ts';
import type { Healthcheck } from '../domain/healthcheck.ts';
import type { Monitor } from '../domain/monitor.ts';
import type { MonitorTag } from '../domain/tags.ts';
import { redactCredentials } from '../protocols/target.ts';
import type { Store } from '../store/index.ts';
import { HEARTBEAT_COUNT, type Heartbeat, type LandedResult } from '../domain/heartbeat.ts';
import type { OverviewQuery } from '../domain/overview.ts';
import type { MonitorStats } from '../domain/monitor.ts';
import type { Interval } from '../domain/report.ts';
import { UPTIME_WINDOWS, uptimeFigure } from '../domain/uptime.ts';

const HOUR_MS = 3_600_000;

/** A line of the console's overview: a monitor or a healthcheck. */
export interface OverviewRow {
  kind: 'monitor' | 'healthcheck';
  uuid: string;
  name: string;
  /** The monitor's URL or host; a healthcheck's schedule kind (`period` or `cron`). */
  target: string;
  /** `http`, `port`, `icmp` or `healthcheck`. */
  protocol: string;
  /** `pending`: not checked (or pinged) yet; its state is not known, whatever the stored default says. */
  status: 'up' | 'down' | 'paused' | 'pending';
  /** Uptime (%) over the last 24 h (src/domain/uptime.ts, the figure every screen and the reports show), or null while pending and for healthchecks. */
  uptime24h: number | null;
  /** Uptime (%) over the last 30 days, as {@link uptime24h}. */
  uptime30d: number | null;
  /** Last check (monitor) or last ping (healthcheck), epoch ms, or null. */
  lastAt: number | null;
  regions: string[];
  /** In an ongoing maintenance window (monitors only). */
  maintenance: boolean;
  /** Hourly mean latencies of the last 24 complete hours as a text sparkline (`▁▂▅█` as HTML character references, scaled to its own range), '' without checks or for healthchecks. */
  sparkline: string;
  /** A monitor's tags with their colours (issue 33 point 5), in its order; absent for healthchecks. */
  tags?: MonitorTag[];
  /** Heartbeat bars (issue 33 point 2), oldest first: set by the console for the rows it shows (one read per page, {@link ConsoleViewService.heartbeats}), absent otherwise. */
  beats?: Heartbeat[];
}

// As character references: the page stays a one-byte string (a single U+2581 in it makes V8 build and encode
// the whole 450 KiB page as two-byte: +2 ms a page at 1,000 rows, bench/console.ts).
const BLOCKS = ['&#9601;', '&#9602;', '&#9603;', '&#9604;', '&#9605;', '&#9606;', '&#9607;', '&#9608;'];
/** `"120,80,300"` (ms) → `"▂▁█"` (as HTML character references): each value's eighth between the smallest and the largest. */
export function sparkline(csv: string): string {
  if (csv === '') return '';
  const v = csv.split(',').map(Number);
  let lo = Infinity;
  let hi = -Infinity;
  for (const x of v) {
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  const span = hi - lo;
  let out = '';
  for (const x of v) out += BLOCKS[span === 0 ? 0 : Math.min(7, Math.floor(((x - lo) / span) * 8))];
  return out;
}

/**
 * The reads behind the console's screens that the API has no single call for. Cost per monitor:
 * its newest result, its 24 hourly rollups, and its outages and maintenance windows of the last 30
 * days (index range reads, the reports' reads), so the overview costs the same with a week or with
 * years of history. Uptime figures come from src/domain/uptime.ts, as on every other screen.
 */
export function consoleViewService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  /** Uuids of monitors in a window ongoing at `now`. */
  const inMaintenance = async (now: number): Promise<Set<string>> =>
    new Set(await store.async.maintenance.monitorUuidsActiveAt(now));
  const windows = () => {
    const now = clock.now();
    return { since30: now - UPTIME_WINDOWS['30d'], now };
  };
  /** Outages and maintenance windows of the last 30 days by monitor id (of `monitorId` only when given): what the uptime figures are computed from. */
  const histories = (w: { since30: number; now: number }, monitorId?: number) =>
    Promise.all([store.async.maintenance.outagesBetween(w.since30, w.now + 1, monitorId), store.async.maintenance.windowsBetween(w.since30, w.now + 1, monitorId)]);
  type Histories = Awaited<ReturnType<typeof histories>>;
  // Sparklines of the last 24 complete hours, read once per hour for every monitor: a request pays a map lookup.
  // One read in flight: requests of the same hour share it; a failed read is not kept (the next request reads again).
  let sparks: { hour: number; byId: Promise<Map<number, string>> } = { hour: -1, byId: Promise.resolve(new Map()) };
  const sparklines = (now: number): Promise<Map<number, string>> => {
    const hour = now - (now % HOUR_MS);
    if (sparks.hour !== hour) {
      const mine = {
        hour,
        byId: store.async.consoleReads.hourlyLatencies(hour - 24 * HOUR_MS, hour).then((all) => new Map([...all].map(([id, csv]) => [id, sparkline(csv)]))),
      };
      mine.byId.catch(() => {
        if (sparks === mine) sparks = { hour: -1, byId: Promise.resolve(new Map()) };
      });
      sparks = mine;
    }
    return sparks.byId;
  };
  const none: MonitorStats = { lastAt: null };
  const noIntervals: Interval[] = [];
  const monitorRow = (m: Monitor, st: MonitorStats, maintenance: boolean, now: number, sparks: Map<number, string>, [outages, windows]: Histories): OverviewRow => {
    const { lastAt } = st;
    const h = { outages: outages.get(m.id) ?? noIntervals, maintenance: windows.get(m.id) ?? noIntervals, createdAt: m.createdAt, checked: lastAt !== null };
    return {
      kind: 'monitor',
      uuid: m.uuid,
      name: m.name,
      target: redactCredentials(m.url), // database monitors carry a password in the URL
      protocol: m.protocol,
      status: m.paused ? 'paused' : lastAt === null && m.status === 'up' ? 'pending' : m.status,
      uptime24h: uptimeFigure('24h', h, now).percent,
      uptime30d: uptimeFigure('30d', h, now).percent,
      lastAt,
      regions: m.regions,
      maintenance,
      sparkline: sparks.get(m.id) ?? '',
      tags: m.tags,
    };
  };
  /** The outages of `uuids` in that order, those deleted since left out (one read each, in parallel). */
  const outagesOf = async (uuids: string[]) => (await Promise.all(uuids.map((u) => store.async.outages.get(u)))).filter((o) => o !== undefined);
  const healthcheckRow = (h: Healthcheck): OverviewRow => ({
    kind: 'healthcheck',
    uuid: h.uuid,
    name: h.name,
    target: h.cron ? `cron ${h.cron} ${h.timezone}` : `every ${h.periodValue} ${h.periodType}`,
    protocol: 'healthcheck',
    status: h.paused ? 'paused' : h.status === 'down' ? 'down' : h.lastPingAt === null ? 'pending' : 'up',
    uptime24h: null,
    uptime30d: null,
    lastAt: h.lastPingAt,
    regions: [],
    maintenance: false,
    sparkline: '',
  });
  return {
    /** Every monitor and healthcheck, down first, then by name. */
    async overview(): Promise<OverviewRow[]> {
      const w = windows();
      const [stats, held, monitors, healthchecks, sparks, hist] = await Promise.all([
        store.async.consoleReads.monitorStats(),
        inMaintenance(w.now),
        store.async.monitors.list(),
        store.async.healthchecks.list(),
        sparklines(w.now),
        histories(w),
      ]);
      const rows = [...monitors.map((m) => monitorRow(m, stats.get(m.id) ?? none, held.has(m.uuid), w.now, sparks, hist)), ...healthchecks.map(healthcheckRow)];
      const rank = { down: 0, pending: 1, up: 2, paused: 3 } as const;
      // Plain code-unit order of lower-cased names: localeCompare costs ~1 µs a call, 10,000 calls at 1,000 rows.
      const key = new Map(rows.map((r) => [r, r.name.toLowerCase()]));
      return rows.sort((a, b) => rank[a.status] - rank[b.status] || (key.get(a)! < key.get(b)! ? -1 : key.get(a)! > key.get(b)! ? 1 : 0));
    },
    /**
     * One page of the overview (issue 33 point 5): filtered, sorted and paged by the store (SQL), so a
     * page costs its own rows whatever the number of monitors; `counts` by status are over everything.
     */
    async overviewPage(f: Omit<OverviewQuery, 'held' | 'since' | 'now'>): Promise<{ rows: OverviewRow[]; total: number; counts: OverviewCounts }> {
      const w = windows();
      const [held, sparks] = await Promise.all([inMaintenance(w.now), sparklines(w.now)]);
      // Monitors with a sparkline had rollups in the last 24 h: checked, so the store skips their "ever checked?" seek.
      const data = await store.async.overview.page({ ...f, held: [...held], checked: [...sparks.keys()], since: w.since30, now: w.now });
      const rows = data.items.map((it) =>
        it.kind === 'healthcheck'
          ? healthcheckRow(it.healthcheck)
          : monitorRow(it.monitor, { lastAt: it.lastAt }, held.has(it.monitor.uuid), w.now, sparks, [new Map([[it.monitor.id, it.outages]]), new Map([[it.monitor.id, it.windows]])]),
      );
      return { rows, total: data.total, counts: data.counts };
    },
    /** The overview's counts by status (and monitors in maintenance) over everything: what live updates send after a change. */
    overviewCounts: async (): Promise<OverviewCounts> => {
      const now = clock.now();
      const [held, sparks] = await Promise.all([inMaintenance(now), sparklines(now)]);
      return store.async.overview.counts([...held], [...sparks.keys()]);
    },
    /** One monitor's overview row (live updates, the monitor page): index reads of that monitor. */
    async monitorRow(m: Monitor): Promise<OverviewRow> {
      const w = windows();
      const [stats, held, sparks, hist] = await Promise.all([store.async.consoleReads.oneMonitorStats(m.id), inMaintenance(w.now), sparklines(w.now), histories(w, m.id)]);
      return monitorRow(m, stats, held.has(m.uuid), w.now, sparks, hist);
    },
    healthcheckRow,
    /** A monitor's newest outages (at most `limit`), newest first. */
    monitorOutages: async (m: Monitor, limit: number) => outagesOf(await store.async.consoleReads.monitorOutageUuids(m.id, limit)),
    /** A healthcheck's newest outages (at most `limit`), newest first. */
    healthcheckOutages: async (h: Healthcheck, limit: number) => outagesOf(await store.async.consoleReads.healthcheckOutageUuids(h.id, limit)),
    /** `[hour start, mean latency ms]` of a monitor's hourly rollups from `since` (epoch ms), oldest first. */
    latencySince: async (m: Monitor, since: number): Promise<Array<[number, number]>> =>
      (await store.async.pageReads.rollupsSince(m.id, since - (since % HOUR_MS))).map((h): [number, number] => [h.hourStart, h.latencyAvgMs]),
    /** The SQLite library's version (Settings → About). */
    databaseVersion: (): Promise<{ name: 'SQLite' | 'PostgreSQL'; version: string }> => store.async.consoleReads.databaseVersion(),
    /** Alerts queued for an outage (channel, delivered or failed and why), oldest first. */
    alertsOf: (outageUuid: string) => store.async.alerts.forOutage(outageUuid),
    /** A monitor's newest raw check results, newest first. */
    recentChecks: (m: Monitor, limit: number) => store.async.checks.latestResults(m.id, limit),
    /** Heartbeat bars (issue 33 point 2): the newest {@link HEARTBEAT_COUNT} checks of each monitor named, oldest first, in one store read. @returns uuid → heartbeats */
    heartbeats: (uuids: string[]): Promise<Map<string, Heartbeat[]>> => store.async.heartbeats.recent(uuids, HEARTBEAT_COUNT, clock.now()),
    /** Check results that just landed as heartbeats of their monitors' uuids (the live stream), in one store read. */
    landedBeats: (results: LandedResult[]) => store.async.heartbeats.landed(results, clock.now()),
    /** A monitor's mean response time per region and `bucketMs` bucket in [`from`, `to`) from its raw checks (the monitor page's 1 h and 24 h charts). */
    latencyByRegion: (m: Monitor, from: number, to: number, bucketMs: number) => store.async.heartbeats.latencyByRegion(m.id, from, to, bucketMs),
  };
}

/** Monitors and healthchecks by the status the overview shows, and monitors in maintenance. */
export type OverviewCounts = { up: number; down: number; paused: number; pending: number; maintenance: number };

/** The console view service's interface. */
export type ConsoleViewService = ReturnType<typeof consoleViewService>;
