import type { MaintenanceWindow } from '../../src/domain/maintenance.ts';
import type { Occurrence, Recurrence } from '../../src/domain/maintenance-recurrence.ts';
import type { FormErrors, FormValues, Shell } from './model.ts';
import { canWrite, formList as list, formValue as val } from './model.ts';
import { Csrf, FieldError } from './layout.tsx';

/**
 * The maintenance screen's recurring parts (issue 33 point 6): a window's row (state, when, next
 * occurrences, Edit, End now) and the recurrence fields of the window form. The form itself and its
 * monitor field stay in extras.tsx (`MaintenancePage`).
 */


/** Weekday names, 0 = Sunday (the API's `days_of_week`). */
export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** `at` on the wall clock of `zone`: `2026-03-29 03:00 CEST` (Intl formats; the zone's own abbreviation). */
export function zoned(at: number, zone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' }).formatToParts(at);
  const p = (t: string) => parts.find((x) => x.type === t)?.value ?? '';
  return `${p('year')}-${p('month')}-${p('day')} ${p('hour')}:${p('minute')} ${p('timeZoneName')}`;
}

const minutes = (n: number) => (n % 60 === 0 ? `${n / 60} h` : n > 60 ? `${Math.floor(n / 60)} h ${n % 60} min` : `${n} min`);

/** How a recurrence reads: `Weekly on Sunday at 02:00 for 1 h (Europe/Berlin)`. */
export function recurrenceText(r: Recurrence, zone: string): string {
  const at = r.startTime ? ` at ${r.startTime}` : '';
  const what =
    r.strategy === 'daily'
      ? `Daily${at}`
      : r.strategy === 'weekly'
        ? `Weekly on ${r.daysOfWeek.map((d) => WEEKDAYS[d]).join(', ')}${at}`
        : r.strategy === 'monthly'
          ? `Monthly on day ${r.daysOfMonth.join(', ')}${at}`
          : `Cron ${r.cron}`;
  return `${what} for ${minutes(r.durationMinutes)} (${zone})`;
}

/** The window's state at `now` by its occurrence (the store put the ongoing, next or last one in startAt/endAt). */
export const windowState = (w: MaintenanceWindow, now: number) => (now < w.startAt ? 'upcoming' : now < w.endAt ? 'ongoing' : 'completed');

/** An occurrence as `2026-03-29 03:00 CEST – 04:00 CEST` (the end's date only when it is another day). */
function span(o: Occurrence, zone: string): string {
  const start = zoned(o.startAt, zone);
  const end = zoned(o.endAt, zone);
  return `${start} – ${end.slice(0, 10) === start.slice(0, 10) ? end.slice(11) : end}`;
}

function Occurrences(props: { list: Occurrence[]; zone: string }) {
  return (
    <ul class="occurrences small" aria-label="Next occurrences">
      {props.list.map((o) => (
        <li>
          {span(o, props.zone)}
        </li>
      ))}
    </ul>
  );
}

/** One window of the list: state, name, when (recurring: the rule and the next occurrences), Edit and End now. */
export function WindowRow(props: { s: Shell; w: MaintenanceWindow; now: number }) {
  const { s, w, now } = props;
  const state = windowState(w, now);
  return (
    <tr id={`window-${w.uuid}`}>
      <td>
        <span class="status" data-status={state === 'ongoing' ? 'new' : 'paused'}>
          {state}
        </span>
      </td>
      <td>
        {w.name}
        <div class="muted small">
          {w.recurrence ? recurrenceText(w.recurrence, w.timezone) : span(w, w.timezone)} · {w.monitors.length} {w.monitors.length === 1 ? 'monitor' : 'monitors'}
        </div>
        {w.recurrence ? w.upcoming.length ? <Occurrences list={w.upcoming} zone={w.timezone} /> : <div class="muted small">No more occurrences.</div> : null}
      </td>
      <td class="actions">
        {canWrite(s) ? (
          <>
            <a class="button secondary" href={`/maintenance/${w.uuid}`}>
              Edit
            </a>
            {state === 'ongoing' ? (
              <form method="post" action={`/maintenance/${w.uuid}/end`}>
                <Csrf s={s} />
                <button type="submit" class="secondary">
                  End now
                </button>
              </form>
            ) : null}
          </>
        ) : null}
      </td>
    </tr>
  );
}

/**
 * A recurrence field's error: the console's form errors are keyed by the first segment of the path
 * (`recurrence`), so the full path in the message says which field it is.
 */
function RecurrenceError(props: { errors?: FormErrors | undefined; field: string }) {
  const e = props.errors;
  const m = e?.fields.recurrence !== undefined && e.message.startsWith(`recurrence.${props.field}`) ? e.fields.recurrence : undefined;
  return m ? (
    <span class="field-error" data-error-for={`recurrence.${props.field}`}>
      {m}
    </span>
  ) : null;
}

/** IANA zone names the runtime knows (for the form's suggestions). */
const ZONES: readonly string[] = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? ['UTC'];

/**
 * The window form's time zone, strategy and each strategy's fields. Every field is in the page (JS
 * off: all visible, the chosen strategy's are read); with JS on the console script shows only the
 * chosen strategy's (`data-strategies`, src/http/console/maintenance-client.ts). The one-off start and
 * end fields (extras.tsx) carry `data-strategies="once"`.
 */
export function RecurrenceFields(props: { f: FormValues; errors?: FormErrors | undefined }) {
  const { f, errors } = props;
  const strategy = val(f, 'strategy', 'once');
  const days = list(f, 'days_of_week');
  return (
    <>
      <label>
        Time zone
        <input type="text" name="timezone" value={val(f, 'timezone', 'UTC')} list="time-zones" autocomplete="off" required />
        <span class="muted small">An IANA name such as Europe/Berlin: times below are its wall clock, daylight saving included.</span>
        <FieldError errors={errors} name="timezone" />
      </label>
      <datalist id="time-zones">
        {ZONES.map((z) => (
          <option value={z} />
        ))}
      </datalist>
      <label>
        Repeats
        <select name="strategy" data-strategy-select>
          {(
            [
              ['once', 'Once'],
              ['daily', 'Daily'],
              ['weekly', 'Weekly'],
              ['monthly', 'Monthly'],
              ['cron', 'Cron expression'],
            ] as const
          ).map(([v, label]) => (
            <option value={v} selected={strategy === v}>
              {label}
            </option>
          ))}
        </select>
        <RecurrenceError errors={errors} field="strategy" />
      </label>
      <fieldset data-strategies="weekly">
        <legend>Days of the week (weekly)</legend>
        {WEEKDAYS.map((d, i) => (
          <label class="check">
            <input type="checkbox" name="days_of_week" value={String(i)} checked={days.includes(String(i))} /> {d}
          </label>
        ))}
        <RecurrenceError errors={errors} field="days_of_week" />
      </fieldset>
      <label data-strategies="monthly">
        Days of the month (monthly)
        <input type="text" name="days_of_month" value={val(f, 'days_of_month')} placeholder="1, 15, last" />
        <span class="muted small">Comma-separated, 1–31 or "last"; a month without the day skips it.</span>
        <RecurrenceError errors={errors} field="days_of_month" />
      </label>
      <label data-strategies="cron">
        Cron expression (cron)
        <input type="text" name="cron" value={val(f, 'cron')} placeholder="30 4 * * 1-5" />
        <span class="muted small">5 fields: minute hour day-of-month month day-of-week, in the time zone above.</span>
        <RecurrenceError errors={errors} field="cron" />
      </label>
      <label data-strategies="daily weekly monthly">
        Starts at (daily, weekly, monthly)
        <input type="time" name="start_time" value={val(f, 'start_time')} />
        <RecurrenceError errors={errors} field="start_time" />
      </label>
      <label data-strategies="daily weekly monthly cron">
        Duration in minutes (recurring)
        <input type="number" name="duration_minutes" min="1" max="44640" value={val(f, 'duration_minutes')} />
        <RecurrenceError errors={errors} field="duration_minutes" />
      </label>
      <label data-strategies="daily weekly monthly cron">
        Valid from (recurring, optional)
        <input type="date" name="valid_from" value={val(f, 'valid_from')} />
        <RecurrenceError errors={errors} field="valid_from" />
      </label>
      <label data-strategies="daily weekly monthly cron">
        Valid until (recurring, optional, inclusive)
        <input type="date" name="valid_until" value={val(f, 'valid_until')} />
        <RecurrenceError errors={errors} field="valid_until" />
      </label>
    </>
  );
}

/** The maintenance screen's CSS (added to console.css by style.ts): a hidden strategy field stays hidden against `label{display:grid}`. */
export const MAINTENANCE_CSS = '[data-strategies][hidden]{display:none}.occurrences{margin:.2rem 0 0;padding-left:1.1rem}td.actions{display:flex;gap:.4rem;flex-wrap:wrap}td.actions form{margin:0}';
