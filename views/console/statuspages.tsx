import type { Statuspage } from '../../src/domain/statuspage.ts';
import type { FormErrors, FormValues, Shell } from './model.ts';
import { canWrite, formList as list, formValue as val } from './model.ts';
import { Csrf, FieldError, FormAlert, Layout } from './layout.tsx';
import { Picker, type PickerModel } from './picker.tsx';

/** Section slots of the create form (plain HTML, no JavaScript needed). */
export const SECTION_SLOTS = 3;

/** Something a status page can show: a monitor or healthcheck (or component) by uuid. */
export interface ServiceChoice {
  uuid: string;
  name: string;
  kind: string;
}


/** Status pages: the list with "view page" links, and the create form with sections (`formKey`: the form's idempotency key, 22 base62). */
export function StatuspagesPage(props: { s: Shell; pages: Statuspage[]; urlOf: (p: Statuspage) => string; services: ServiceChoice[]; values: FormValues; formKey: string; errors?: FormErrors | undefined; pickers?: PickerModel[] }) {
  const { s, values: f, errors } = props;
  return (
    <Layout s={s} title="Status pages">
      <h1>Status pages</h1>
      <div class="card">
        <table class="rows" id="statuspages">
          <thead>
            <tr>
              <th>Page</th>
              <th>Sections</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {props.pages.map((p) => (
              <tr data-page={p.subdomain}>
                <td>
                  <a href={`/statuspages/${p.uuid}`}>{p.name}</a>
                  <div class="muted small">{props.urlOf(p)}</div>
                </td>
                <td class="small">{p.sections.map((x) => `${x.name} (${x.services.length})`).join(', ')}</td>
                <td>
                  <a href={`/status/${p.subdomain}`} class="button secondary" hx-boost="false">
                    View page
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {props.pages.length === 0 ? <p class="muted">No status page yet.</p> : null}
      </div>
      {canWrite(s) ? (
        <>
          <h2>New status page</h2>
          <FormAlert errors={errors} />
          <form class="stack card" method="post" action="/statuspages" id="statuspage-form" hx-disabled-elt="#statuspage-create">
            <Csrf s={s} />
            {/* One key per visit of the form: posted twice (a double click), it creates one page. */}
            <input type="hidden" name="form_key" value={props.formKey} />
            <label>
              Name
              <input type="text" name="name" value={val(f, 'name')} required />
              <FieldError errors={errors} name="name" />
            </label>
            <label>
              Subdomain (optional; made from the name)
              <input type="text" name="subdomain" value={val(f, 'subdomain')} />
              <FieldError errors={errors} name="subdomain" />
            </label>
            {Array.from({ length: SECTION_SLOTS }, (_, i) => (
              <fieldset data-section={i}>
                <legend>Section {i + 1}</legend>
                <label>
                  Section name (leave empty to skip)
                  <input type="text" name={`section_${i}_name`} value={val(f, `section_${i}_name`)} />
                </label>
                {props.pickers?.[i] ? (
                  <Picker p={props.pickers[i]} legend={`Services of section ${i + 1}`} source="checks" />
                ) : (
                  props.services.map((sv) => (
                    <label class="check">
                      <input type="checkbox" name={`section_${i}_services`} value={sv.uuid} checked={list(f, `section_${i}_services`).includes(sv.uuid)} /> {sv.name}{' '}
                      <span class="muted small">({sv.kind})</span>
                    </label>
                  ))
                )}
              </fieldset>
            ))}
            <FieldError errors={errors} name="sections" />
            <div class="actions">
              <button type="submit" id="statuspage-create">
                Create status page
              </button>
            </div>
          </form>
        </>
      ) : null}
    </Layout>
  );
}
