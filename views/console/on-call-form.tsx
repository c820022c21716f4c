import type { FormErrors, Shell } from './model.ts';
import { Csrf, FormAlert, Layout } from './layout.tsx';

/**
 * The on-call schedule editor (issue 34 point 2): name, team, time zone and layers; each layer a
 * rotation of people picked in order (one select per turn), its length, hand-off time and first day,
 * and optional restriction windows. "Add layer", "Add person", "Add window" and "Remove layer" post
 * the form back with `op` (it returns with one more or less, nothing saved): works without JavaScript.
 */

/** One restriction window as typed. */
export interface WindowFormValues {
  days: string[];
  start: string;
  end: string;
}

/** One layer as typed (field names `layer_{i}_…`). */
export interface LayerFormValues {
  name: string;
  /** User uuids in turn order; '' for an empty slot. */
  users: string[];
  type: string;
  length: string;
  unit: string;
  handoff: string;
  start_date: string;
  restrictions: WindowFormValues[];
}

/** The whole editor as typed. */
export interface ScheduleFormValues {
  name: string;
  team: string;
  description: string;
  time_zone: string;
  layers: LayerFormValues[];
}

/** A person who may be put on call. */
export interface PersonChoice {
  uuid: string;
  name: string;
}

const DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const ORDINAL = (n: number) => `${n}${n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th'}`;

function Msg(props: { errors: FormErrors | undefined; name: string }) {
  const m = props.errors?.fields[props.name];
  return m ? (
    <span class="field-error" data-error-for={props.name}>
      {m}
    </span>
  ) : null;
}

function LayerFields(props: { v: LayerFormValues; i: number; people: PersonChoice[]; errors: FormErrors | undefined; many: boolean }) {
  const { v, i, people, errors } = props;
  const p = `layer_${i}_`;
  return (
    <fieldset class="stack card" id={`layer-${i}`}>
      <legend>Layer {i + 1}</legend>
      <input type="hidden" name={`${p}slots`} value={String(v.users.length)} />
      <input type="hidden" name={`${p}windows`} value={String(v.restrictions.length)} />
      <label>
        Layer name
        <input type="text" name={`${p}name`} value={v.name} />
        <Msg errors={errors} name={`${p}name`} />
      </label>
      <fieldset class="stack">
        <legend>People, in turn order</legend>
        <div class="oc-users">
          {v.users.map((u, j) => (
            <label>
              {ORDINAL(j + 1)}
              <select name={`${p}user_${j}`}>
                <option value="">—</option>
                {people.map((x) => (
                  <option value={x.uuid} selected={x.uuid === u}>
                    {x.name}
                  </option>
                ))}
              </select>
            </label>
          ))}
        </div>
        <Msg errors={errors} name={`${p}users`} />
        <button type="submit" name="op" value={`add-person-${i}`} class="secondary" formnovalidate>
          Add person
        </button>
      </fieldset>
      <label>
        Rotation
        <select name={`${p}type`}>
          {[
            ['weekly', 'Weekly (7 days each)'],
            ['daily', 'Daily (1 day each)'],
            ['custom', 'Custom length'],
          ].map(([value, label]) => (
            <option value={value} selected={v.type === value}>
              {label}
            </option>
          ))}
        </select>
        <Msg errors={errors} name={`${p}type`} />
      </label>
      <div class="row">
        <label>
          Custom length
          <input type="number" name={`${p}length`} value={v.length} min="1" inputmode="numeric" />
          <Msg errors={errors} name={`${p}length`} />
        </label>
        <label>
          Unit
          <select name={`${p}unit`}>
            <option value="days" selected={v.unit !== 'hours'}>
              days
            </option>
            <option value="hours" selected={v.unit === 'hours'}>
              hours
            </option>
          </select>
          <Msg errors={errors} name={`${p}unit`} />
        </label>
      </div>
      <div class="row">
        <label>
          Hand-off time
          <input type="time" name={`${p}handoff`} value={v.handoff} required />
          <Msg errors={errors} name={`${p}handoff`} />
        </label>
        <label>
          First turn starts on
          <input type="date" name={`${p}start_date`} value={v.start_date} required />
          <Msg errors={errors} name={`${p}start_date`} />
        </label>
      </div>
      <fieldset class="stack">
        <legend>Only within (optional; empty: always)</legend>
        {v.restrictions.map((w, k) => (
          <div class="stack" data-window={String(k)}>
            <div class="oc-days">
              {DAY_NAMES.map((d, n) => (
                <label>
                  <input type="checkbox" name={`${p}r${k}_days`} value={String(n + 1)} checked={w.days.includes(String(n + 1))} />
                  {d}
                </label>
              ))}
            </div>
            <Msg errors={errors} name={`${p}r${k}_days`} />
            <div class="row">
              <label>
                From
                <input type="time" name={`${p}r${k}_start`} value={w.start} />
                <Msg errors={errors} name={`${p}r${k}_start`} />
              </label>
              <label>
                Until
                <input type="text" name={`${p}r${k}_end`} value={w.end} placeholder="18:00 or 24:00" pattern="\d{2}:\d{2}" />
                <Msg errors={errors} name={`${p}r${k}_end`} />
              </label>
            </div>
          </div>
        ))}
        <button type="submit" name="op" value={`add-window-${i}`} class="secondary" formnovalidate>
          Add window
        </button>
      </fieldset>
      {props.many ? (
        <button type="submit" name="op" value={`remove-layer-${i}`} class="secondary" formnovalidate>
          Remove layer {i + 1}
        </button>
      ) : null}
    </fieldset>
  );
}

