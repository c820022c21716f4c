import { ALERTS_WAIT_MIN, CHECK_FREQUENCIES_S } from '../../src/domain/monitor.ts';
import { REGIONS } from '../../src/domain/regions.ts';
import type { FormErrors, FormValues, ProtocolFieldForm, ProtocolForm, Shell } from './model.ts';
import { Csrf, FieldError, FormAlert, Layout } from './layout.tsx';
import { freqWords } from './monitor.tsx';
import { Picker, type PickerModel } from './picker.tsx';

const v = (f: FormValues, name: string, fallback = ''): string => {
  const x = f[name];
  return typeof x === 'string' ? x : fallback;
};

/** One protocol field's input, named `<protocol>.<field>`; the API's message beside it when this protocol was chosen. */
function ProtocolInput(props: { p: string; field: ProtocolFieldForm; f: FormValues; errors: FormErrors | undefined }) {
  const { field, f } = props;
  const name = `${props.p}.${field.name}`;
  const value = v(f, name);
  const input =
    field.kind === 'select' ? (
      <select name={name}>
        {(field.options ?? []).map((o) => (
          <option value={o} selected={value === o}>
            {o}
          </option>
        ))}
      </select>
    ) : field.kind === 'checkbox' ? null : field.kind === 'lines' || field.kind === 'textarea' ? (
      <textarea name={name} rows={field.kind === 'lines' ? 3 : 4}>
        {value}
      </textarea>
    ) : field.kind === 'number' ? (
      <input type="number" name={name} value={value} />
    ) : (
      <input type="text" name={name} value={value} />
    );
  const error = <FieldError errors={props.errors} name={field.name} />;
  if (field.kind === 'checkbox')
    return (
      <label class="check">
        <input type="checkbox" name={name} checked={f[name] !== undefined} /> {field.label}
        {error}
      </label>
    );
  return (
    <label>
      {field.label}
      {field.hint ? <span class="muted small"> ({field.hint})</span> : null}
      {input}
      {error}
    </label>
  );
}

/** A region the form offers: its API name and who checks it ("this server's probe", "agent eu-1"). */
export interface RegionChoice {
  region: string;
  label: string;
}

/**
 * Create and edit form of monitors of every protocol of the registry with every field of the API;
 * the API's message shows beside the field it names. With JavaScript off every protocol's
 * fieldset is on the page (only the chosen protocol's fields are read); console.js shows only the
 * chosen one.
 */
