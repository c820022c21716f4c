import type { PageService, Statuspage } from '../../src/domain/statuspage.ts';
import type { FormErrors, FormValues, Shell } from './model.ts';
import { canWrite } from './model.ts';
import { Csrf, FormAlert, Layout } from './layout.tsx';
import { StatuspageSettingsForm, type ConnectionChoice } from './statuspage-settings.tsx';
import type { ServiceChoice } from './statuspages.tsx';
import { DeleteButton } from './delete-button.tsx';
import { Picker, type PickerModel } from './picker.tsx';

/** A small form of one section edit (a button and hidden fields). */
function Op(props: { s: Shell; uuid: string; label: string; fields: Record<string, string>; cls?: string }) {
  return (
    <form method="post" action={`/statuspages/${props.uuid}/sections`}>
      <Csrf s={props.s} />
      {Object.entries(props.fields).map(([k, v]) => (
        <input type="hidden" name={k} value={v} />
      ))}
      <button type="submit" class={props.cls ?? 'secondary'} aria-label={props.label} title={props.label}>
        {props.label.split(' ')[0]}
      </button>
    </form>
  );
}

/** A service's own texts and switches on the page (name shown, description, uptime, response times), folded. */
function ServiceEdit(props: { s: Shell; uuid: string; section: number; service: number; sv: PageService; langs: string[] }) {
  const { sv, langs } = props;
  const one = langs.length <= 1;
  const of = (map: Record<string, string> | null | undefined, plain: string | null, l: string) => map?.[l] ?? (l === langs[0] ? (plain ?? '') : '');
  return (
    <details class="service-edit">
      <summary class="small">Edit</summary>
      <form method="post" action={`/statuspages/${props.uuid}/sections`} class="stack">
        <Csrf s={props.s} />
        <input type="hidden" name="op" value="edit-service" />
        <input type="hidden" name="section" value={String(props.section)} />
        <input type="hidden" name="service" value={String(props.service)} />
        {one ? (
          <>
            <label>
              Name shown <span class="muted small">(empty: its own name)</span>
              <input type="text" name="name_shown" value={sv.name_shown ?? ''} />
            </label>
            <label>
              Description
              <input type="text" name="description" value={sv.description ?? ''} />
            </label>
          </>
        ) : (
          langs.map((l) => (
            <>
              <label>
                Name shown ({l}) <span class="muted small">(all empty: its own name)</span>
                <input type="text" name={`name_shown.${l}`} value={of(sv.name_i18n, sv.name_shown, l)} />
              </label>
              <label>
                Description ({l})
                <input type="text" name={`description.${l}`} value={of(sv.description_i18n, sv.description, l)} />
              </label>
            </>
          ))
        )}
        <label class="check">
          <input type="checkbox" name="show_uptime" checked={sv.show_uptime} /> Show uptime
        </label>
        <label class="check">
          <input type="checkbox" name="show_response_times" checked={sv.show_response_times} /> Show response times
        </label>
        <button type="submit" class="secondary">
          Save service
        </button>
      </form>
    </details>
  );
}

/** The services of a group (one level deep), each removable, and a picker to add one. */
function GroupChildren(props: { s: Shell; uuid: string; section: number; group: number; members: PageService[]; nameOf: Map<string, string>; services: ServiceChoice[]; w: boolean; picker?: PickerModel | undefined }) {
  const at = { section: String(props.section), service: String(props.group) };
  return (
    <ul class="group" data-group-children="">
      {props.members.map((c, k) => (
        <li class="actions" data-child={props.nameOf.get(c.monitor_uuid) ?? c.monitor_uuid}>
          {c.name_shown ?? props.nameOf.get(c.monitor_uuid) ?? c.monitor_uuid}
          {props.w ? <Op s={props.s} uuid={props.uuid} label="Remove from group" fields={{ op: 'remove-child', ...at, child: String(k) }} /> : null}
        </li>
      ))}
      {props.w ? (
        <li>
          <form method="post" action={`/statuspages/${props.uuid}/sections`} class="actions">
            <Csrf s={props.s} />
            <input type="hidden" name="op" value="add-child" />
            <input type="hidden" name="section" value={at.section} />
            <input type="hidden" name="service" value={at.service} />
            {props.picker ? (
              <Picker p={props.picker} legend="Services to add to the group" source="services" searchAction={`/statuspages/${props.uuid}`} />
            ) : (
              <select name="uuid" aria-label="Service to add to the group">
                {props.services.map((x) => (
                  <option value={x.uuid}>
                    {x.name} ({x.kind})
                  </option>
                ))}
              </select>
            )}
            <button type="submit" class="secondary">
              Add to group
            </button>
          </form>
        </li>
      ) : null}
    </ul>
  );
}

