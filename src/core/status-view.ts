import type { LocalizedText } from '../domain/localized.ts';
import type { Clock } from '../lib/clock.ts';
import { isIncidentResolved, type Incident } from '../domain/incident.ts';
import type { MaintenanceWindow } from '../domain/maintenance.ts';
import type { Interval } from '../domain/report.ts';
import {
  DAY_MS,
  dailyUptime,
  overallStatus,
  worstStatus,
  LATENCY_RANGES,
  type DayUptime,
  type LatencyRange,
  type OverallStatus,
  type ServiceStatus,
} from '../domain/status-page-view.ts';
import type { PageService, Statuspage } from '../domain/statuspage.ts';
import type { Store } from '../store/index.ts';
import { procedure } from '../store/async.ts';
import { UPTIME_WINDOWS, uptimeFigure } from '../domain/uptime.ts';

/** Days of history a page shows (uptime bars, incident history). */
export const PAGE_HISTORY_DAYS = 90;

export { LATENCY_RANGES, type LatencyRange } from '../domain/status-page-view.ts';

/** One service (or group) as a page shows it. Only names and statuses: never a monitor's URL. */
export interface ServiceView {
  kind: 'monitor' | 'healthcheck' | 'component' | 'group';
  name: string;
  description: string | null;
  /** The name and description as given in languages (a localized map), or null: then `name`/`description`. */
  nameI18n: LocalizedText | null;
  descriptionI18n: LocalizedText | null;
  status: ServiceStatus;
  /** 90 daily bars (oldest first), when `show_uptime` and the service has history (not components). */
  days: DayUptime[] | null;
  /** Uptime (%) over the last 90 days (src/domain/uptime.ts, as the console and the reports), with `days`; null before the first check. */
  uptime: number | null;
  /** Hourly mean response times `[hourStart ms, latency ms]` when `show_response_times` (monitors only). */
  latency: Array<[number, number]> | null;
  /** A group's services. */
  children: ServiceView[];
}

/** A page's content at one moment, ready for the templates. */
export interface PageView {
  page: Statuspage;
  now: number;
  overall: OverallStatus;
  sections: Array<{ name: string; nameI18n: LocalizedText | null; services: ServiceView[] }>;
  /** Unresolved incidents of this page, newest first. */
  activeIncidents: Incident[];
  /** Windows ongoing now that cover this page (listed on it or covering one of its monitors). */
  activeMaintenance: MaintenanceWindow[];
  /** Windows starting in the next 7 days that cover this page. */
  upcomingMaintenance: MaintenanceWindow[];
}

/** The incident history of a page (past 90 days). */
export interface HistoryView {
  page: Statuspage;
  now: number;
  incidents: Incident[];
  maintenance: MaintenanceWindow[];
}

// Transaction bodies (store/async.ts): the page's reads run in one transaction wherever the store
// runs (on PostgreSQL, the store host thread), so a page costs the event loop one message.

const windowsOfPage = (tx: Store, page: Statuspage, monitorUuids: Set<string>, since: number, now: number): MaintenanceWindow[] =>
  tx.pageReads
    .windowUuidsEndingAfter(since)
    .map((u) => tx.maintenance.get(u, now))
    .filter((w): w is MaintenanceWindow => w !== undefined && w.endAt > since && (w.statuspages.includes(page.uuid) || w.monitors.some((m) => monitorUuids.has(m))));

const monitorUuidsOf = (page: Statuspage): Set<string> => {
  const out = new Set<string>();
  const walk = (list: PageService[]) => list.forEach((s) => (out.add(s.monitor_uuid), walk(s.services)));
  page.sections.forEach((s) => walk(s.services));
  return out;
};

/** The bars and the "90 d" figure (the one uptime function: the figure is the rolling 90 days, as the console's windows). */
const history = (outages: Interval[], maintenance: Interval[], createdAt: number, now: number, show: boolean, checked: boolean) =>
  show
    ? { days: dailyUptime(outages, maintenance, createdAt, now, PAGE_HISTORY_DAYS), uptime: uptimeFigure('90d', { outages, maintenance, createdAt, checked }, now).percent }
    : { days: null, uptime: null };
/** Start of what a page reads (outages, maintenance): the first bar's day or the 90-day window's start, whichever is earlier. */
const readFrom = (now: number) => Math.min(now - (now % DAY_MS) - (PAGE_HISTORY_DAYS - 1) * DAY_MS, now - UPTIME_WINDOWS['90d']);

/**
 * Whether monitor `id` has a stored check result (else the page shows it `unknown`), as
 * `store.checks.lastCheckAt(id) !== null` says, without its reads when the page already read the
 * monitor's rollups: every stored result has its hourly rollup (same transaction), and a rollup
 * with checks of an hour that started in the last 24 h names an hour whose raw results are still
 * kept (`storage.raw_retention_days` is at least 1, and a prune drops only hours that ended past it).
 */
const checkedYet = (tx: Store, id: number, rollups: ReadonlyArray<{ hourStart: number; checks: number }> | null, now: number): boolean =>
  rollups?.some((r) => r.checks > 0 && r.hourStart >= now - DAY_MS) || tx.checks.lastCheckAt(id) !== null;

