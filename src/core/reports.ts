import type { Clock } from '../lib/clock.ts';
import { invalid, notFound } from '../lib/errors.ts';
import { reportFigures, reportSla, type ReportFigures } from '../domain/report.ts';
import type { Monitor } from '../domain/monitor.ts';
import type { Store } from '../store/index.ts';

const DAY_MS = 86_400_000;

/** A monitor report (API.md §2.8) before formatting as JSON. */
export interface MonitorReport extends ReportFigures {
  monitor: Monitor;
  from: number;
  to: number;
}

/**
 * SLA reports (API.md §4.6, CONTRACT.md "Reports"). The cost depends on the outages and
 * maintenance windows that overlap the report window (index range reads), never on how much
 * history a monitor has, and raw check rows are never read.
 */
export function reportsService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;

  /** `from`/`to` (epoch ms, optional) → the window; default the last 7 days. @throws AppError 400 */
  const windowOf = (from: number | undefined, to: number | undefined) => {
    const now = clock.now();
    const t = to ?? now;
    const f = from ?? t - 7 * DAY_MS;
    if (f >= t) throw invalid('from', 'must be before to');
    return { from: f, to: t, now };
  };

  /** The outages and maintenance windows over `w` (of one monitor, or all), read in parallel. */
  const overlapping = (w: { from: number; to: number }, monitorId?: number) =>
    Promise.all([store.async.maintenance.outagesBetween(w.from, w.to, monitorId), store.async.maintenance.windowsBetween(w.from, w.to, monitorId)]);

  return {
    windowOf,
    /** `{monitor, sla}` for every monitor over the window. @throws AppError 400 bad window */
    async summaries(from?: number, to?: number): Promise<Array<{ monitor: Monitor; sla: number }>> {
      const w = windowOf(from, to);
      const [[outages, maintenance], monitors] = await Promise.all([overlapping(w), store.async.monitors.list()]);
      return monitors.map((m) => ({ monitor: m, sla: reportSla(outages.get(m.id) ?? [], maintenance.get(m.id) ?? [], w.from, w.to, w.now) }));
    },
    /** Every monitor's full report over one window (the hosted service's list shape). @throws AppError 400 bad window */
    async reports(from?: number, to?: number): Promise<{ from: number; to: number; reports: MonitorReport[] }> {
      const w = windowOf(from, to);
      const [[outages, maintenance], monitors] = await Promise.all([overlapping(w), store.async.monitors.list()]);
      const reports = monitors.map((monitor) => ({
        monitor,
        from: w.from,
        to: w.to,
        ...reportFigures(outages.get(monitor.id) ?? [], maintenance.get(monitor.id) ?? [], w.from, w.to, w.now),
      }));
      return { from: w.from, to: w.to, reports };
    },
    /** One monitor's full report. @throws AppError 404 unknown monitor, 400 bad window */
    async report(uuid: string, from?: number, to?: number): Promise<MonitorReport> {
      const monitor = await store.async.monitors.get(uuid);
      if (!monitor) throw notFound('monitors', 'Monitor');
      const w = windowOf(from, to);
      const [outages, maintenance] = await overlapping(w, monitor.id);
      return { monitor, from: w.from, to: w.to, ...reportFigures(outages.get(monitor.id) ?? [], maintenance.get(monitor.id) ?? [], w.from, w.to, w.now) };
    },
  };
}

/** The reports service's interface. */
export type ReportsService = ReturnType<typeof reportsService>;
