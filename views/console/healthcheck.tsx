import type { Healthcheck } from '../../src/domain/healthcheck.ts';
import { PERIOD_UNITS } from '../../src/domain/healthcheck.ts';
import type { StoredPing } from '../../src/domain/ping.ts';
import type { OutageRecord } from '../../src/domain/outage.ts';
import type { FormErrors, FormValues, Shell } from './model.ts';
import { formValue as val } from './model.ts';
import { Csrf, FieldError, FormAlert, Layout, ResourceActions, ago, when } from './layout.tsx';
import { OutageTable } from './outages.tsx';
import { HealthcheckState } from './live-state.tsx';
import { plural } from '../format.ts';

const unit = (n: number, u: string) => plural(n, u.replace(/s$/, ''), u);

/** The schedule in words, e.g. "cron 0 2 * * * (Europe/Berlin), grace 10 minutes" or "every 1 day, grace 5 minutes". */
export function scheduleWords(h: Healthcheck): string {
  const every = h.cron ? `cron "${h.cron}" in ${h.timezone}` : `every ${unit(h.periodValue!, h.periodType!)}`;
  return `${every}, grace ${unit(h.graceValue, h.graceType)}`;
}

/** Ready-made ways to ping: a crontab line, the /start + /$? wrapper and a systemd service for a timer. */
function snippets(url: string) {
  return {
    crontab: `0 2 * * * /usr/local/bin/backup.sh && curl -fsS -m 10 --retry 5 -o /dev/null ${url}`,
    wrapper: `curl -fsS -m 10 -o /dev/null ${url}/start\n/usr/local/bin/backup.sh\ncurl -fsS -m 10 --retry 5 -o /dev/null ${url}/$?`,
    systemd: `# backup.service (started by backup.timer)\n[Service]\nType=oneshot\nExecStartPre=-/usr/bin/curl -fsS -m 10 -o /dev/null ${url}/start\nExecStart=/usr/local/bin/backup.sh\nExecStopPost=/bin/sh -c '/usr/bin/curl -fsS -m 10 --retry 5 -o /dev/null ${url}/$EXIT_STATUS'`,
  };
}

