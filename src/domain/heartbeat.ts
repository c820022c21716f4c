import type { Interval } from './report.ts';

/**
 * Heartbeats (issue 33 point 2): the console's row of a monitor's newest checks, one bar each, as
 * Uptime Kuma shows them ("heartbeat bars"). A bar's state is the check's outcome as a person reads it.
 */

/** How many of a monitor's newest checks the bars show (Kuma shows about as many in its list). */
export const HEARTBEAT_COUNT = 50;

/** `up`: passed; `degraded`: passed but slower than the http `degraded_after_ms`; `down`: failed; `maintenance`: ran inside a maintenance window of the monitor (whatever its outcome). */
export type BeatState = 'up' | 'degraded' | 'down' | 'maintenance';

/** One check as a bar. */
export interface Heartbeat {
  /** Start of the check, epoch ms. */
  at: number;
  /** Wall time of the check, ms. */
  latencyMs: number;
  /** The region it ran for. */
  region: string;
  state: BeatState;
}

/** A check result as it landed (core/checks.ts emits `checks.stored` with these after the commit). */
export interface LandedResult {
  monitorId: number;
  /** Start of the check, epoch ms. */
  at: number;
  ok: boolean;
  latencyMs: number;
  region: string;
}

/**
 * The state of one check's bar. Maintenance wins (the monitor's outcome does not count then, as in
 * the uptime figures of src/domain/uptime.ts); then a failure; then slowness over `slowMs` (the
 * http protocol's `degraded_after_ms`, null when unset), the probe's own rule (protocols/http).
 * @param windows the monitor's maintenance windows (an open end is ongoing)
 */
export function beatState(ok: boolean, latencyMs: number, at: number, slowMs: number | null, windows: readonly Interval[]): BeatState {
  for (const w of windows) if (w.startAt <= at && (w.endAt === null || at < w.endAt)) return 'maintenance';
  if (!ok) return 'down';
  return slowMs !== null && latencyMs > slowMs ? 'degraded' : 'up';
}

/** The http protocol's `degraded_after_ms` of a monitor's stored settings, or null. */
export function slowAfterMs(settings: Record<string, unknown>): number | null {
  const v = settings.degraded_after_ms;
  return typeof v === 'number' && v > 0 ? v : null;
}