/** Maintenance intervals of every monitor over the 90 days: one range read for the whole page. */
type Windows = Map<number, Interval[]>;
function service(tx: Store, s: PageService, now: number, range: LatencyRange, windows: Windows): ServiceView | null {
  const from = readFrom(now);
  const base = { name: s.name_shown ?? '', description: s.description, nameI18n: s.name_i18n ?? null, descriptionI18n: s.description_i18n ?? null };
  if (s.is_group) {
    const children = s.services.map((c) => service(tx, c, now, range, windows)).filter((c): c is ServiceView => c !== null);
    return { ...base, name: s.name_shown ?? '', kind: 'group', status: worstStatus(children.map((c) => c.status)), days: null, uptime: null, latency: null, children };
  }
  const m = tx.monitors.get(s.monitor_uuid);
  if (m) {
    const maintenance = windows.get(m.id) ?? [];
    const inMaintenance = maintenance.some((w) => w.startAt <= now && (w.endAt === null || w.endAt > now));
    const rollups = s.show_response_times ? tx.pageReads.rollupsSince(m.id, now - LATENCY_RANGES[range]) : null;
    // Maintenance outranks down: the window is the announced reason (and its alerts are held).
    const checked = checkedYet(tx, m.id, rollups, now);
    const status: ServiceStatus = m.paused ? 'paused' : inMaintenance ? 'maintenance' : m.status === 'down' ? 'major_outage' : !checked ? 'unknown' : m.degraded ? 'degraded' : 'operational';
    const outages = s.show_uptime ? tx.pageReads.monitorOutagesSince(m.id, from) : [];
    const latency = rollups ? rollups.map((r): [number, number] => [r.hourStart, Math.round(r.latencyAvgMs)]) : null;
    return { ...base, name: s.name_shown ?? m.name, kind: 'monitor', status, ...history(outages, maintenance, m.createdAt, now, s.show_uptime, checked), latency, children: [] };
  }
  const hc = tx.healthchecks.get(s.monitor_uuid) ?? tx.healthchecks.getByPublicUuid(s.monitor_uuid);
  if (hc) {
    const status: ServiceStatus = hc.paused ? 'paused' : hc.status === 'down' ? 'major_outage' : hc.lastPingAt === null ? 'unknown' : 'operational';
    const outages = s.show_uptime ? tx.pageReads.healthcheckOutagesSince(hc.id, from) : [];
    return { ...base, name: s.name_shown ?? hc.name, kind: 'healthcheck', status, ...history(outages, [], hc.createdAt, now, s.show_uptime, hc.lastPingAt !== null), latency: null, children: [] };
  }
  const c = tx.incidents.components.get(s.monitor_uuid);
  if (c) return { ...base, name: s.name_shown ?? c.name, description: s.description ?? c.description, kind: 'component', status: c.status, days: null, uptime: null, latency: null, children: [] };
  return null; // deleted since the page was saved: not shown
}

const incidentsOf = (tx: Store, page: Statuspage, since: number): Incident[] =>
  tx.pageReads
    .incidentUuidsOfPage(page.uuid, since)
    .map((u) => tx.incidents.get(u))
    .filter((i): i is Incident => i !== undefined && i.statuspages.includes(page.uuid));

/** The page as shown at `now`. */
const pageViewOf = procedure('statusView.page', (tx: Store, a: { page: Statuspage; range: LatencyRange; now: number }): PageView => {
  const { page, range, now } = a;
  const intervals = tx.maintenance.windowsBetween(readFrom(now), now + 1);
  const sections = page.sections.map((sec) => ({ name: sec.name, nameI18n: sec.name_i18n ?? null, services: sec.services.map((s) => service(tx, s, now, range, intervals)).filter((s): s is ServiceView => s !== null) }));
  const leaves: ServiceStatus[] = [];
  const collect = (list: ServiceView[]) => list.forEach((s) => (s.kind === 'group' ? collect(s.children) : leaves.push(s.status)));
  sections.forEach((s) => collect(s.services));
  const windows = windowsOfPage(tx, page, monitorUuidsOf(page), now, now);
  return {
    page,
    now,
    overall: overallStatus(leaves),
    sections,
    activeIncidents: incidentsOf(tx, page, 0).filter((i) => !isIncidentResolved(i.updates)),
    activeMaintenance: windows.filter((w) => w.startAt <= now),
    upcomingMaintenance: windows.filter((w) => w.startAt > now && w.startAt <= now + 7 * DAY_MS),
  };
});

/** The page's history as of `now`. */
const historyViewOf = procedure('statusView.history', (tx: Store, a: { page: Statuspage; now: number }): HistoryView => {
  const { page, now } = a;
  const since = now - PAGE_HISTORY_DAYS * DAY_MS;
  return {
    page,
    now,
    incidents: incidentsOf(tx, page, since),
    maintenance: windowsOfPage(tx, page, monitorUuidsOf(page), since, now)
      .filter((w) => w.endAt <= now)
      .reverse(),
  };
});

/**
 * Builds what a public status page shows (issue "Status pages"; docs/api.md "Status pages"). The
 * cost follows the page's services and the last 90 days of their outages and hourly rollups (index
 * range reads), never the length of the history, and raw check rows are never read. Each view is
 * read in one asynchronous transaction (issue 31).
 */
export function statusViewService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  return {
    /**
     * The page as shown now.
     * @param range the response-time graph's range
     */
    page: (page: Statuspage, range: LatencyRange = '24h'): Promise<PageView> => store.async.tx(pageViewOf, { page, range, now: clock.now() }),
    /** Incidents (resolved or not) and completed maintenance of the past 90 days, newest first. */
    history: (page: Statuspage): Promise<HistoryView> => store.async.tx(historyViewOf, { page, now: clock.now() }),
  };
}

/** The status view service's interface. */
export type StatusViewService = ReturnType<typeof statusViewService>;
