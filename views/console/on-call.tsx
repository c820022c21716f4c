import type { FormErrors, Shell } from './model.ts';
import { canWrite } from './model.ts';
import { Csrf, FormAlert, Layout } from './layout.tsx';
import { Notice } from './integrations.tsx';
import { OnCallCalendar, type CalendarDay } from './on-call-calendar.tsx';
import type { PersonChoice } from './on-call-form.tsx';

/**
 * The On-call pages of the console (issue 34 point 2): the schedules with who is on call now and
 * next, and a schedule's page (calendar of the coming weeks, overrides, iCal links). Plain forms that
 * post and redirect; editors and admins change, viewers see.
 */

/** Someone on call for a stretch, as the pages show it ("Ada until Mon 7 Dec 09:00"). */
export interface OnCallLine {
  name: string;
  /** Local "Mon 7 Dec 09:00" in the schedule's zone. */
  since: string;
  until: string;
}

/** One schedule of the list. */
export interface ScheduleRow {
  uuid: string;
  name: string;
  team: string | null;
  timeZone: string;
  now: OnCallLine | null;
  next: OnCallLine | null;
}

/** An override as the schedule page lists it (local times). */
export interface OverrideRow {
  uuid: string;
  name: string;
  start: string;
  end: string;
  note: string | null;
}

const Who = (props: { line: OnCallLine | null; id: string; what: 'now' | 'next' }) =>
  props.line ? (
    <span data-on-call={props.id}>
      <strong>{props.line.name}</strong> <span class="muted small">{props.what === 'now' ? `until ${props.line.until}` : `from ${props.line.since}`}</span>
    </span>
  ) : (
    <span class="muted" data-on-call={props.id}>
      nobody
    </span>
  );

