import { formatDuration } from './duration.ts';

/** A time interval [startAt, endAt) in epoch ms; `endAt` null = still going. */
export interface Interval {
  startAt: number;
  endAt: number | null;
}

/** One outage's share of a report. Durations in whole seconds. */
export interface ReportOutage {
  startDate: string;
  endDate: string | null;
  duration: number;
  durationFormatted: string;
}

/** The numbers of a monitor report (API.md §2.8). */
export interface ReportFigures {
  sla: number;
  count: number;
  totalDowntime: number;
  totalDowntimeFormatted: string;
  longestOutage: number;
  longestOutageFormatted: string;
  mttr: number;
  mttrFormatted: string;
  details: ReportOutage[];
}

/** `intervals` clipped to [from, to) and merged where they overlap, sorted. */
function clipMerge(intervals: Array<{ startAt: number; endAt: number }>, from: number, to: number): Array<[number, number]> {
  const clipped = intervals
    .map((i) => [Math.max(i.startAt, from), Math.min(i.endAt, to)] as [number, number])
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  const out: Array<[number, number]> = [];
  for (const [a, b] of clipped) {
    const last = out.at(-1);
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** Length (ms) of [a, b) minus the parts covered by the sorted, disjoint `holes`. */
function lengthOutside(a: number, b: number, holes: Array<[number, number]>): number {
  let len = b - a;
  for (const [h1, h2] of holes) {
    const lo = Math.max(a, h1);
    const hi = Math.min(b, h2);
    if (hi > lo) len -= hi - lo;
  }
  return len;
}

/** Downtime (ms) inside [from, to): the union of the outages minus the maintenance windows. */
function downtimeMs(outages: readonly Interval[], maintenance: readonly Interval[], from: number, to: number, now: number): number {
  const holes = clipMerge(maintenance.map((m) => ({ startAt: m.startAt, endAt: m.endAt ?? to })), from, to);
  const spans = clipMerge(outages.map((o) => ({ startAt: o.startAt, endAt: o.endAt ?? Math.max(o.startAt, Math.min(now, to)) })), from, to);
  return spans.reduce((sum, [a, b]) => sum + lengthOutside(a, b, holes), 0);
}

/**
 * `100 × (1 − downMs / lengthMs)`, rounded down to 2 decimals (integer maths, no float drift): the
 * percentage of every uptime figure (reports, src/domain/uptime.ts, the status pages' day bars).
 */
export function percentUp(downMs: number, lengthMs: number): number {
  return Math.floor(((lengthMs - downMs) * 10_000) / lengthMs) / 100;
}

/** `sla` of [from, to) with `downMs` down. */
const slaOf = (downMs: number, from: number, to: number): number => percentUp(downMs, to - from);

/** Only the SLA of {@link reportFigures} (the list endpoint), without the per-outage details. */
export function reportSla(outages: readonly Interval[], maintenance: readonly Interval[], from: number, to: number, now: number): number {
  return slaOf(downtimeMs(outages, maintenance, from, to, now), from, to);
}

/**
 * The report maths of CONTRACT.md "Reports", pure. Downtime of an outage is its time inside the
 * window [from, to) and outside the monitor's maintenance windows; an outage still going counts up
 * to `now`. Outages with no downtime left (wholly outside the window or inside maintenance) are not
 * counted. `sla` = 100 × (1 − downtime / window) rounded **down** to 2 decimals; `mttr` = total
 * downtime / count, whole seconds, 0 without outages. Overlapping outages are counted apart, but the
 * SLA uses their union, so it never falls below 0.
 * @param from window start, epoch ms (< to)
 * @param to window end, epoch ms
 */
export function reportFigures(outages: readonly Interval[], maintenance: readonly Interval[], from: number, to: number, now: number): ReportFigures {
  const holes = clipMerge(maintenance.map((m) => ({ startAt: m.startAt, endAt: m.endAt ?? to })), from, to);
  const details: ReportOutage[] = [];
  const counted: Array<{ startAt: number; endAt: number }> = [];
  for (const o of [...outages].sort((x, y) => x.startAt - y.startAt)) {
    const end = o.endAt ?? Math.max(o.startAt, Math.min(now, to));
    const a = Math.max(o.startAt, from);
    const b = Math.min(end, to);
    if (b <= a) continue;
    const ms = lengthOutside(a, b, holes);
    if (ms <= 0) continue;
    counted.push({ startAt: a, endAt: b });
    const duration = Math.floor(ms / 1000);
    details.push({
      startDate: new Date(o.startAt).toISOString(),
      endDate: o.endAt === null ? null : new Date(o.endAt).toISOString(),
      duration,
      durationFormatted: formatDuration(duration),
    });
  }
  const downMs = downtimeMs(counted, maintenance, from, to, now);
  const totalDowntime = details.reduce((s, d) => s + d.duration, 0);
  const longestOutage = details.reduce((m, d) => Math.max(m, d.duration), 0);
  const mttr = details.length ? Math.floor(totalDowntime / details.length) : 0;
  const sla = slaOf(downMs, from, to);
  return {
    sla,
    count: details.length,
    totalDowntime,
    totalDowntimeFormatted: formatDuration(totalDowntime),
    longestOutage,
    longestOutageFormatted: formatDuration(longestOutage),
    mttr,
    mttrFormatted: formatDuration(mttr),
    details,
  };
}

/** One hour of a monitor's check rollup. `latencyAvgMs` is the mean check latency of that hour. */
export interface HourRollup {
  hourStart: number;
  checks: number;
  failures: number;
  latencyAvgMs: number;
}
