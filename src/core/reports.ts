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

  return {
    windowOf,
    /** `{monitor, sla}` for every monitor over the window. */
    summaries(from?: number, to?: number): Array<{ monitor: Monitor; sla: number }> {
      const w = windowOf(from, to);
      const outages = store.maintenance.outagesBetween(w.from, w.to);
      const maintenance = store.maintenance.windowsBetween(w.from, w.to);
      return store.monitors.list().map((m) => ({ monitor: m, sla: reportSla(outages.get(m.id) ?? [], maintenance.get(m.id) ?? [], w.from, w.to, w.now) }));
    },
    /** Every monitor's full report over one window (the hosted service's list shape). @throws AppError 400 bad window */
    reports(from?: number, to?: number): { from: number; to: number; reports: MonitorReport[] } {
      const w = windowOf(from, to);
      const outages = store.maintenance.outagesBetween(w.from, w.to);
      const maintenance = store.maintenance.windowsBetween(w.from, w.to);
      const reports = store.monitors.list().map((monitor) => ({
        monitor,
        from: w.from,
        to: w.to,
        ...reportFigures(outages.get(monitor.id) ?? [], maintenance.get(monitor.id) ?? [], w.from, w.to, w.now),
      }));
      return { from: w.from, to: w.to, reports };
    },
    /** One monitor's full report. @throws AppError 404 unknown monitor, 400 bad window */
    report(uuid: string, from?: number, to?: number): MonitorReport {
      const monitor = store.monitors.get(uuid);
      if (!monitor) throw notFound('monitors', 'Monitor');
      const w = windowOf(from, to);
      const outages = store.maintenance.outagesBetween(w.from, w.to, monitor.id).get(monitor.id) ?? [];
      const maintenance = store.maintenance.windowsBetween(w.from, w.to, monitor.id).get(monitor.id) ?? [];
      return { monitor, from: w.from, to: w.to, ...reportFigures(outages, maintenance, w.from, w.to, w.now) };
    },
  };
}

/** The reports service's interface. */
export type ReportsService = ReturnType<typeof reportsService>;
