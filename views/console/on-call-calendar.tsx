import { addDays, isoWeekday, localDateOf, localToUtc, type LocalDate } from '../../src/domain/on-call/zone.ts';

/**
 * The on-call calendar of the console (issue 34 point 2): a server-rendered grid of days (Monday
 * first, a row per week) with each day's shifts, one colour per person, today marked. On a phone
 * (narrow screens) the same markup reads as a list per day (CSS only; no script).
 */

/** One person's stretch within a day: `from`/`to` are local `HH:MM`, null when it runs from/to the day's edge. */
export interface CalendarShift {
  userUuid: string;
  name: string;
  /** Index into the palette (0–7), the same for a person everywhere on the page. */
  colour: number;
  from: string | null;
  to: string | null;
  /** True when an override put this person here. */
  override: boolean;
}

/** One day of the calendar. */
export interface CalendarDay {
  /** `YYYY-MM-DD`, local in the schedule's zone. */
  date: string;
  /** "Mon 30 Nov" */
  label: string;
  today: boolean;
  past: boolean;
  shifts: CalendarShift[];
  /** True when part of the day has nobody on call. */
  gap: boolean;
}

/** A shift as the calendar takes it (the core timeline's shape; epoch ms). */
export interface TimelineShift {
  start: number;
  end: number;
  userUuid: string;
  overrideUuid: string | null;
}

const iso = (d: LocalDate) => `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `HH:MM` of epoch ms `at` in `zone` (24-hour clock). */
export function localTime(zone: string, at: number): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(at));
}

/** "Mon 30 Nov 09:00" of epoch ms `at` in `zone`. */
export function localWhen(zone: string, at: number): string {
  const d = localDateOf(zone, at);
  return `${WEEKDAYS[isoWeekday(d) - 1]} ${d.day} ${MONTHS[d.month - 1]} ${localTime(zone, at)}`;
}

/** The Monday (local) of the week holding `at` in `zone`. */
export function weekStart(zone: string, at: number): LocalDate {
  const d = localDateOf(zone, at);
  return addDays(d, 1 - isoWeekday(d));
}

/**
 * The calendar's days: `days` local days from `first` in `zone`, each with the shifts of `shifts`
 * clipped to it (a person's adjacent pieces merged), named by `names` and coloured by `colourOf`.
 */
export function calendarDays(zone: string, first: LocalDate, days: number, now: number, shifts: TimelineShift[], names: Map<string, string>, colourOf: (user: string) => number): CalendarDay[] {
  const today = iso(localDateOf(zone, now));
  const out: CalendarDay[] = [];
  for (let i = 0; i < days; i++) {
    const date = addDays(first, i);
    const start = localToUtc(zone, date, 0, 0);
    const end = localToUtc(zone, addDays(date, 1), 0, 0);
    const pieces: Array<{ start: number; end: number; userUuid: string; override: boolean }> = [];
    for (const s of shifts) {
      if (s.end <= start || s.start >= end) continue;
      const piece = { start: Math.max(s.start, start), end: Math.min(s.end, end), userUuid: s.userUuid, override: s.overrideUuid !== null };
      const last = pieces.at(-1);
      if (last && last.end === piece.start && last.userUuid === piece.userUuid && last.override === piece.override) last.end = piece.end;
      else pieces.push(piece);
    }
    const covered = pieces.reduce((sum, p) => sum + (p.end - p.start), 0);
    out.push({
      date: iso(date),
      label: `${WEEKDAYS[isoWeekday(date) - 1]} ${date.day} ${MONTHS[date.month - 1]}`,
      today: iso(date) === today,
      past: iso(date) < today,
      gap: covered < end - start,
      shifts: pieces.map((p) => ({
        userUuid: p.userUuid,
        name: names.get(p.userUuid) ?? p.userUuid,
        colour: colourOf(p.userUuid),
        from: p.start === start ? null : localTime(zone, p.start),
        to: p.end === end ? null : localTime(zone, p.end),
        override: p.override,
      })),
    });
  }
  return out;
}

/** Number of colours of the palette. */
export const PALETTE_SIZE = 8;

/** The calendar grid (a list per day on a phone). */
export function OnCallCalendar(props: { days: CalendarDay[]; zone: string }) {
  return (
    <div class="oc-cal-wrap">
      <p class="muted small">Times in {props.zone}. A ★ marks an override.</p>
      <div class="oc-cal" id="on-call-calendar">
        {WEEKDAYS.map((w) => (
          <div class="oc-head" aria-hidden="true">
            {w}
          </div>
        ))}
        {props.days.map((d) => (
          <div class={`oc-day${d.today ? ' oc-today' : ''}${d.past ? ' oc-past' : ''}`} data-date={d.date} aria-current={d.today ? 'date' : undefined}>
            <div class="oc-date">
              {d.label}
              {d.today ? <span class="oc-today-mark"> today</span> : null}
            </div>
            <ul class="oc-shifts">
              {d.shifts.map((s) => (
                <li class={`oc-shift oc-p${s.colour}`} data-user={s.userUuid}>
                  {s.override ? '★ ' : ''}
                  {s.name}
                  {s.from !== null || s.to !== null ? <span class="oc-time"> {`${s.from ?? '00:00'}–${s.to ?? '24:00'}`}</span> : null}
                </li>
              ))}
              {d.gap ? <li class="oc-gap">nobody on call{d.shifts.length > 0 ? ' part of the day' : ''}</li> : null}
            </ul>
          </div>
        ))}
      </div>
    </div>
  );
}

/** The calendar's CSS (grid on wide screens, a list per day on narrow ones; one colour per person). */
export const ON_CALL_CSS = `
.oc-cal{display:grid;grid-template-columns:repeat(7,minmax(0,1fr));gap:2px;margin:.5rem 0}
.oc-head{font-weight:600;font-size:.85rem;text-align:center;padding:.2rem}
.oc-day{border:1px solid var(--line);border-radius:4px;padding:.25rem;min-height:4.5rem;min-width:0}
.oc-day.oc-past{border-style:dashed}
.oc-past .oc-date{font-weight:400}
.oc-day.oc-today{outline:2px solid currentColor;outline-offset:-2px}
.oc-date{font-size:.8rem;font-weight:600}
.oc-today-mark{font-weight:700}
.oc-shifts{list-style:none;margin:.2rem 0 0;padding:0}
.oc-shift{border-radius:3px;padding:.1rem .25rem;margin:.1rem 0;font-size:.8rem;overflow-wrap:anywhere;color:#111}
.oc-time{font-size:.75rem}
.oc-gap{font-size:.75rem;font-style:italic}
.oc-p0{background:#bfdbfe}.oc-p1{background:#fde68a}.oc-p2{background:#bbf7d0}.oc-p3{background:#fbcfe8}
.oc-p4{background:#ddd6fe}.oc-p5{background:#fed7aa}.oc-p6{background:#a5f3fc}.oc-p7{background:#e5e7eb}
.oc-people{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.4rem}
.oc-people li{border-radius:3px;padding:.1rem .4rem;color:#111}
.oc-users{display:flex;flex-wrap:wrap;gap:.4rem}
.oc-days{display:flex;flex-wrap:wrap;gap:.2rem .6rem;border:0;padding:0}
.oc-days label{display:inline-flex;gap:.2rem;align-items:center}
.oc-feed{overflow-wrap:anywhere}
@media (max-width:40rem){
.oc-cal{display:block}
.oc-head{display:none}
.oc-day{min-height:0;margin:0 0 .3rem}
.oc-day.oc-past{display:none}
}
`;