/** One status page: settings, and its sections and services ordered with up/down buttons (plain forms). */
export function StatuspageEditPage(props: { s: Shell; page: Statuspage; url: string; services: ServiceChoice[]; connections: ConnectionChoice[]; draft?: FormValues | undefined; errors?: FormErrors | undefined; pickers?: Map<string, PickerModel> }) {
  const { s, page: p, errors } = props;
  const nameOf = new Map(props.services.map((x) => [x.uuid, x.name]));
  const w = canWrite(s);
  const langs = p.settings.languages;
  return (
    <Layout s={s} title={p.name}>
      <h1>{p.name}</h1>
      <p>
        <a href={`/status/${p.subdomain}`} hx-boost="false" class="button secondary">
          View page
        </a>{' '}
        <span class="muted small">{props.url}</span>
      </p>
      <FormAlert errors={errors} />
      <h2>Sections</h2>
      {p.sections.map((sec, i) => (
        <div class="card" data-section-name={sec.name}>
          <div class="actions">
            <b>{sec.name}</b>
            {w ? (
              <>
                <form method="post" action={`/statuspages/${p.uuid}/sections`} class="actions">
                  <Csrf s={s} />
                  <input type="hidden" name="op" value="rename-section" />
                  <input type="hidden" name="section" value={String(i)} />
                  {langs.length <= 1 ? (
                    <input type="text" name="name" value={sec.name} aria-label={`New name of section ${sec.name}`} required />
                  ) : (
                    langs.map((l) => <input type="text" name={`name.${l}`} value={sec.name_i18n?.[l as 'en'] ?? (l === langs[0] ? sec.name : '')} aria-label={`New name of section ${sec.name} (${l})`} placeholder={l} />)
                  )}
                  <button type="submit" class="secondary">
                    Rename
                  </button>
                </form>
                <Op s={s} uuid={p.uuid} label="↑ move section up" fields={{ op: 'move-section', section: String(i), dir: 'up' }} />
                <Op s={s} uuid={p.uuid} label="↓ move section down" fields={{ op: 'move-section', section: String(i), dir: 'down' }} />
                <Op s={s} uuid={p.uuid} label="Remove section" fields={{ op: 'remove-section', section: String(i) }} cls="danger" />
              </>
            ) : null}
          </div>
          <table class="rows">
            <tbody>
              {sec.services.map((sv, j) => (
                <tr data-service={sv.name_shown ?? nameOf.get(sv.monitor_uuid) ?? sv.monitor_uuid}>
                  <td>
                    {sv.name_shown ?? nameOf.get(sv.monitor_uuid) ?? sv.monitor_uuid}
                    {sv.is_group ? <span class="muted small"> (group of {sv.services.length})</span> : null}
                    {sv.is_group ? <GroupChildren s={s} uuid={p.uuid} section={i} group={j} members={sv.services} nameOf={nameOf} services={props.services} w={w} picker={props.pickers?.get(`s${i}g${j}`)} /> : null}
                    {w ? <ServiceEdit s={s} uuid={p.uuid} section={i} service={j} sv={sv} langs={langs} /> : null}
                  </td>
                  <td>
                    {w ? (
                      <div class="actions">
                        <Op s={s} uuid={p.uuid} label="↑ move up" fields={{ op: 'move-service', section: String(i), service: String(j), dir: 'up' }} />
                        <Op s={s} uuid={p.uuid} label="↓ move down" fields={{ op: 'move-service', section: String(i), service: String(j), dir: 'down' }} />
                        <Op s={s} uuid={p.uuid} label="Remove" fields={{ op: 'remove-service', section: String(i), service: String(j) }} />
                      </div>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {w ? (
            <form method="post" action={`/statuspages/${p.uuid}/sections`} class="actions">
              <Csrf s={s} />
              <input type="hidden" name="op" value="add-service" />
              <input type="hidden" name="section" value={String(i)} />
              {props.pickers?.get(`s${i}`) ? (
                <Picker p={props.pickers.get(`s${i}`)!} legend="Services to add" source="services" searchAction={`/statuspages/${p.uuid}`} />
              ) : (
                <select name="uuid" aria-label="Service to add">
                  {props.services.map((x) => (
                    <option value={x.uuid}>
                      {x.name} ({x.kind})
                    </option>
                  ))}
                </select>
              )}
              <button type="submit" class="secondary">
                Add
              </button>
            </form>
          ) : null}
          {w ? (
            <form method="post" action={`/statuspages/${p.uuid}/sections`} class="actions">
              <Csrf s={s} />
              <input type="hidden" name="op" value="add-group" />
              <input type="hidden" name="section" value={String(i)} />
              <input type="text" name="name" aria-label="New group name" placeholder="New group" required />
              <button type="submit" class="secondary">
                Add group
              </button>
            </form>
          ) : null}
        </div>
      ))}
      {w ? (
        <form method="post" action={`/statuspages/${p.uuid}/sections`} class="card actions">
          <Csrf s={s} />
          <input type="hidden" name="op" value="add-section" />
          <input type="text" name="name" aria-label="New section name" placeholder="New section" required />
          <button type="submit" class="secondary">
            Add section
          </button>
        </form>
      ) : null}
      <h2>Settings</h2>
      <div class="page-editor">
        <StatuspageSettingsForm s={s} page={p} draft={props.draft} errors={errors} connections={props.connections} w={w} />
        {w ? (
          <section class="page-preview" aria-label="Preview">
            <h3>Preview (not saved)</h3>
            {/* Sandboxed without scripts, forms or popups: the draft's look stays inside; the preview answers with the public page's own CSP.
                allow-same-origin only so its stylesheet and fonts load (they are same-origin resources). */}
            <iframe name="page-preview" title="Preview of the status page with the unsaved changes" src={`/statuspages/${p.uuid}/preview`} sandbox="allow-same-origin" />
          </section>
        ) : null}
      </div>
      {w ? (
        <p class="actions">
          <DeleteButton s={s} base={`/statuspages/${p.uuid}`} question={`Delete the status page ${p.name}? Its public address stops answering.`} label="Delete page…" />
        </p>
      ) : null}
    </Layout>
  );
}
