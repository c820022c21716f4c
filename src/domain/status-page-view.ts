import { percentUp, type Interval } from './report.ts';

/**
 * What a public status page shows about a service, worst last in {@link STATUS_ORDER}:
 * `paused` and `unknown` (no check yet) are shown but never make a page or group look worse.
 */
export type ServiceStatus = 'unknown' | 'paused' | 'operational' | 'maintenance' | 'degraded' | 'partial_outage' | 'major_outage';

/** Severity order, least severe first (a group shows its worst child). */
export const STATUS_ORDER: readonly ServiceStatus[] = ['unknown', 'paused', 'operational', 'maintenance', 'degraded', 'partial_outage', 'major_outage'];

/** The worst of `statuses` by {@link STATUS_ORDER}; `unknown` for none. */
export function worstStatus(statuses: readonly ServiceStatus[]): ServiceStatus {
  let worst = 0;
  for (const s of statuses) worst = Math.max(worst, STATUS_ORDER.indexOf(s));
  return STATUS_ORDER[worst]!;
}

/** The page's banner (docs/api.md "Status pages"): everything down → major outage; some down or partial → partial outage; else degraded, maintenance, operational. */
export type OverallStatus = 'operational' | 'maintenance' | 'degraded' | 'partial_outage' | 'major_outage';

/**
 * The overall banner of a page from its services' statuses (groups counted by their children):
 * `major_outage` when every counted service is in major outage (and there is at least one), else
 * `partial_outage` when any is in partial or major outage, else `degraded`, `maintenance`,
 * `operational` in that order. Paused and unknown services are not counted.
 */
export function overallStatus(statuses: readonly ServiceStatus[]): OverallStatus {
  const counted = statuses.filter((s) => s !== 'paused' && s !== 'unknown');
  if (counted.length > 0 && counted.every((s) => s === 'major_outage')) return 'major_outage';
  if (counted.some((s) => s === 'major_outage' || s === 'partial_outage')) return 'partial_outage';
  if (counted.includes('degraded')) return 'degraded';
  if (counted.includes('maintenance')) return 'maintenance';
  return 'operational';
}

/** One bar of the 90-day uptime bar: a UTC day. */
export interface DayUptime {
  /** Start of the UTC day, epoch ms. */
  dayStart: number;
  /** Uptime of the day in %, rounded down to 2 decimals; null before the service existed (no data). */
  uptime: number | null;
  /** Downtime inside the day (outside maintenance), ms. */
  downtimeMs: number;
}

/** Bar colour classes by a day's uptime: ≥ 99.95 ok, ≥ 99 minor, ≥ 95 partial, below major, no data none. */
export type UptimeLevel = 'ok' | 'minor' | 'partial' | 'major' | 'none';

/** The colour class of a day (see {@link UptimeLevel}). */
export function uptimeLevel(uptime: number | null): UptimeLevel {
  if (uptime === null) return 'none';
  if (uptime >= 99.95) return 'ok';
  if (uptime >= 99) return 'minor';
  if (uptime >= 95) return 'partial';
  return 'major';
}

/** One day, ms. */
export const DAY_MS = 86_400_000;

/** Response-time graph ranges (hourly rollups), ms. */
export const LATENCY_RANGES = { '24h': DAY_MS, '7d': 7 * DAY_MS } as const;
/** A response-time graph range. */
export type LatencyRange = keyof typeof LATENCY_RANGES;

/**
 * The disjoint, sorted spans [a, b) of downtime inside [from, to): outages (ongoing ones up to
 * `now`) merged, minus maintenance windows. O((outages + windows) log) once per service.
 */
function downSpans(outages: readonly Interval[], maintenance: readonly Interval[], from: number, to: number, now: number): Array<[number, number]> {
  const merge = (list: Array<[number, number]>) => {
    list.sort((x, y) => x[0] - y[0]);
    const out: Array<[number, number]> = [];
    for (const [a, b] of list) {
      const last = out.at(-1);
      if (last && a <= last[1]) last[1] = Math.max(last[1], b);
      else out.push([a, b]);
    }
    return out;
  };
  const clip = (a: number, b: number): [number, number] => [Math.max(a, from), Math.min(b, to)];
  const spans = merge(outages.map((o) => clip(o.startAt, o.endAt ?? Math.max(o.startAt, Math.min(now, to)))).filter(([a, b]) => b > a));
  const holes = merge(maintenance.map((m) => clip(m.startAt, m.endAt ?? to)).filter(([a, b]) => b > a));
  if (holes.length === 0) return spans;
  const out: Array<[number, number]> = [];
  let h = 0;
  for (let [a, b] of spans) {
    while (h < holes.length && holes[h]![1] <= a) h++;
    for (let k = h; k < holes.length && holes[k]![0] < b; k++) {
      const [ha, hb] = holes[k]!;
      if (ha > a) out.push([a, ha]);
      a = Math.max(a, hb);
    }
    if (b > a) out.push([a, b]);
  }
  return out;
}


/**
 * Daily uptime over the last `days` UTC days up to `now` (today last, counted up to `now`), with the
 * report maths of CONTRACT.md "Reports": downtime is the union of outages inside the day minus
 * maintenance windows; uptime = 100 × (1 − downtime / day) rounded down to 2 decimals. The part of a
 * day before `since` (the service's creation) does not count; a day wholly before it has no data.
 * One pass over the merged downtime spans: O(outages + days).
 * @param outages outages overlapping the period (ongoing ones have `endAt` null)
 * @param maintenance the service's maintenance windows overlapping the period
 * @param since epoch ms the service exists from
 * @param now epoch ms
 */
export function dailyUptime(outages: readonly Interval[], maintenance: readonly Interval[], since: number, now: number, days = 90): DayUptime[] {
  const today = now - (now % DAY_MS);
  const first = today - (days - 1) * DAY_MS;
  const spans = downSpans(outages, maintenance, Math.max(first, since), now, now);
  const out: DayUptime[] = [];
  let k = 0;
  for (let i = 0; i < days; i++) {
    const dayStart = first + i * DAY_MS;
    const from = Math.max(dayStart, since);
    const to = Math.min(dayStart + DAY_MS, now);
    if (to <= from) {
      out.push({ dayStart, uptime: null, downtimeMs: 0 });
      continue;
    }
    while (k < spans.length && spans[k]![1] <= from) k++;
    let down = 0;
    for (let j = k; j < spans.length && spans[j]![0] < to; j++) down += Math.min(spans[j]![1], to) - Math.max(spans[j]![0], from);
    out.push({ dayStart, uptime: percentUp(down, to - from), downtimeMs: down });
  }
  return out;
}