/** The schedule editor form (create when `uuid` is absent). */
export function ScheduleForm(props: { s: Shell; v: ScheduleFormValues; people: PersonChoice[]; zones: string[]; errors?: FormErrors | undefined; uuid?: string | undefined }) {
  const { s, v, errors } = props;
  return (
    <form class="stack" method="post" action={props.uuid ? `/on-call/${props.uuid}` : '/on-call'} id="schedule-form">
      <Csrf s={s} />
      <FormAlert errors={errors} />
      <input type="hidden" name="layers" value={String(v.layers.length)} />
      <div class="stack card">
        <label>
          Name
          <input type="text" name="name" value={v.name} required />
          <Msg errors={errors} name="name" />
        </label>
        <label>
          Team <span class="muted small">(optional)</span>
          <input type="text" name="team" value={v.team} />
          <Msg errors={errors} name="team" />
        </label>
        <label>
          Description <span class="muted small">(optional)</span>
          <input type="text" name="description" value={v.description} />
          <Msg errors={errors} name="description" />
        </label>
        <label>
          Time zone <span class="muted small">(hand-offs and windows are wall-clock times here)</span>
          <input type="text" name="time_zone" value={v.time_zone} list="time-zones" required />
          <Msg errors={errors} name="time_zone" />
        </label>
        <datalist id="time-zones">
          {props.zones.map((z) => (
            <option value={z} />
          ))}
        </datalist>
      </div>
      <p class="muted small">Layers: the bottom one first; a later layer wins where it has someone on call.</p>
      <Msg errors={errors} name="layers" />
      {v.layers.map((l, i) => (
        <LayerFields v={l} i={i} people={props.people} errors={errors} many={v.layers.length > 1} />
      ))}
      <div class="row">
        <button type="submit" name="op" value="add-layer" class="secondary" formnovalidate>
          Add layer
        </button>
        <button type="submit" name="op" value="save" id="save-schedule">
          {props.uuid ? 'Save schedule' : 'Create schedule'}
        </button>
      </div>
    </form>
  );
}

/** The "New on-call schedule" and "Edit …" pages. */
export function ScheduleFormPage(props: { s: Shell; v: ScheduleFormValues; people: PersonChoice[]; zones: string[]; errors?: FormErrors | undefined; uuid?: string | undefined; title: string }) {
  return (
    <Layout s={props.s} title={props.title}>
      <p>
        <a href={props.uuid ? `/on-call/${props.uuid}` : '/on-call'}>← {props.uuid ? 'Schedule' : 'On-call schedules'}</a>
      </p>
      <h1>{props.title}</h1>
      <ScheduleForm {...props} />
    </Layout>
  );
}
