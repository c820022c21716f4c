import type { FormErrors, FormValues, Shell } from './model.ts';
import { canWrite, isAdmin } from './model.ts';
import { Csrf, FormAlert, Layout, ago, when } from './layout.tsx';

/**
 * How the console edits one setting of an integration kind (derived from the kind's zod schema in
 * src/domain/channels/: src/http/console/integration-form.ts). Inputs are named `settings.<path>`.
 */
export interface SettingFieldForm {
  /** Dotted path in the settings, e.g. `smtp.host`. */
  path: string;
  label: string;
  kind: 'text' | 'number' | 'checkbox' | 'select' | 'lines' | 'pairs' | 'group';
  required: boolean;
  /** One of the kind's `secretFields`: a password input, `***` when set. */
  secret: boolean;
  /** The schema's description (`.describe()`), when it has one. */
  help?: string;
  hint?: string;
  options?: string[];
  defaultValue?: unknown;
  /** A group's fields (`kind: 'group'`). */
  fields?: SettingFieldForm[];
}

/** One row of the Integrations list. */
export interface IntegrationRow {
  uuid: string;
  name: string;
  kind: string;
  enabled: boolean;
  provisioned: boolean;
  lastTestAt: number | null;
  lastTestResult: string | null;
}

/** The provider's answer to "Send test", as shown on the page. */
export interface TestAnswerView {
  ok: boolean;
  answers: Array<{ kind: string; status: number | null; body: string }>;
  error: string | null;
}

/** The "from config.yaml" badge of a provisioned integration or policy. */
export function FromConfig(props: { on: boolean }) {
  return props.on ? (
    <span class="status" data-status="new" title="Declared in config.yaml: change it there, then reload with SIGHUP">
      from config.yaml
    </span>
  ) : null;
}

/** A flash message after a redirect (`?done=…`). */
export function Notice(props: { text?: string | undefined }) {
  return props.text ? (
    <p class="notice" role="status" id="notice">
      {props.text}
    </p>
  ) : null;
}

const v = (f: FormValues, name: string): string => {
  const x = f[name];
  return typeof x === 'string' ? x : Array.isArray(x) ? (x[0] ?? '') : '';
};

function FieldMessage(props: { errors: FormErrors | undefined; name: string }) {
  const m = props.errors?.fields[props.name];
  return m ? (
    <span class="field-error" data-error-for={props.name}>
      {m}
    </span>
  ) : null;
}

/** One setting's input (a group: a fieldset of its fields). */
function SettingInput(props: { field: SettingFieldForm; f: FormValues; errors: FormErrors | undefined; readOnly: boolean }) {
  const { field, f, errors, readOnly } = props;
  const name = `settings.${field.path}`;
  if (field.kind === 'group') {
    return (
      <fieldset>
        <legend>
          {field.label} {field.required ? null : <span class="muted small">(optional)</span>}
        </legend>
        {field.help ? <p class="muted small">{field.help}</p> : null}
        {(field.fields ?? []).map((x) => (
          <SettingInput field={x} f={f} errors={errors} readOnly={readOnly} />
        ))}
      </fieldset>
    );
  }
  const value = v(f, name);
  const error = <FieldMessage errors={errors} name={name} />;
  if (field.kind === 'checkbox') {
    return (
      <label class="check">
        <input type="checkbox" name={name} checked={f[name] !== undefined} disabled={readOnly} /> {field.label}
        {field.help ? <span class="muted small"> ({field.help})</span> : null}
        {error}
      </label>
    );
  }
  const input =
    field.kind === 'select' ? (
      <select name={name} disabled={readOnly}>
        {field.required ? null : <option value="">—</option>}
        {(field.options ?? []).map((o) => (
          <option value={o} selected={value === o}>
            {o}
          </option>
        ))}
      </select>
    ) : field.kind === 'lines' || field.kind === 'pairs' ? (
      <textarea name={name} rows={3} readonly={readOnly}>
        {value}
      </textarea>
    ) : field.kind === 'number' ? (
      <input type="number" name={name} value={value} step="any" required={field.required} readonly={readOnly} />
    ) : (
      <input type={field.secret ? 'password' : 'text'} name={name} value={value} required={field.required} readonly={readOnly} autocomplete={field.secret ? 'new-password' : 'off'} />
    );
  const hints = [field.required ? null : 'optional', field.secret ? 'secret: stored encrypted, shown as ***; leave *** to keep it' : null, field.hint ?? null].filter((x) => x !== null);
  return (
    <label data-field={field.path}>
      {field.label}
      {hints.length > 0 ? <span class="muted small"> ({hints.join('; ')})</span> : null}
      {field.help ? <span class="muted small help"> {field.help}</span> : null}
      {input}
      {error}
    </label>
  );
}

