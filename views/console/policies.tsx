import type { FormErrors, Shell } from './model.ts';
import { canWrite } from './model.ts';
import { Csrf, FormAlert, Layout } from './layout.tsx';
import { FromConfig, Notice } from './integrations.tsx';

/** A policy form as typed: each step's delay (minutes, text) and the integrations it alerts. */
export interface PolicyFormValues {
  name: string;
  team: string;
  steps: Array<{ delay: string; targets: string[] }>;
  repeat_count: string;
  repeat_every_minutes: string;
  /** Rounds of the whole policy after its last step (issue 34); absent or empty: 0. */
  policy_repeats?: string;
}

/** A stored integration a step may alert. */
export interface TargetChoice {
  uuid: string;
  name: string;
  kind: string;
  enabled: boolean;
}

/** One row of the policies list. */
export interface PolicyRow {
  uuid: string;
  name: string;
  team: string | null;
  /** "0 min: ops-ntfy · 10 min: mail" */
  summary: string;
  provisioned: boolean;
  users: number;
}

/** A monitor or healthcheck of the attach checklist. */
export interface AttachChoice {
  uuid: string;
  name: string;
  /** Already uses this policy. */
  attached: boolean;
  /** The policy it uses now, when another one. */
  other: string | null;
}

function Msg(props: { errors: FormErrors | undefined; name: string }) {
  const m = props.errors?.fields[props.name];
  return m ? (
    <span class="field-error" data-error-for={props.name}>
      {m}
    </span>
  ) : null;
}

