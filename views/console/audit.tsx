import { AUDIT_ACTOR_TYPES, AUDIT_RESOURCE_TYPES, type AuditEntry } from '../../src/domain/audit.ts';
import type { FormErrors, Shell } from './model.ts';
import { FieldError, FormAlert, Layout, when } from './layout.tsx';

/** The filters of the Audit log page as typed (strings; empty: not filtered). */
export interface AuditFilterValues {
  resource_type: string;
  resource_uuid: string;
  actor_type: string;
  actor_id: string;
  since: string;
  until: string;
}

/** Everything the Audit log page shows. */
export interface AuditView {
  entries: AuditEntry[];
  filter: AuditFilterValues;
  /** The link of the next (older) page, or null at the end. */
  nextHref: string | null;
  errors?: FormErrors | undefined;
}

const RESOURCE_LABELS: Record<string, string> = { escalation_policy: 'escalation policy', statuspage: 'status page' };
const ACTION_LABELS = { create: 'created', update: 'changed', delete: 'deleted' } as const;

/** A diff value as one line of text (`***` stays `***`; absent: —). */
const shown = (v: unknown, present: boolean): string => (!present ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

function Diff(props: { diff: AuditEntry['diff'] }) {
  const rows = Object.entries(props.diff);
  if (rows.length === 0) return <span class="muted small">no field</span>;
  return (
    <table class="rows small diff">
      <tbody>
        {rows.map(([path, d]) => (
          <tr>
            <th scope="row">{path}</th>
            <td>
              <del>{shown(d.before, 'before' in d)}</del>
            </td>
            <td>
              <ins>{shown(d.after, 'after' in d)}</ins>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Select(props: { name: string; label: string; values: readonly string[]; current: string; any: string }) {
  return (
    <label>
      {props.label}
      <select name={props.name}>
        {['', ...props.values].map((v) => (
          <option value={v} selected={props.current === v}>
            {v === '' ? props.any : (RESOURCE_LABELS[v] ?? v)}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * The Audit log (issue 32 point 5): who changed what and when, newest first, with each change's
 * fields before and after (secrets `***`). The filters are a GET form: they work without JavaScript,
 * and a filtered view is a link to share.
 */
export function AuditPage(props: { s: Shell; v: AuditView }) {
  const { s, v } = props;
  const f = v.filter;
  return (
    <Layout s={s} title="Audit log">
      <h1>Audit log</h1>
      <p class="muted">Every change to monitors, healthchecks, integrations, escalation policies, status pages, users and API tokens, with who made it.</p>
      <form class="filters" method="get" action="/audit-log" role="search">
        <Select name="resource_type" label="What" values={AUDIT_RESOURCE_TYPES} current={f.resource_type} any="anything" />
        <label>
          Uuid
          <input type="text" name="resource_uuid" value={f.resource_uuid} placeholder="mon_…, sp_…, key_…" />
        </label>
        <Select name="actor_type" label="Who" values={AUDIT_ACTOR_TYPES} current={f.actor_type} any="anyone" />
        <label>
          Actor id
          <input type="text" name="actor_id" value={f.actor_id} placeholder="user_…, key_…" />
        </label>
        <label>
          Since
          <input type="text" name="since" value={f.since} placeholder="2025-01-31" />
          <FieldError errors={v.errors} name="since" />
        </label>
        <label>
          Until
          <input type="text" name="until" value={f.until} placeholder="2025-02-28T12:00:00Z" />
          <FieldError errors={v.errors} name="until" />
        </label>
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      <FormAlert errors={v.errors} />
      <div class="card">
        {v.entries.length === 0 ? (
          <p class="muted">No change matches.</p>
        ) : (
          <table class="rows audit">
            <thead>
              <tr>
                <th>When</th>
                <th>Who</th>
                <th>What</th>
                <th>Changes</th>
              </tr>
            </thead>
            <tbody>
              {v.entries.map((e) => (
                <tr>
                  <td class="small">{when(e.at)}</td>
                  <td>
                    <span>{e.actor.name}</span>
                    <br />
                    <span class="muted small">
                      {e.actor.type} · <a href={`/audit-log?actor_type=${e.actor.type}&actor_id=${encodeURIComponent(e.actor.id)}`}>{e.actor.id}</a>
                    </span>
                  </td>
                  <td>
                    {ACTION_LABELS[e.action]} {RESOURCE_LABELS[e.resourceType] ?? e.resourceType} <strong>{e.resourceName}</strong>
                    <br />
                    <a class="muted small" href={`/audit-log?resource_uuid=${encodeURIComponent(e.resourceUuid)}`}>
                      {e.resourceUuid}
                    </a>
                  </td>
                  <td>
                    <Diff diff={e.diff} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {v.nextHref ? (
        <p>
          <a href={v.nextHref}>Older changes →</a>
        </p>
      ) : null}
    </Layout>
  );
}
