import type { Clock } from '../lib/clock.ts';
import type { Monitor } from '../domain/monitor.ts';
import type { HourRollup } from '../domain/report.ts';
import type { Store } from '../store/index.ts';
import type { ReportsService } from './reports.ts';
import { uptimeSpanOf } from '../domain/uptime.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** What a monitor's status badge says: `pending` until its first stored check (issue 33 point 4). */
export type BadgeStatus = 'up' | 'down' | 'degraded' | 'paused' | 'pending';

/**
 * Mean check latency (ms, rounded) over hourly rollups, each hour weighted by its number of checks;
 * null when they hold no check.
 */
export function meanLatencyMs(rollups: readonly HourRollup[]): number | null {
  let checks = 0;
  let sum = 0;
  for (const r of rollups) {
    checks += r.checks;
    sum += r.latencyAvgMs * r.checks;
  }
  return checks > 0 ? Math.round(sum / checks) : null;
}

/**
 * The figures of a monitor's public badges (issue 33 point 8, after Uptime Kuma's per-monitor
 * badges). A monitor is only ever answered when it opted in (`public_badges`); an unknown monitor
 * and one that did not are alike (undefined), so a badge URL never tells whether a monitor exists.
 * The uptime figure is the reports' own over the span of domain/uptime.ts (one number, one
 * function: the console's and the status pages' figure for the same window), never a second computation.
 */
export function badgesService(deps: { store: Store; clock: Clock; reports: ReportsService }) {
  const { store, clock, reports } = deps;

  /** The monitor behind a badge URL: undefined when unknown or not opted in. */
  const opted = async (uuid: string): Promise<Monitor | undefined> => {
    const m = await store.async.monitors.get(uuid);
    return m?.publicBadges ? m : undefined;
  };
  /** True while the monitor has no stored check yet. */
  const pending = async (m: Monitor): Promise<boolean> => (await store.async.checks.lastCheckAt(m.id)) === null;

  return {
    /** The monitor's state now, or undefined (unknown or not opted in). */
    async status(uuid: string): Promise<BadgeStatus | undefined> {
      const m = await opted(uuid);
      if (!m) return undefined;
      if (m.paused) return 'paused';
      if (await pending(m)) return 'pending';
      if (m.status === 'down') return 'down';
      return m.degraded ? 'degraded' : 'up';
    },
    /**
     * Uptime (%, 2 decimals, the reports' SLA) over the last `days` days to now; null before the
     * first check (pending); undefined when unknown or not opted in.
     */
    async uptime(uuid: string, days: number): Promise<number | null | undefined> {
      const m = await opted(uuid);
      if (!m) return undefined;
      if (await pending(m)) return null;
      // The span every screen uses for a window (domain/uptime.ts): never before the monitor existed.
      const span = uptimeSpanOf(days * DAY_MS, m.createdAt, clock.now());
      return (await reports.report(m.uuid, span.from, span.to)).sla;
    },
    /**
     * Mean response time (ms) of the checks in the hourly rollups (their grain) of the last `hours`
     * whole UTC hours and the current one: at least `hours` hours, at most one more. Null with no
     * check there; undefined when unknown or not opted in.
     */
    async responseTime(uuid: string, hours: number): Promise<number | null | undefined> {
      const m = await opted(uuid);
      if (!m) return undefined;
      const since = Math.floor(clock.now() / HOUR_MS) * HOUR_MS - hours * HOUR_MS;
      return meanLatencyMs(await store.async.pageReads.rollupsSince(m.id, since));
    },
    /** Days until the served certificate expires (the last check's), null when none is known; undefined when unknown or not opted in. */
    async certificateDays(uuid: string): Promise<number | null | undefined> {
      const m = await opted(uuid);
      if (!m) return undefined;
      return m.sslExpirationDays;
    },
  };
}

/** The badges service's interface. */
export type BadgesService = ReturnType<typeof badgesService>;