/** The escalation policies list. */
export function PoliciesPage(props: { s: Shell; rows: PolicyRow[]; notice?: string | undefined }) {
  const { s } = props;
  return (
    <Layout s={s} title="Escalation policies">
      <h1>Escalation policies</h1>
      <p class="muted">
        When an outage opens, a policy alerts its steps' <a href="/integrations">integrations</a>, each step after its delay, until someone acknowledges or it recovers.
      </p>
      <Notice text={props.notice} />
      {canWrite(s) ? (
        <p>
          <a class="button" href="/escalation-policies/new" id="new-policy">
            New policy
          </a>
        </p>
      ) : null}
      <div class="card">
        <table class="rows" id="policies">
          <thead>
            <tr>
              <th>Name</th>
              <th>Steps</th>
              <th>Used by</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((r) => (
              <tr id={`policy-${r.uuid}`} data-name={r.name}>
                <td>
                  <a href={`/escalation-policies/${r.uuid}`}>{r.name}</a> {r.team ? <span class="muted small">({r.team})</span> : null} <FromConfig on={r.provisioned} />
                </td>
                <td class="small">{r.summary}</td>
                <td class="num">{r.users}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {props.rows.length === 0 ? <p class="muted">No escalation policy yet.</p> : null}
      </div>
    </Layout>
  );
}

/**
 * The step editor: a row per step (delay in minutes, the integrations it alerts), "Add step" and
 * "Remove" buttons that post the form back with `op` (it comes back with one step more or less,
 * nothing saved: works without JavaScript), repeat count and interval. Read-only when provisioned.
 */
export function PolicyForm(props: { s: Shell; v: PolicyFormValues; targets: TargetChoice[]; errors?: FormErrors | undefined; uuid?: string; readOnly: boolean }) {
  const { s, v, errors, readOnly } = props;
  return (
    <form class="stack card" method="post" action={props.uuid ? `/escalation-policies/${props.uuid}` : '/escalation-policies'} id="policy-form">
      <Csrf s={s} />
      <input type="hidden" name="steps" value={String(v.steps.length)} />
      <label>
        Name
        <input type="text" name="name" value={v.name} required readonly={readOnly} />
        <Msg errors={errors} name="name" />
      </label>
      <label>
        Team <span class="muted small">(optional)</span>
        <input type="text" name="team" value={v.team} readonly={readOnly} />
        <Msg errors={errors} name="team" />
      </label>
      <Msg errors={errors} name="steps" />
      {v.steps.map((step, i) => (
        <fieldset data-step={String(i)}>
          <legend>Step {i + 1}</legend>
          <label>
            After (minutes from the start of the outage)
            <input type="number" name={`step_${i}_delay`} value={step.delay} min={0} required readonly={readOnly} />
            <Msg errors={errors} name={`step_${i}_delay`} />
          </label>
          <p class="small">Alert these integrations, schedules (whoever is on call then) and people:</p>
          {props.targets.map((t) => (
            <label class="check">
              <input type="checkbox" name={`step_${i}_targets`} value={t.uuid} checked={step.targets.includes(t.uuid)} disabled={readOnly} /> {t.name}{' '}
              <span class="muted small">
                ({t.kind}
                {t.enabled ? '' : ', disabled'})
              </span>
            </label>
          ))}
          {step.targets
            .filter((u) => !props.targets.some((t) => t.uuid === u))
            .map((u) => (
              <p class="small muted">
                also {u}
                <input type="hidden" name={`step_${i}_targets`} value={u} />
              </p>
            ))}
          {props.targets.length === 0 ? (
            <p class="muted small">
              No integration yet: <a href="/integrations/new">add one</a> first.
            </p>
          ) : null}
          <Msg errors={errors} name={`step_${i}_targets`} />
          {readOnly || v.steps.length === 1 ? null : (
            <button type="submit" name="op" value={`remove-${i}`} class="secondary" formnovalidate>
              Remove step {i + 1}
            </button>
          )}
        </fieldset>
      ))}
      {readOnly ? null : (
        <button type="submit" name="op" value="add-step" class="secondary" id="add-step" formnovalidate>
          Add step
        </button>
      )}
      <label>
        Repeat the last step this many times <span class="muted small">(0: as long as an interval is set, until acknowledged)</span>
        <input type="number" name="repeat_count" value={v.repeat_count} min={0} readonly={readOnly} />
        <Msg errors={errors} name="repeat_count" />
      </label>
      <label>
        Repeat every (minutes) <span class="muted small">(empty: no repeats)</span>
        <input type="number" name="repeat_every_minutes" value={v.repeat_every_minutes} min={1} readonly={readOnly} />
        <Msg errors={errors} name="repeat_every_minutes" />
      </label>
      <label>
        Run the whole policy again this many times <span class="muted small">(0: no; the pause after the last step is the interval above, 5 minutes when empty; not with repeats of the last step)</span>
        <input type="number" name="policy_repeats" value={v.policy_repeats ?? '0'} min={0} readonly={readOnly} />
        <Msg errors={errors} name="policy_repeats" />
      </label>
      {readOnly ? null : (
        <div class="actions">
          <button type="submit" name="op" value="save">
            {props.uuid ? 'Save policy' : 'Create policy'}
          </button>
          <a href={props.uuid ? `/escalation-policies/${props.uuid}` : '/escalation-policies'}>Cancel</a>
        </div>
      )}
    </form>
  );
}

/** New policy. */
export function NewPolicyPage(props: { s: Shell; v: PolicyFormValues; targets: TargetChoice[]; errors?: FormErrors | undefined }) {
  return (
    <Layout s={props.s} title="New escalation policy">
      <h1>New escalation policy</h1>
      <FormAlert errors={props.errors} />
      <PolicyForm s={props.s} v={props.v} targets={props.targets} errors={props.errors} readOnly={false} />
    </Layout>
  );
}

function Checklist(props: { name: string; legend: string; items: AttachChoice[]; policy: string }) {
  return (
    <fieldset id={`attach-${props.name}`}>
      <legend>{props.legend}</legend>
      {props.items.length === 0 ? <p class="muted small">None yet.</p> : null}
      {props.items.map((m) => (
        <label class="check">
          <input type="checkbox" name={props.name} value={m.uuid} checked={m.attached} disabled={m.attached} /> {m.name}{' '}
          <span class="muted small">{m.attached ? `(uses ${props.policy})` : m.other ? `(uses ${m.other} now)` : ''}</span>
        </label>
      ))}
    </fieldset>
  );
}

/** One policy: the step editor, "attach to monitors and healthchecks", delete. */
export function PolicyPage(props: {
  s: Shell;
  p: { uuid: string; name: string; provisioned: boolean };
  v: PolicyFormValues;
  targets: TargetChoice[];
  monitors: AttachChoice[];
  healthchecks: AttachChoice[];
  errors?: FormErrors | undefined;
  notice?: string | undefined;
}) {
  const { s, p } = props;
  const write = canWrite(s);
  return (
    <Layout s={s} title={p.name}>
      <p>
        <a href="/escalation-policies">← Escalation policies</a>
      </p>
      <h1>
        {p.name} <FromConfig on={p.provisioned} />
      </h1>
      <Notice text={props.notice} />
      <FormAlert errors={props.errors} />
      {p.provisioned ? <p class="muted">Declared in config.yaml: its steps are read-only here (change them there, then reload with SIGHUP). It can still be attached.</p> : null}
      <h2>Steps</h2>
      <PolicyForm s={s} v={props.v} targets={props.targets} errors={props.errors} uuid={p.uuid} readOnly={!write || p.provisioned} />
      {write ? (
        <>
          <h2>Attach to monitors and healthchecks</h2>
          <form class="stack card" method="post" action={`/escalation-policies/${p.uuid}/attach`} id="attach-form">
            <Csrf s={s} />
            <p class="muted small">Each one ticked gets this policy (replacing the one it has), all at once.</p>
            <Checklist name="monitors" legend="Monitors" items={props.monitors} policy={p.name} />
            <Checklist name="healthchecks" legend="Healthchecks" items={props.healthchecks} policy={p.name} />
            <div class="actions">
              <button type="submit">Attach</button>
            </div>
          </form>
          {p.provisioned ? null : (
            // hx-confirm on the form: the boosted request is the form's, and htmx reads the question from it and its ancestors only.
            <form method="post" action={`/escalation-policies/${p.uuid}/delete`} id="delete-policy" hx-confirm={`Delete the escalation policy ${p.name}?`}>
              <Csrf s={s} />
              <button type="submit" class="danger">
                Delete policy
              </button>
            </form>
          )}
        </>
      ) : null}
    </Layout>
  );
}