export function MonitorFormPage(props: { s: Shell; values: FormValues; protocols: ProtocolForm[]; errors?: FormErrors | undefined; uuid?: string; policies: Array<{ uuid: string; name: string }>; localRegion: string; groups?: string[]; regionChoices?: RegionChoice[]; dependsOn?: PickerModel; groupMembers?: PickerModel }) {
  const { s, values: f, errors } = props;
  const chosen = v(f, 'protocol', 'http');
  const regions = Array.isArray(f.regions) ? f.regions : typeof f.regions === 'string' ? [f.regions] : [props.localRegion];
  const field = (name: string, label: string, input: unknown) => (
    <label>
      {label}
      {input}
      <FieldError errors={errors} name={name} />
    </label>
  );
  return (
    <Layout s={s} title={props.uuid ? 'Edit monitor' : 'New monitor'}>
      <h1>{props.uuid ? `Edit ${v(f, 'name')}` : 'New monitor'}</h1>
      <FormAlert errors={errors} />
      <form class="stack card" method="post" action={props.uuid ? `/monitors/${props.uuid}` : '/monitors'} id="monitor-form">
        <Csrf s={s} />
        {field('name', 'Name', <input type="text" name="name" value={v(f, 'name')} required />)}
        {field('tags', 'Tags (comma-separated; "name" or "name:value", e.g. prod, env:eu)', <input type="text" name="tags" value={v(f, 'tags')} placeholder="prod, env:eu" />)}
        {field('group', 'Group (optional; rows are grouped by it)', <input type="text" name="group" value={v(f, 'group')} list="monitor-groups" />)}
        <datalist id="monitor-groups">
          {(props.groups ?? []).map((g) => (
            <option value={g} />
          ))}
        </datalist>
        {field(
          'protocol',
          'Kind',
          <select name="protocol" data-protocol-select="">
            {props.protocols.map((p) => (
              <option value={p.protocol} selected={chosen === p.protocol}>
                {p.label}
              </option>
            ))}
          </select>,
        )}
        {field('url', 'URL, host or name (see the kind below)', <input type="text" name="url" value={v(f, 'url')} required placeholder="https://example.com/health" />)}
        {field('port', 'Port (when the kind takes one)', <input type="number" name="port" value={v(f, 'port')} min={1} max={65535} />)}
        {props.protocols.map((p) => (
          <fieldset data-protocol={p.protocol} id={`protocol-${p.protocol}`}>
            <legend>
              {p.label} <span class="muted small">({p.protocol === chosen ? 'chosen' : `used when the kind is ${p.label}`})</span>
            </legend>
            <p class="muted small">URL: {p.urlMeaning}</p>
            {p.fields.map((x) =>
              // A group's members (issue 36): the searchable picker, posting `group.group_members` once per member.
              p.protocol === 'group' && x.name === 'group_members' && props.groupMembers ? (
                <>
                  <Picker p={props.groupMembers} legend="Members (up when all are up, degraded when some are down)" source="monitors" searchAction={props.uuid ? `/monitors/${props.uuid}/edit` : '/monitors/new'} />
                  <FieldError errors={p.protocol === chosen ? errors : undefined} name="group_members" />
                </>
              ) : (
                <ProtocolInput p={p.protocol} field={x} f={f} errors={p.protocol === chosen ? errors : undefined} />
              ),
            )}
          </fieldset>
        ))}
        {field(
          'check_frequency',
          'Check every',
          <select name="check_frequency">
            {CHECK_FREQUENCIES_S.map((x) => (
              <option value={String(x)} selected={v(f, 'check_frequency', '30') === String(x)}>
                {freqWords(x)}
              </option>
            ))}
          </select>,
        )}
        {field('timeout', 'Timeout (seconds)', <input type="number" name="timeout" value={v(f, 'timeout', '10')} min={1} max={60} />)}
        <fieldset>
          <legend>Regions</legend>
          {(props.regionChoices ?? REGIONS.map((r) => ({ region: r, label: '' }))).map((r) => (
            <label class="check">
              <input type="checkbox" name="regions" value={r.region} checked={regions.includes(r.region)} /> {r.region}
              {r.label ? <span class="muted small"> ({r.label})</span> : null}
            </label>
          ))}
          <FieldError errors={errors} name="regions" />
        </fieldset>
        {field(
          'alerts_wait',
          'Alert after',
          <select name="alerts_wait">
            {ALERTS_WAIT_MIN.map((x) => (
              <option value={String(x)} selected={v(f, 'alerts_wait', '0') === String(x)}>
                {x < 0 ? 'never alert' : x === 0 ? 'at once' : `${x} min`}
              </option>
            ))}
          </select>,
        )}
        {field(
          'escalation_policy',
          'Escalation policy',
          <select name="escalation_policy">
            <option value="">none</option>
            {props.policies.map((p) => (
              <option value={p.uuid} selected={v(f, 'escalation_policy') === p.uuid}>
                {p.name}
              </option>
            ))}
          </select>,
        )}
        {props.dependsOn ? (
          <>
            {/* Tells "nothing ticked" (clear the list) from a form without the picker (keep it). */}
            <input type="hidden" name="depends_on_form" value="1" />
            <Picker p={props.dependsOn} legend="Depends on (while one of these is down, no alert goes out for this monitor)" source="monitors" errors={errors} searchAction={props.uuid ? `/monitors/${props.uuid}/edit` : '/monitors/new'} />
          </>
        ) : null}
        <label class="check">
          <input type="checkbox" name="public_badges" value="on" checked={v(f, 'public_badges') === 'on'} /> Public badges (anyone may embed this monitor's status, uptime, response time and certificate badges)
        </label>
        <div class="actions">
          <button type="submit">{props.uuid ? 'Save' : 'Create monitor'}</button>
          <a href={props.uuid ? `/monitors/${props.uuid}` : '/'}>Cancel</a>
        </div>
      </form>
    </Layout>
  );
}
