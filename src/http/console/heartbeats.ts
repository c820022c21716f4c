import type { Core } from '../../core/index.ts';
import type { OverviewRow } from '../../core/console-view.ts';

/** Rows past this many on one page get no bars (the overview pages at 50–100 rows; a page of 10,000 stays cheap). */
export const HEARTBEAT_ROWS_MAX = 200;

/**
 * Sets `beats` (heartbeat bars, issue 33 point 2) on the monitor rows given, in one store read for
 * all of them (core/console-view.ts `heartbeats`). Healthcheck rows are left as they are.
 */
export async function fillHeartbeats(core: Pick<Core, 'consoleView'>, rows: OverviewRow[]): Promise<void> {
  const mine = rows.filter((r) => r.kind === 'monitor').slice(0, HEARTBEAT_ROWS_MAX);
  if (mine.length === 0) return;
  const beats = await core.consoleView.heartbeats(mine.map((r) => r.uuid));
  for (const r of mine) r.beats = beats.get(r.uuid) ?? [];
}