/** The Integrations list: name, kind, enabled, last test and its answer, the config.yaml badge. */
export function IntegrationsPage(props: { s: Shell; rows: IntegrationRow[]; now: number; notice?: string | undefined }) {
  const { s } = props;
  return (
    <Layout s={s} title="Integrations">
      <h1>Integrations</h1>
      <p class="muted">Where alerts go: each integration is one chat, pager, mail or webhook target. Escalation policies decide when each is alerted.</p>
      <Notice text={props.notice} />
      {canWrite(s) ? (
        <p>
          <a class="button" href="/integrations/new" id="add-integration">
            Add integration
          </a>{' '}
          <a href="/escalation-policies">Escalation policies</a>
        </p>
      ) : null}
      <div class="card">
        <table class="rows" id="integrations">
          <thead>
            <tr>
              <th>Name</th>
              <th>Kind</th>
              <th>Enabled</th>
              <th>Last test</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((r) => (
              <tr id={`integration-${r.uuid}`} data-name={r.name} data-enabled={String(r.enabled)}>
                <td>
                  <a href={`/integrations/${r.uuid}`}>{r.name}</a> <FromConfig on={r.provisioned} />
                </td>
                <td>{r.kind}</td>
                <td>{r.enabled ? 'yes' : 'no'}</td>
                <td class="small">
                  {r.lastTestAt === null ? 'never' : `${ago(r.lastTestAt, props.now)}: ${r.lastTestResult ?? ''}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {props.rows.length === 0 ? <p class="muted">No integration yet. Add one, then an escalation policy that alerts it.</p> : null}
      </div>
    </Layout>
  );
}

/** Add, step 1: pick a kind (a GET form: works without JavaScript). */
export function PickKindPage(props: { s: Shell; kinds: string[] }) {
  return (
    <Layout s={props.s} title="Add integration">
      <h1>Add integration</h1>
      <form class="stack card" method="get" action="/integrations/new">
        <label>
          Kind
          <select name="kind">
            {props.kinds.map((k) => (
              <option value={k}>{k}</option>
            ))}
          </select>
        </label>
        <div class="actions">
          <button type="submit">Next</button>
          <a href="/integrations">Cancel</a>
        </div>
      </form>
    </Layout>
  );
}

/** The settings form of one kind (add, or edit when `uuid` is given; read-only when provisioned). */
export function IntegrationForm(props: { s: Shell; kind: string; fields: SettingFieldForm[]; values: FormValues; errors?: FormErrors | undefined; uuid?: string; readOnly: boolean }) {
  const { s, values: f, errors, readOnly } = props;
  return (
    <form class="stack card" method="post" action={props.uuid ? `/integrations/${props.uuid}` : '/integrations'} id="integration-form">
      <Csrf s={s} />
      <input type="hidden" name="kind" value={props.kind} />
      <label>
        Name
        <input type="text" name="name" value={v(f, 'name')} required readonly={readOnly} />
        <FieldMessage errors={errors} name="name" />
      </label>
      <label class="check">
        <input type="checkbox" name="enabled" checked={f.enabled !== undefined} disabled={readOnly} /> Enabled (alerts are sent)
      </label>
      <fieldset>
        <legend>{props.kind} settings</legend>
        {props.fields.map((x) => (
          <SettingInput field={x} f={f} errors={errors} readOnly={readOnly} />
        ))}
      </fieldset>
      {readOnly ? null : (
        <div class="actions">
          <button type="submit">{props.uuid ? 'Save' : 'Add integration'}</button>
          <a href={props.uuid ? `/integrations/${props.uuid}` : '/integrations'}>Cancel</a>
        </div>
      )}
    </form>
  );
}

/** Add, step 2: the kind's form. */
export function NewIntegrationPage(props: { s: Shell; kind: string; fields: SettingFieldForm[]; values: FormValues; errors?: FormErrors | undefined }) {
  return (
    <Layout s={props.s} title="Add integration">
      <h1>Add {props.kind} integration</h1>
      <p>
        <a href="/integrations/new">Another kind</a>
      </p>
      <FormAlert errors={props.errors} />
      <IntegrationForm s={props.s} kind={props.kind} fields={props.fields} values={props.values} errors={props.errors} readOnly={false} />
    </Layout>
  );
}

/** The provider's answer to a test, as sent back. */
function TestAnswer(props: { name: string; t: TestAnswerView }) {
  const { t } = props;
  return (
    <div class={t.ok ? 'notice' : 'alert'} role="status" id="test-result">
      <p>{t.ok ? `Test delivered to ${props.name}.` : `Test to ${props.name} failed${t.error ? `: ${t.error}` : '.'}`}</p>
      {t.answers.map((a) => (
        <div class="small" data-answer={a.kind}>
          {a.kind}: the provider answered {a.status === null ? 'nothing' : `HTTP ${a.status}`}
          {a.body ? <pre>{a.body}</pre> : null}
        </div>
      ))}
    </div>
  );
}

/** One integration: its facts, "Send test" and its answer, enable/disable, delete, the edit form. */
export function IntegrationPage(props: {
  s: Shell;
  i: IntegrationRow & { createdAt: number; updatedAt: number };
  fields: SettingFieldForm[];
  values: FormValues;
  usedBy: Array<{ uuid: string; name: string }>;
  errors?: FormErrors | undefined;
  notice?: string | undefined;
  test?: TestAnswerView | undefined;
}) {
  const { s, i } = props;
  const write = canWrite(s) && !i.provisioned;
  return (
    <Layout s={s} title={i.name}>
      <p>
        <a href="/integrations">← Integrations</a>
      </p>
      <h1>
        {i.name} <FromConfig on={i.provisioned} />
      </h1>
      <Notice text={props.notice} />
      {props.test ? <TestAnswer name={i.name} t={props.test} /> : null}
      <FormAlert errors={props.errors} />
      {i.provisioned ? <p class="muted">Declared in config.yaml: read-only here. Change it in config.yaml, then reload Pharos (SIGHUP).</p> : null}
      <dl class="props card">
        <dt>Kind</dt>
        <dd>{i.kind}</dd>
        <dt>Enabled</dt>
        <dd id="integration-enabled">{i.enabled ? 'yes' : 'no'}</dd>
        <dt>Last test</dt>
        <dd id="last-test">{i.lastTestAt === null ? 'never' : `${when(i.lastTestAt)}: ${i.lastTestResult ?? ''}`}</dd>
        <dt>Used by</dt>
        <dd>{props.usedBy.length === 0 ? 'no escalation policy' : props.usedBy.map((p, n) => [n > 0 ? ', ' : '', <a href={`/escalation-policies/${p.uuid}`}>{p.name}</a>])}</dd>
      </dl>
      <div class="actions" id="integration-actions">
        {isAdmin(s) ? (
          <form method="post" action={`/integrations/${i.uuid}/test`}>
            <Csrf s={s} />
            <button type="submit" class="secondary">
              Send test
            </button>
          </form>
        ) : null}
        {write ? (
          <form method="post" action={`/integrations/${i.uuid}/${i.enabled ? 'disable' : 'enable'}`}>
            <Csrf s={s} />
            <button type="submit" class="secondary">
              {i.enabled ? 'Disable' : 'Enable'}
            </button>
          </form>
        ) : null}
        {write ? (
          <a class="button danger" href={`/integrations/${i.uuid}/delete`}>
            Delete…
          </a>
        ) : null}
      </div>
      <h2>{write ? 'Edit' : 'Settings'}</h2>
      <IntegrationForm s={s} kind={i.kind} fields={props.fields} values={props.values} errors={props.errors} uuid={i.uuid} readOnly={!write} />
    </Layout>
  );
}

/** Delete, confirmation: the policies that alert it (deleting is refused while there are any). */
export function DeleteIntegrationPage(props: { s: Shell; i: { uuid: string; name: string }; usedBy: Array<{ uuid: string; name: string }>; errors?: FormErrors | undefined }) {
  const { s, i, usedBy } = props;
  return (
    <Layout s={s} title={`Delete ${i.name}`}>
      <h1>Delete {i.name}?</h1>
      <FormAlert errors={props.errors} />
      {usedBy.length > 0 ? (
        <div class="card" id="used-by">
          <p>These escalation policies alert it; remove it from their steps first, or it cannot be deleted:</p>
          <ul>
            {usedBy.map((p) => (
              <li>
                <a href={`/escalation-policies/${p.uuid}`}>{p.name}</a>
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <p>No escalation policy uses it. Deleting it cannot be undone.</p>
      )}
      <div class="actions">
        <form method="post" action={`/integrations/${i.uuid}/delete`}>
          <Csrf s={s} />
          <button type="submit" class="danger">
            Delete {i.name}
          </button>
        </form>
        <a href={`/integrations/${i.uuid}`}>Cancel</a>
      </div>
    </Layout>
  );
}
