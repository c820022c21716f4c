/** A stretch of a schedule with nobody on call, as the overview's banner shows it (epoch ms). */
export interface OnCallGapView {
  scheduleUuid: string;
  scheduleName: string;
  start: number;
  end: number;
}

const when = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * The overview's warning that an on-call schedule has nobody on call somewhere in the next 7 days
 * (issue 34 point 5): one line per gap (at most 5 per schedule, then "and N more"), or nothing when
 * there is none. Escalation steps that target such a schedule page nobody during a gap (the next step
 * is then sent at once).
 */
export function OnCallGapsBanner(props: { gaps: OnCallGapView[] | undefined }) {
  const gaps = props.gaps ?? [];
  if (gaps.length === 0) return null;
  const bySchedule = new Map<string, OnCallGapView[]>();
  for (const g of gaps) bySchedule.set(g.scheduleUuid, [...(bySchedule.get(g.scheduleUuid) ?? []), g]);
  return (
    <div class="alert" id="on-call-gaps" role="status">
      <strong>Nobody on call in the next 7 days:</strong>
      <ul>
        {[...bySchedule.values()].map((list) => (
          <li>
            {list[0]!.scheduleName}: {list.slice(0, 5).map((g) => `${when(g.start)} to ${when(g.end)}`).join('; ')}
            {list.length > 5 ? ` and ${list.length - 5} more` : ''}
          </li>
        ))}
      </ul>
    </div>
  );
}
