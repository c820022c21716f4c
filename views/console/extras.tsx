import type { Component, Incident } from '../../src/domain/incident.ts';
import { COMPONENT_STATUSES, INCIDENT_TYPES, UPDATE_TYPES } from '../../src/domain/incident.ts';
import { LANGUAGES, type LocalizedText } from '../../src/domain/localized.ts';
import type { MaintenanceWindow } from '../../src/domain/maintenance.ts';
import type { FormErrors, FormValues, Shell } from './model.ts';
import { canWrite, formList as list, formValue as val } from './model.ts';
import { Csrf, FieldError, FormAlert, Layout, Ticks, when } from './layout.tsx';
import { Picker, type PickerModel } from './picker.tsx';
import { RecurrenceFields, WindowRow } from './maintenance.tsx';
import { IncidentActions } from './incidents.tsx';

const firstText = (t: LocalizedText | null) => (t ? (t.en ?? Object.values(t)[0] ?? '') : '');

/** A uuid and name to tick in a form. */
export interface Choice {
  uuid: string;
  name: string;
}


/**
 * Maintenance windows: the list (state by occurrence, next occurrences, Edit, End now: maintenance.tsx
 * `WindowRow`) and the create form; with `editing`, only the same form filled in for that window.
 */
export function MaintenancePage(props: { s: Shell; windows: MaintenanceWindow[]; monitors: Choice[]; now: number; values: FormValues; errors?: FormErrors | undefined; editing?: MaintenanceWindow | undefined; monitorPicker?: PickerModel }) {
  const { s, values: f, errors, editing } = props;
  return (
    <Layout s={s} title={editing ? `Edit ${editing.name}` : 'Maintenance'}>
      <h1>{editing ? `Edit maintenance window ${editing.name}` : 'Maintenance windows'}</h1>
      {editing ? null : (
      <div class="card">
        <table class="rows" id="maintenance">
          <tbody>
            {props.windows.map((w) => (
              <WindowRow s={s} w={w} now={props.now} />
            ))}
          </tbody>
        </table>
        {props.windows.length === 0 ? <p class="muted">No maintenance window.</p> : null}
      </div>
      )}
      {canWrite(s) ? (
        <form class="stack card" method="post" action={editing ? `/maintenance/${editing.uuid}` : '/maintenance'} data-recurrence>
          <h2>{editing ? 'Window' : 'New window'}</h2>
          <Csrf s={s} />
          <FormAlert errors={errors} />
          <label>
            Name
            <input type="text" name="name" value={val(f, 'name')} required />
            <FieldError errors={errors} name="name" />
          </label>
          <RecurrenceFields f={f} errors={errors} />
          <label data-strategies="once">
            Starts (once, in the time zone above)
            <input type="datetime-local" name="start_date" value={val(f, 'start_date')} />
            <FieldError errors={errors} name="start_date" />
          </label>
          <label data-strategies="once">
            Ends (once, in the time zone above)
            <input type="datetime-local" name="end_date" value={val(f, 'end_date')} />
            <FieldError errors={errors} name="end_date" />
          </label>
          {props.monitorPicker ? <Picker p={props.monitorPicker} legend="Monitors" source="monitors" errors={errors} /> : <Ticks name="monitors" legend="Monitors" choices={props.monitors} f={f} errors={errors} />}
          <button type="submit">{editing ? 'Save' : 'Schedule'}</button>
        </form>
      ) : null}
    </Layout>
  );
}

/**
 * One tab per language of an update's text: radio buttons and labels styled as tabs (console.css
 * shows the panel of the checked one), so they work with JavaScript off.
 */
function LanguageTabs(props: { id: string; text: LocalizedText }) {
  const langs = Object.keys(props.text);
  return (
    <div class="tabs" data-tabs={props.id}>
      {langs.map((lang, i) => (
        <>
          <input type="radio" name={`tab-${props.id}`} id={`tab-${props.id}-${lang}`} value={lang} checked={i === 0} />
          <label for={`tab-${props.id}-${lang}`}>{lang}</label>
        </>
      ))}
      {langs.map((lang) => (
        <div lang={lang} data-lang={lang}>
          {props.text[lang as keyof LocalizedText]}
        </div>
      ))}
    </div>
  );
}

