import { downtimeMs, reportSla, type Interval } from './report.ts';
import type { ComponentStatus } from './incident.ts';

/**
 * What a public status page shows about a service, worst last in {@link STATUS_ORDER}:
 * `paused` and `unknown` (no check yet) are shown but never make a page or group look worse.
 */
export type ServiceStatus = 'unknown' | 'paused' | 'operational' | 'maintenance' | 'degraded' | 'partial_outage' | 'major_outage';

/** Severity order, least severe first (a group shows its worst child). */
export const STATUS_ORDER: readonly ServiceStatus[] = ['unknown', 'paused', 'operational', 'maintenance', 'degraded', 'partial_outage', 'major_outage'];

/** A component's hand-set status as a page status (CONTRACT.md "Components"). */
export function componentStatus(s: ComponentStatus): ServiceStatus {
  return s;
}

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
 * Daily uptime over the last `days` UTC days up to `now` (today last, counted up to `now`), with the
 * report maths of CONTRACT.md "Reports": downtime is the union of outages inside the day minus
 * maintenance windows; uptime = 100 × (1 − downtime / day) rounded down to 2 decimals. The part of a
 * day before `since` (the service's creation) does not count; a day wholly before it has no data.
 * @param outages outages overlapping the period (ongoing ones have `endAt` null)
 * @param maintenance the service's maintenance windows overlapping the period
 * @param since epoch ms the service exists from
 * @param now epoch ms
 */
export function dailyUptime(outages: readonly Interval[], maintenance: readonly Interval[], since: number, now: number, days = 90): DayUptime[] {
  const today = now - (now % DAY_MS);
  const out: DayUptime[] = [];
  for (let i = days - 1; i >= 0; i--) {
    const dayStart = today - i * DAY_MS;
    const from = Math.max(dayStart, since);
    const to = Math.min(dayStart + DAY_MS, now);
    if (to <= from) {
      out.push({ dayStart, uptime: null, downtimeMs: 0 });
      continue;
    }
    const down = downtimeMs(outages, maintenance, from, to, now);
    out.push({ dayStart, uptime: reportSla(outages, maintenance, from, to, now), downtimeMs: down });
  }
  return out;
}

/** Uptime (%) over the whole period of {@link dailyUptime}, or null when the service is newer than `now`. */
export function periodUptime(outages: readonly Interval[], maintenance: readonly Interval[], since: number, now: number, days = 90): number | null {
  const from = Math.max(now - (now % DAY_MS) - (days - 1) * DAY_MS, since);
  return from < now ? reportSla(outages, maintenance, from, now, now) : null;
}
