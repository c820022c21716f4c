import type { Logger } from '../lib/logger.ts';
import type { Monitor } from '../domain/monitor.ts';
import { REGIONS } from '../domain/regions.ts';
import type { Store } from '../store/index.ts';
import { procedure } from '../store/async.ts';

/** A numeric key per (monitor, region): no string is built per result on the hot path. */
const REGION_SLOTS = 32;
const REGION_INDEX = new Map<string, number>(REGIONS.map((r, i) => [r, i]));
const lastKey = (monitorId: number, region: string) => monitorId * REGION_SLOTS + (REGION_INDEX.get(region) ?? REGION_SLOTS - 1);

/** Start time (epoch ms) of the newest stored result of each monitor (any region), null for none: one read for many monitors. */
const lastCheckTimes = procedure('probes.lastCheckTimes', (tx: Store, a: { monitorIds: number[] }): Array<number | null> => a.monitorIds.map((id) => tx.checks.lastCheckAt(id)));

/**
 * When each monitor's check is next due in each region, continuing the probe that had it (a
 * hand-over between probes keeps the rhythm): the start of the newest result seen per monitor and
 * region, in memory, plus one frequency. What memory does not know yet (the first hand-over after a
 * restart) is read from the store asynchronously ({@link fill}: one read for all of them), never
 * with the event loop waiting.
 */
export function probeDueTimes(deps: { store: Store; logger: Logger }) {
  /** {@link lastKey} of a monitor and region → start (epoch ms) of the newest result seen for it. */
  const lastAt = new Map<number, number>();
  return {
    /** Notes a result that started at `at` (epoch ms). */
    note(monitorId: number, region: string, at: number): void {
      const key = lastKey(monitorId, region);
      if ((lastAt.get(key) ?? -1) < at) lastAt.set(key, at);
    },
    /** Forgets what is known of `monitorId` in `region` (read again by the next {@link fill}). */
    drop(monitorId: number, region: string): void {
      lastAt.delete(lastKey(monitorId, region));
    },
    /** Forgets a monitor in every region (deleted, paused). */
    forget(monitorId: number): void {
      for (let r = 0; r < REGIONS.length; r++) lastAt.delete(monitorId * REGION_SLOTS + r);
    },
    /**
     * When `m` is next due in `region` (epoch ms); undefined when no result of it is known here (none
     * stored, or not read yet: {@link fill}). A monitor without results is read again at each fill,
     * as results may have been stored by another instance meanwhile.
     */
    dueAt(m: Monitor, region: string): number | undefined {
      const last = lastAt.get(lastKey(m.id, region));
      return last === undefined ? undefined : last + m.checkFrequencySeconds * 1000;
    },
    /**
     * Reads what is not known of these monitors and regions from the store, in one asynchronous read
     * (a result noted meanwhile wins when newer). Never rejects: a failed read is logged, and what it
     * was for stays unknown (planned as never checked).
     */
    async fill(pairs: Iterable<readonly [Monitor, string]>): Promise<void> {
      const missing = [...pairs].filter(([m, r]) => !lastAt.has(lastKey(m.id, r)));
      if (missing.length === 0) return;
      const ids = [...new Set(missing.map(([m]) => m.id))];
      let times: Array<number | null>;
      try {
        times = await deps.store.async.tx(lastCheckTimes, { monitorIds: ids });
      } catch (e) {
        deps.logger.warn('reading when monitors were last checked failed: their next check is planned without it', { monitors: ids.length, error: (e as Error).message });
        return;
      }
      const byId = new Map(ids.map((id, i) => [id, times[i] ?? null]));
      for (const [m, r] of missing) {
        const key = lastKey(m.id, r);
        const stored = byId.get(m.id) ?? null;
        if (stored !== null && (lastAt.get(key) ?? -1) < stored) lastAt.set(key, stored);
      }
    },
  };
}

/** The due-time memory of the probes service. */
export type ProbeDueTimes = ReturnType<typeof probeDueTimes>;