/** Incidents: the list (one tab per language of each update) and the create form (first update in English). */
export function IncidentsPage(props: { s: Shell; incidents: Incident[]; statuspages: Choice[]; values: FormValues; errors?: FormErrors | undefined }) {
  const { s, values: f, errors } = props;
  return (
    <Layout s={s} title="Incidents">
      <h1>Incidents</h1>
      {props.incidents.map((i) => (
        <div class="card" data-incident={i.uuid}>
          <h2>
            {firstText(i.title)} <span class="muted small">({i.type})</span>
          </h2>
          <IncidentActions s={s} i={i} />
          <ol class="timeline">
            {i.updates.map((u) => (
              <li>
                <span class="muted small">
                  {when(u.at)} · {u.type}
                </span>
                <LanguageTabs id={u.uuid} text={u.text} />
              </li>
            ))}
          </ol>
          {canWrite(s) ? (
            <form method="post" action={`/incidents/${i.uuid}/updates`} class="actions">
              <Csrf s={s} />
              <select name="lang" aria-label="Language">
                {LANGUAGES.map((l) => (
                  <option value={l}>{l}</option>
                ))}
              </select>
              <select name="type" aria-label="Update kind">
                {UPDATE_TYPES.map((t) => (
                  <option value={t}>{t}</option>
                ))}
              </select>
              <input type="text" name="text" aria-label="Update" placeholder="What changed" required />
              <button type="submit" class="secondary">
                Post update
              </button>
            </form>
          ) : null}
        </div>
      ))}
      {props.incidents.length === 0 ? <p class="muted">No incident.</p> : null}
      {canWrite(s) ? (
        <form class="stack card" method="post" action="/incidents">
          <h2>New incident</h2>
          <Csrf s={s} />
          <FormAlert errors={errors} />
          <label>
            Title (English)
            <input type="text" name="title" value={val(f, 'title')} required />
            <FieldError errors={errors} name="title" />
          </label>
          <label>
            Kind
            <select name="type">
              {INCIDENT_TYPES.map((t) => (
                <option value={t} selected={val(f, 'type') === t}>
                  {t}
                </option>
              ))}
            </select>
          </label>
          <label>
            First update (English)
            <textarea name="update_text">{val(f, 'update_text')}</textarea>
          </label>
          <label>
            Update kind
            <select name="update_type">
              {UPDATE_TYPES.map((t) => (
                <option value={t} selected={val(f, 'update_type') === t}>
                  {t}
                </option>
              ))}
            </select>
          </label>
          <Ticks name="statuspages" legend="Shown on" choices={props.statuspages} f={f} errors={errors} />
          <button type="submit">Publish</button>
        </form>
      ) : null}
    </Layout>
  );
}

/** Components: hand-set statuses, changed in place, and the create form. */
export function ComponentsPage(props: { s: Shell; components: Component[]; values: FormValues; errors?: FormErrors | undefined }) {
  const { s, values: f, errors } = props;
  return (
    <Layout s={s} title="Components">
      <h1>Components</h1>
      <div class="card">
        <table class="rows" id="components">
          <tbody>
            {props.components.map((c) => (
              <tr>
                <td>
                  {c.name}
                  <div class="muted small">{c.description ?? ''}</div>
                </td>
                <td>
                  {canWrite(s) ? (
                    <form method="post" action={`/components/${c.uuid}`} class="actions">
                      <Csrf s={s} />
                      <select name="status" aria-label="Status">
                        {COMPONENT_STATUSES.map((st) => (
                          <option value={st} selected={c.status === st}>
                            {st}
                          </option>
                        ))}
                      </select>
                      <button type="submit" class="secondary">
                        Set
                      </button>
                    </form>
                  ) : (
                    c.status
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {props.components.length === 0 ? <p class="muted">No component.</p> : null}
      </div>
      {canWrite(s) ? (
        <form class="stack card" method="post" action="/components">
          <h2>New component</h2>
          <Csrf s={s} />
          <FormAlert errors={errors} />
          <label>
            Name
            <input type="text" name="name" value={val(f, 'name')} required />
            <FieldError errors={errors} name="name" />
          </label>
          <label>
            Description
            <input type="text" name="description" value={val(f, 'description')} />
          </label>
          <button type="submit">Add component</button>
        </form>
      ) : null}
    </Layout>
  );
}