/** A healthcheck: ping URL with a copy button, snippets, schedule in words, next expected ping, last pings and outages. */
export function HealthcheckPage(props: { s: Shell; h: Healthcheck; pingUrl: string; dueAt: number | null; pings: StoredPing[]; outages: OutageRecord[]; now: number }) {
  const { s, h } = props;
  const sn = snippets(props.pingUrl);
  const status = h.paused ? 'paused' : h.status === 'down' ? 'down' : h.lastPingAt === null ? 'pending' : 'up';
  return (
    <Layout s={s} title={h.name} refresh>
      <h1>
        {h.name} <HealthcheckState h={h} status={status} now={props.now} part="badges" />
      </h1>
      <ResourceActions s={s} id="healthcheck-actions" base={`/healthchecks/${h.uuid}`} paused={h.paused} confirm="Delete this healthcheck?" />
      <div class="card">
        <p>Ping URL</p>
        <p class="secret" id="ping-url">
          {props.pingUrl}
        </p>
        <button type="button" class="secondary" data-copy={props.pingUrl} id="copy-ping-url">
          Copy
        </button>
        <dl class="props">
          <dt>Schedule</dt>
          <dd>{scheduleWords(h)}</dd>
          <dt>Next ping expected</dt>
          <dd>{h.paused ? 'paused' : when(props.dueAt)}</dd>
        </dl>
        <HealthcheckState h={h} status={status} now={props.now} part="now" />
      </div>
      <h2>How to ping</h2>
      <div class="card">
        <p>A crontab line (curl -fsS fails quietly, reports errors):</p>
        <pre tabindex={0}>
          <code>{sn.crontab}</code>
        </pre>
        <p>
          Signal the start, then the exit code (<code>/$?</code>: 0 is success, anything else a failure):
        </p>
        <pre tabindex={0}>
          <code>{sn.wrapper}</code>
        </pre>
        <p>A systemd service run by a timer:</p>
        <pre tabindex={0}>
          <code>{sn.systemd}</code>
        </pre>
      </div>
      <h2>Last pings</h2>
      <div class="card">
        <table class="rows" id="pings">
          <thead>
            <tr>
              <th>#</th>
              <th>Kind</th>
              <th>When</th>
              <th class="hide-sm">Source</th>
              <th class="hide-sm">User agent</th>
              <th class="hide-sm">Body</th>
            </tr>
          </thead>
          <tbody>
            {props.pings.map((p) => (
              <tr>
                <td class="num">{p.n}</td>
                <td>
                  {p.kind}
                  {p.exitCode !== null ? ` (exit ${p.exitCode})` : ''}
                  {p.durationMs !== null ? ` · ${(p.durationMs / 1000).toFixed(1)} s` : ''}
                </td>
                <td class="small" title={when(p.at)}>
                  {ago(p.at, props.now)}
                </td>
                <td class="small hide-sm">{p.sourceIp ?? ''}</td>
                <td class="small hide-sm">{p.userAgent ?? ''}</td>
                <td class="small hide-sm">{p.body ? p.body.slice(0, 200) : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {props.pings.length === 0 ? <p class="muted">No ping yet.</p> : null}
      </div>
      <h2>Outages</h2>
      <OutageTable id="healthcheck-outages" rows={props.outages} now={props.now} empty="No outage." outages={`of:${h.uuid}`} insert head={false} />
    </Layout>
  );
}

/** A healthcheck's settings as form values (edit form). */
export function healthcheckFormValues(h: Healthcheck): FormValues {
  return {
    name: h.name,
    period_value: h.periodValue === null ? '' : String(h.periodValue),
    period_type: h.periodType ?? 'days',
    cron: h.cron ?? '',
    timezone: h.timezone,
    grace_period_value: String(h.graceValue),
    grace_period_type: h.graceType,
    escalation_policy: h.escalationPolicyUuid ?? '',
  };
}


/** Create form of a healthcheck: simple period or cron + time zone, and the grace period. */
export function HealthcheckFormPage(props: { s: Shell; values: FormValues; errors?: FormErrors | undefined; policies: Array<{ uuid: string; name: string }>; uuid?: string }) {
  const { s, values: f, errors } = props;
  const units = (name: string, dflt: string, label: string) => (
    <select name={name} aria-label={label}>
      {PERIOD_UNITS.map((u) => (
        <option value={u} selected={val(f, name, dflt) === u}>
          {u}
        </option>
      ))}
    </select>
  );
  return (
    <Layout s={s} title={props.uuid ? 'Edit healthcheck' : 'New healthcheck'}>
      <h1>{props.uuid ? `Edit ${val(f, 'name')}` : 'New healthcheck'}</h1>
      <FormAlert errors={errors} />
      <form class="stack card" method="post" action={props.uuid ? `/healthchecks/${props.uuid}` : '/healthchecks'} id="healthcheck-form">
        <Csrf s={s} />
        <label>
          Name
          <input type="text" name="name" value={val(f, 'name')} required />
          <FieldError errors={errors} name="name" />
        </label>
        <fieldset>
          <legend>Expected every (simple mode)</legend>
          <input type="number" name="period_value" value={val(f, 'period_value', '1')} aria-label="Period" /> {units('period_type', 'days', 'Period unit')}
          <FieldError errors={errors} name="period_value" />
        </fieldset>
        <fieldset>
          <legend>or on a cron schedule (leave the period empty)</legend>
          <label>
            Cron expression
            <input type="text" name="cron" value={val(f, 'cron')} placeholder="0 2 * * *" />
            <FieldError errors={errors} name="cron" />
          </label>
          <label>
            Time zone
            <input type="text" name="timezone" value={val(f, 'timezone', 'UTC')} />
            <FieldError errors={errors} name="timezone" />
          </label>
        </fieldset>
        <fieldset>
          <legend>Grace period</legend>
          <input type="number" name="grace_period_value" value={val(f, 'grace_period_value', '10')} aria-label="Grace period" /> {units('grace_period_type', 'minutes', 'Grace period unit')}
          <FieldError errors={errors} name="grace_period_value" />
        </fieldset>
        <label>
          Escalation policy
          <select name="escalation_policy">
            <option value="">none</option>
            {props.policies.map((p) => (
              <option value={p.uuid} selected={val(f, 'escalation_policy') === p.uuid}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <div class="actions">
          <button type="submit">{props.uuid ? 'Save' : 'Create healthcheck'}</button>
          <a href={props.uuid ? `/healthchecks/${props.uuid}` : '/'}>Cancel</a>
        </div>
      </form>
    </Layout>
  );
}
