import { reportSla, type Interval } from './report.ts';

/**
 * Uptime, the one definition (issue 33 point 4; docs/api.md "Reports"): the share of a window
 * [from, to) that a monitor was not in an outage, time-weighted, with the report maths of
 * CONTRACT.md "Reports" ({@link reportSla}): downtime is the union of its outages inside the window
 * (an ongoing one up to `now`) minus its maintenance windows; uptime = 100 × (1 − downtime / window
 * length), rounded down to 2 decimals. Every screen, feed, badge and the reports API computes it here.
 *
 * The windows the screens show ("Uptime 24 h", "30 d", "90 d") end now and never start before the
 * monitor existed ({@link uptimeSpan}): for a monitor younger than the window the figure covers its
 * life, the same figure a report for that span answers. Before the first check there is no figure
 * (pending), not 100 %.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The labelled windows, ms. */
export const UPTIME_WINDOWS = { '24h': DAY_MS, '7d': 7 * DAY_MS, '30d': 30 * DAY_MS, '90d': 90 * DAY_MS } as const;
/** A labelled window's key. */
export type UptimeWindow = keyof typeof UPTIME_WINDOWS;
/** How a window is written next to its figure ("Uptime 24 h"). */
export const UPTIME_WINDOW_LABELS: Readonly<Record<UptimeWindow, string>> = { '24h': '24 h', '7d': '7 d', '30d': '30 d', '90d': '90 d' };

/** What the uptime of one monitor (or healthcheck) is computed from. */
export interface UptimeHistory {
  /** Its outages overlapping the window (ongoing ones have `endAt` null). */
  outages: readonly Interval[];
  /** Its maintenance windows overlapping the window (their time is not downtime). */
  maintenance: readonly Interval[];
  /** When it was created, epoch ms. */
  createdAt: number;
  /** Whether it has been checked (or pinged) at least once; false = pending, no figure. */
  checked: boolean;
}

/** One labelled figure. */
export interface UptimeFigure {
  window: UptimeWindow;
  /** `'24 h'`, `'30 d'`, … */
  label: string;
  /** The span computed, epoch ms: [from, to). */
  from: number;
  to: number;
  /** Uptime in %, rounded down to 2 decimals; null while pending (no check yet). */
  percent: number | null;
}

/**
 * Uptime (%) of [from, to) at `now`: the one formula (see the module comment).
 * @param from epoch ms, < to
 * @param to epoch ms
 * @param now epoch ms (an ongoing outage counts up to it)
 */
export function uptimePercent(outages: readonly Interval[], maintenance: readonly Interval[], from: number, to: number, now: number): number {
  return reportSla(outages, maintenance, from, to, now);
}

/**
 * The span of a labelled window at `now`: [max(now − window, createdAt), now), or the full window
 * when `createdAt` is not before `now` (a monitor created this very millisecond).
 */
export function uptimeSpan(window: UptimeWindow, createdAt: number, now: number): { from: number; to: number } {
  return uptimeSpanOf(UPTIME_WINDOWS[window], createdAt, now);
}

/** {@link uptimeSpan} of a window of any length (`windowMs`, e.g. a badge's `?days=N`). */
export function uptimeSpanOf(windowMs: number, createdAt: number, now: number): { from: number; to: number } {
  const from = now - windowMs;
  return { from: createdAt < now ? Math.max(from, createdAt) : from, to: now };
}

/** The labelled figure of one window at `now` (null percent while pending). */
export function uptimeFigure(window: UptimeWindow, h: UptimeHistory, now: number): UptimeFigure {
  const { from, to } = uptimeSpan(window, h.createdAt, now);
  return { window, label: UPTIME_WINDOW_LABELS[window], from, to, percent: h.checked ? uptimePercent(h.outages, h.maintenance, from, to, now) : null };
}

/** A figure as shown: `"99.95 %"`, or `"pending"` before the first check. */
export function formatUptime(percent: number | null): string {
  return percent === null ? 'pending' : `${percent.toFixed(2)} %`;
}

/**
 * Mean time to acknowledge, in whole seconds (floored, as `mttr` in domain/report.ts): the mean of
 * acknowledgedAt − startAt (epoch ms) over the acknowledged outages given; 0 when none was
 * acknowledged. The MCP tools get_monitor_mtta and get_monitor_mttr (docs/api.md "MCP (/v1/mcp)").
 */
export function mttaSeconds(outages: ReadonlyArray<{ startAt: number; acknowledgedAt: number | null }>): { acknowledged: number; mtta: number } {
  const acked = outages.filter((o) => o.acknowledgedAt !== null);
  if (acked.length === 0) return { acknowledged: 0, mtta: 0 };
  const total = acked.reduce((s, o) => s + Math.max(0, o.acknowledgedAt! - o.startAt), 0);
  return { acknowledged: acked.length, mtta: Math.floor(total / acked.length / 1000) };
}

/**
 * The MTTR of several monitors together, in whole seconds: their downtime (seconds) over their outage
 * count, floored as each report's `mttr` (domain/report.ts reportFigures); 0 without outages.
 */
export function pooledMttrSeconds(totalDowntimeSeconds: number, outageCount: number): number {
  return outageCount > 0 ? Math.floor(totalDowntimeSeconds / outageCount) : 0;
}
