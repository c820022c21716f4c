import type { Component, Incident } from '../../src/domain/incident.ts';
import { INCIDENT_TYPES, UPDATE_TYPES } from '../../src/domain/incident.ts';
import { LANGUAGES, type LocalizedText } from '../../src/domain/localized.ts';
import type { FormErrors, FormValues, Shell } from './model.ts';
import { canWrite, formList as list, formValue as val } from './model.ts';
import { Csrf, FieldError, FormAlert, Layout, Ticks, when } from './layout.tsx';
import { DeleteButton } from './delete-button.tsx';

/**
 * Editing and deleting a status-page incident in the console (issue 33 point 6): the edit form
 * (title per language, kind, every update's kind and text, removing updates, the status pages and
 * components it concerns) over the API's PUT /v3/incidents schema, and the list's Edit and Delete
 * controls (Delete asks: confirmation page without JavaScript, a dialog with it; delete-button.tsx).
 */


/** The form's field names of an incident's title in `lang` and of update `i`'s parts. */
export const incidentField = {
  title: (lang: string) => `title_${lang}`,
  updateType: (i: number) => `update_${i}_type`,
  updateText: (i: number, lang: string) => `update_${i}_text_${lang}`,
  updateDate: (i: number) => `update_${i}_date`,
  updateRemove: (i: number) => `update_${i}_remove`,
};

/** A stored incident → the edit form's values. */
export function incidentValues(i: Incident): FormValues {
  const v: FormValues = { type: i.type, statuspages: i.statuspages, components: i.affectedComponents };
  for (const [lang, t] of Object.entries(i.title)) v[incidentField.title(lang)] = t ?? '';
  i.updates.forEach((u, n) => {
    v[incidentField.updateType(n)] = u.type;
    v[incidentField.updateDate(n)] = new Date(u.at).toISOString();
    for (const [lang, t] of Object.entries(u.text)) v[incidentField.updateText(n, lang)] = t ?? '';
  });
  return v;
}

/** Edit and Delete of one incident in the list (editors and admins). */
export function IncidentActions(props: { s: Shell; i: Incident }) {
  if (!canWrite(props.s)) return null;
  const base = `/incidents/${props.i.uuid}`;
  return (
    <div class="actions">
      <a class="button secondary" href={base}>
        Edit
      </a>
      <DeleteButton s={props.s} base={base} question={`Delete the incident ${props.i.title.en ?? Object.values(props.i.title)[0] ?? ''}? Its updates go with it, also from the status pages.`} />
    </div>
  );
}

/** Languages shown for a text: those it has, English first when it has none. */
const langsOf = (t: LocalizedText, f: FormValues, field: (lang: string) => string) => {
  const had = LANGUAGES.filter((l) => t[l] !== undefined || val(f, field(l)) !== '');
  return had.length ? had : (['en'] as const);
};


/** The incident's edit page (GET/POST `/incidents/:uuid`). */
export function IncidentEditPage(props: { s: Shell; incident: Incident; statuspages: Array<{ uuid: string; name: string }>; components: Component[]; values: FormValues; errors?: FormErrors | undefined }) {
  const { s, incident: i, values: f, errors } = props;
  const name = i.title.en ?? Object.values(i.title)[0] ?? i.uuid;
  return (
    <Layout s={{ ...s, path: '/incidents' }} title={`Edit ${name}`}>
      <h1>Edit incident {name}</h1>
      <form class="stack card" method="post" action={`/incidents/${i.uuid}`} id="incident-edit">
        <Csrf s={s} />
        <FormAlert errors={errors} />
        {langsOf(i.title, f, incidentField.title).map((lang) => (
          <label>
            Title ({lang})
            <input type="text" name={incidentField.title(lang)} value={val(f, incidentField.title(lang))} lang={lang} />
          </label>
        ))}
        <FieldError errors={errors} name="title" />
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
        <fieldset>
          <legend>Updates (the newest sets the incident's status)</legend>
          {i.updates.map((u, n) => (
            <div class="stack" data-update={u.uuid}>
              <input type="hidden" name={incidentField.updateDate(n)} value={val(f, incidentField.updateDate(n))} />
              <label>
                {when(u.at)} · kind
                <select name={incidentField.updateType(n)}>
                  {UPDATE_TYPES.map((t) => (
                    <option value={t} selected={val(f, incidentField.updateType(n)) === t}>
                      {t}
                    </option>
                  ))}
                </select>
              </label>
              {langsOf(u.text, f, (l) => incidentField.updateText(n, l)).map((lang) => (
                <label>
                  Text ({lang})
                  <textarea name={incidentField.updateText(n, lang)} lang={lang}>
                    {val(f, incidentField.updateText(n, lang))}
                  </textarea>
                </label>
              ))}
              <label class="check">
                <input type="checkbox" name={incidentField.updateRemove(n)} value="1" checked={val(f, incidentField.updateRemove(n)) === '1'} /> Remove this update
              </label>
              <FieldError errors={errors} name={`updates.${n}.text`} />
            </div>
          ))}
          {i.updates.length === 0 ? <p class="muted small">No update yet: post one from the incidents list.</p> : null}
        </fieldset>
        <Ticks name="statuspages" legend="Shown on" choices={props.statuspages} f={f} errors={errors} error="statuspages" />
        <Ticks name="components" legend="Components affected" choices={props.components} f={f} errors={errors} error="affectedComponents" />
        <div class="actions">
          <button type="submit">Save</button>
          <a class="button secondary" href="/incidents">
            Cancel
          </a>
        </div>
      </form>
    </Layout>
  );
}