/** The list of on-call schedules. */
export function OnCallListPage(props: { s: Shell; rows: ScheduleRow[]; notice?: string | undefined }) {
  const { s } = props;
  return (
    <Layout s={s} title="On-call">
      <h1>On-call</h1>
      <p class="muted">Who is on call: rotations of people in a time zone, with overrides. Escalation policies page whoever is on call when a step fires; people set how they are reached on their Profile.</p>
      <Notice text={props.notice} />
      {canWrite(s) ? (
        <p>
          <a class="button" href="/on-call/new" id="new-schedule">
            New schedule
          </a>
        </p>
      ) : null}
      <div class="card">
        <table class="rows" id="schedules">
          <thead>
            <tr>
              <th>Schedule</th>
              <th>On call now</th>
              <th>Next</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((r) => (
              <tr id={`schedule-${r.uuid}`} data-name={r.name}>
                <td>
                  <a href={`/on-call/${r.uuid}`}>{r.name}</a> {r.team ? <span class="muted small">({r.team})</span> : null} <span class="muted small">{r.timeZone}</span>
                </td>
                <td>
                  <Who line={r.now} id="now" what="now" />
                </td>
                <td>
                  <Who line={r.next} id="next" what="next" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {props.rows.length === 0 ? <p class="muted">No on-call schedule yet.</p> : null}
      </div>
    </Layout>
  );
}

/** What the schedule page shows. */
export interface SchedulePageProps {
  s: Shell;
  uuid: string;
  name: string;
  team: string | null;
  description: string | null;
  timeZone: string;
  now: OnCallLine | null;
  next: OnCallLine | null;
  days: CalendarDay[];
  overrides: OverrideRow[];
  /** Everyone who may be put on call (override form). */
  people: PersonChoice[];
  /** The schedule's people with their palette colour (legend; iCal links). */
  members: Array<PersonChoice & { colour: number }>;
  /** A feed URL just made (shown once). */
  feed?: { what: string; url: string } | undefined;
  notice?: string | undefined;
  errors?: FormErrors | undefined;
  /** The override form as typed after an error. */
  override?: { user: string; start: string; end: string; note: string } | undefined;
}

/** One schedule: now/next, the calendar of the coming weeks, overrides and iCal links. */
export function SchedulePage(props: SchedulePageProps) {
  const { s, uuid } = props;
  const o = props.override ?? { user: '', start: '', end: '', note: '' };
  return (
    <Layout s={s} title={props.name}>
      <p>
        <a href="/on-call">← On-call</a>
      </p>
      <h1>{props.name}</h1>
      {props.team ? <p class="muted">Team: {props.team}</p> : null}
      {props.description ? <p>{props.description}</p> : null}
      <Notice text={props.notice} />
      {props.feed ? (
        <div class="notice" id="new-feed" role="status">
          <p>
            New iCal link for {props.feed.what} (shown once; keep it secret; the old one stopped working):
          </p>
          <p class="oc-feed">
            <code>{props.feed.url}</code>
          </p>
        </div>
      ) : null}
      <p id="now-next">
        On call now: <Who line={props.now} id="now" what="now" /> · Next: <Who line={props.next} id="next" what="next" />
      </p>
      {canWrite(s) ? (
        <p class="row">
          <a class="button" href={`/on-call/${uuid}/edit`} id="edit-schedule">
            Edit schedule
          </a>
        </p>
      ) : null}
      <h2>Next four weeks</h2>
      <ul class="oc-people" aria-label="People">
        {props.members.map((m) => (
          <li class={`oc-p${m.colour}`}>{m.name}</li>
        ))}
      </ul>
      <OnCallCalendar days={props.days} zone={props.timeZone} />
      <h2>Overrides</h2>
      <div class="card">
        <ul id="overrides">
          {props.overrides.map((x) => (
            <li data-override={x.uuid}>
              <strong>{x.name}</strong> covers {x.start} to {x.end} {x.note ? <span class="muted">({x.note})</span> : null}
              {canWrite(s) ? (
                <form method="post" action={`/on-call/${uuid}/overrides/${x.uuid}/remove`} class="inline">
                  <Csrf s={s} />
                  <button type="submit" class="secondary small">
                    Remove
                  </button>
                </form>
              ) : null}
            </li>
          ))}
        </ul>
        {props.overrides.length === 0 ? <p class="muted">No override ahead.</p> : null}
      </div>
      {canWrite(s) ? (
        <form method="post" action={`/on-call/${uuid}/overrides`} class="stack card" id="add-override">
          <h3>Someone covers</h3>
          <Csrf s={s} />
          <FormAlert errors={props.errors} />
          <label>
            Person
            <select name="user_uuid" required>
              <option value="">—</option>
              {props.people.map((p) => (
                <option value={p.uuid} selected={p.uuid === o.user}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
          <div class="row">
            <label>
              From ({props.timeZone})
              <input type="datetime-local" name="start" value={o.start} required />
            </label>
            <label>
              Until
              <input type="datetime-local" name="end" value={o.end} required />
            </label>
          </div>
          <label>
            Note <span class="muted small">(optional)</span>
            <input type="text" name="note" value={o.note} />
          </label>
          <button type="submit">Add override</button>
        </form>
      ) : null}
      <h2>Calendar links (iCal)</h2>
      <p class="muted small">Subscribe from a calendar app. A link is shown once when made; making a new one turns the old one off.</p>
      <ul class="stack" id="feeds">
        <FeedLine s={s} action={`/on-call/${uuid}/ical`} what="this schedule" />
        {props.members.map((m) => (
          <FeedLine s={s} action={`/on-call/${uuid}/ical/${m.uuid}`} what={`${m.name}'s shifts (every schedule)`} />
        ))}
      </ul>
      {canWrite(s) ? (
        <form method="post" action={`/on-call/${uuid}/remove`} class="card" id="delete-schedule">
          <Csrf s={s} />
          <button type="submit" class="danger">
            Delete schedule
          </button>
        </form>
      ) : null}
    </Layout>
  );
}

function FeedLine(props: { s: Shell; action: string; what: string }) {
  return (
    <li>
      {props.what}{' '}
      {canWrite(props.s) ? (
        <form method="post" action={props.action} class="inline">
          <Csrf s={props.s} />
          <button type="submit" class="secondary small">
            Make a new link
          </button>
        </form>
      ) : null}
    </li>
  );
}
