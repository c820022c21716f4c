import type { Core } from '../../core/index.ts';
import type { OnCallGapView } from '../../../views/console/on-call-gaps.tsx';

/** How far ahead the overview looks for on-call gaps, ms (7 days). */
export const GAP_LOOKAHEAD_MS = 7 * 86_400_000;

/**
 * Every stretch of the next 7 days in which an on-call schedule has nobody on call (core.onCall
 * `timeline` gaps), for the overview's banner (issue 34 point 5); schedules by name.
 * @throws (rejects) AppError 503 when the store cannot be reached
 */
export async function onCallGapsAhead(core: Pick<Core, 'onCall'>, now: number): Promise<OnCallGapView[]> {
  const schedules = await core.onCall.list();
  const out: OnCallGapView[] = [];
  for (const view of schedules) {
    const { gaps } = await core.onCall.timeline(view.schedule.uuid, now, now + GAP_LOOKAHEAD_MS);
    for (const g of gaps) out.push({ scheduleUuid: view.schedule.uuid, scheduleName: view.schedule.name, start: g.start, end: g.end });
  }
  return out;
}
