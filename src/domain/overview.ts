import type { Healthcheck } from './healthcheck.ts';
import type { Monitor } from './monitor.ts';
import type { Interval } from './report.ts';

/**
 * The console overview's paged read (issue 33 point 5): what is asked of the store
 * (src/store/overview.ts) and what it answers.
 */

/** What the overview can be sorted by: status (down, pending, up, paused; then name), name, last status change, response time. */
export const OVERVIEW_SORTS = ['status', 'name', 'changed', 'response'] as const;
/** One of {@link OVERVIEW_SORTS}. */
export type OverviewSort = (typeof OVERVIEW_SORTS)[number];

/** One page of the console's overview, as asked for (issue 33 point 5). */
export interface OverviewQuery {
  /** Part of the name or URL (case-insensitive for ASCII; `%` and `_` are literal); '' for any. */
  q: string;
  /** `up`, `down`, `paused`, `pending`, `maintenance`, or '' for any. */
  status: string;
  /** A protocol, `healthcheck`, or '' for any. */
  protocol: string;
  /** Monitors carrying the tag of this name (any case, any value), or '' for any. */
  tag: string;
  /** Monitors of this group, or '' for any. */
  group: string;
  /** Uuids of the monitors in an ongoing maintenance window (the core knows the windows). */
  held: string[];
  /**
   * Ids of monitors known to have been checked (the console's cache of the last 24 h of rollups): a
   * hint that spares their one seek into the hourly rollups to tell `pending` from checked (SQLite;
   * ignored on PostgreSQL). Monitors left out are looked up as usual, so the hint never changes a status.
   */
  checked?: number[];
  sort: OverviewSort;
  dir: 'asc' | 'desc';
  limit: number;
  offset: number;
  /** Start and end (epoch ms) of the history read for each monitor of the page (uptime figures). */
  since: number;
  now: number;
}

/** A monitor of the page with what its row is drawn from. */
export interface OverviewMonitorItem {
  kind: 'monitor';
  monitor: Monitor;
  /** Its newest check (epoch ms), or null. */
  lastAt: number | null;
  outages: Interval[];
  windows: Interval[];
}

/** One page of the overview: its rows in order, how many rows match the filter, and counts by status over everything. */
export interface OverviewPageData {
  items: Array<OverviewMonitorItem | { kind: 'healthcheck'; healthcheck: Healthcheck }>;
  /** Rows matching the filter (every page). */
  total: number;
  /** Monitors and healthchecks by overview status, and monitors in maintenance; over everything, not the filter. */
  counts: { up: number; down: number; paused: number; pending: number; maintenance: number };
}

