import type { Monitor } from '../../src/domain/monitor.ts';
import { ALERTS_WAIT_MIN, CHECK_FREQUENCIES_S, HTTP_METHODS, PROTOCOLS } from '../../src/domain/monitor.ts';
import { REGIONS } from '../../src/domain/regions.ts';
import type { OutageRecord } from '../../src/store/outages.ts';
import type { FormErrors, FormValues, Shell } from './model.ts';
import { canWrite } from './model.ts';
import { Csrf, FieldError, FormAlert, Layout, ago, when } from './layout.tsx';
import { OutageLine } from './outages.tsx';
import { ResponseGraph } from '../graph.tsx';

/** A stored check result as the monitor page lists it. */
export interface CheckLine {
  at: number;
  region: string;
  probe: string;
  ok: number;
  latency_ms: number;
  status_code: number;
  reason: string | null;
}

const freqWords = (s: number) => (s < 60 ? `${s} s` : s < 3600 ? `${s / 60} min` : `${s / 3600} h`);

/** The monitor page's chosen period: the response-time chart and the SLA. */
export const MONITOR_RANGES = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type MonitorRange = keyof typeof MONITOR_RANGES;

/** Response times (hourly means from the rollups) and the SLA over the chosen period. */
export interface MonitorPeriod {
  range: MonitorRange;
  points: Array<[number, number]>;
  from: number;
  to: number;
  sla: number;
  downtime: string;
  mttr: string;
  outages: number;
}

/** A monitor: its settings, actions, recent checks with the reason of each failure and the region that ran it, and its outages. */
export function MonitorPage(props: { s: Shell; m: Monitor; checks: CheckLine[]; outages: OutageRecord[]; policy: string | null; uptime24h: number | null; period: MonitorPeriod; now: number }) {
  const { s, m } = props;
  const status = m.paused ? 'paused' : m.status;
  return (
    <Layout s={s} title={m.name}>
      <h1>
        {m.name}{' '}
        <span class="status" data-status={status} id="monitor-status">
          {status}
        </span>
      </h1>
      {canWrite(s) ? (
        <div class="actions" id="monitor-actions">
          <a class="button" href={`/monitors/${m.uuid}/edit`}>
            Edit
          </a>
          <form method="post" action={`/monitors/${m.uuid}/${m.paused ? 'resume' : 'pause'}`}>
            <Csrf s={s} />
            <button type="submit" class="secondary">
              {m.paused ? 'Resume' : 'Pause'}
            </button>
          </form>
          <form method="post" action={`/monitors/${m.uuid}/delete`}>
            <Csrf s={s} />
            <button type="submit" class="danger" hx-confirm="Delete this monitor with its history and outages?">
              Delete
            </button>
          </form>
        </div>
      ) : null}
      <div class="card">
        <dl class="props">
          <dt>Target</dt>
          <dd>
            {m.protocol} · {m.protocol === 'http' ? `${String(m.settings.http_method ?? 'GET')} ` : ''}
            {m.url}
            {m.port ? `:${m.port}` : ''}
          </dd>
          <dt>Every</dt>
          <dd>
            {freqWords(m.checkFrequencySeconds)}, timeout {m.timeoutSeconds} s
          </dd>
          <dt>Regions</dt>
          <dd>{m.regions.join(', ')}</dd>
          {m.protocol === 'http' ? (
            <>
              <dt>Expects</dt>
              <dd>
                status {String(m.settings.expected_status_code ?? '2xx')}
                {m.settings.required_keyword ? `, body contains "${String(m.settings.required_keyword)}"` : ''}
                {m.settings.follow_redirects ? ', follows redirects' : ''}
              </dd>
            </>
          ) : null}
          <dt>Uptime 24 h</dt>
          <dd>{props.uptime24h === null ? '—' : `${props.uptime24h.toFixed(2)} %`}</dd>
          <dt>Alerts</dt>
          <dd>
            {m.alertsWaitMinutes < 0 ? 'never' : `after ${m.alertsWaitMinutes} min`} · {props.policy ?? 'no escalation policy'}
          </dd>
          {m.sslExpirationDays !== null ? (
            <>
              <dt>Certificate</dt>
              <dd>expires in {m.sslExpirationDays} days</dd>
            </>
          ) : null}
        </dl>
      </div>
      <h2>Response time and SLA</h2>
      <div class="card" id="period">
        <nav class="actions" aria-label="Period">
          {(Object.keys(MONITOR_RANGES) as MonitorRange[]).map((r) => (
            <a href={`/monitors/${m.uuid}?range=${r}`} aria-current={props.period.range === r ? 'page' : undefined} class={props.period.range === r ? 'button' : 'button secondary'}>
              {r}
            </a>
          ))}
        </nav>
        <div class="graph">
          {props.period.points.length > 1 ? <ResponseGraph points={props.period.points} from={props.period.from} to={props.period.to} label={`Response time over ${props.period.range}`} /> : <p class="muted">Not enough checks for a graph yet.</p>}
        </div>
        <p>
          SLA <b data-sla="">{props.period.sla.toFixed(2)} %</b> · {props.period.outages} outages · downtime {props.period.downtime} · MTTR {props.period.mttr}
        </p>
      </div>
      <h2>Recent checks</h2>
      <div class="card">
        <table class="rows" id="checks">
          <thead>
            <tr>
              <th>Result</th>
              <th>When</th>
              <th>Latency</th>
              <th>Region</th>
              <th class="hide-sm">Reason</th>
            </tr>
          </thead>
          <tbody>
            {props.checks.map((c) => (
              <tr data-ok={c.ok ? 'true' : 'false'}>
                <td>
                  <span class="status" data-status={c.ok ? 'up' : 'down'}>
                    {c.ok ? 'ok' : 'failed'}
                  </span>
                </td>
                <td class="small" title={when(c.at)}>
                  {ago(c.at, props.now)}
                </td>
                <td class="num">{c.latency_ms} ms</td>
                <td class="small">
                  {c.region}
                  {c.probe !== 'local' ? ` (${c.probe})` : ''}
                </td>
                <td class="small hide-sm">{c.reason ?? (c.status_code ? `HTTP ${c.status_code}` : '')}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {props.checks.length === 0 ? <p class="muted">No check yet.</p> : null}
      </div>
      <h2>Outages</h2>
      <div class="card">
        <table class="rows">
          <tbody>
            {props.outages.map((o) => (
              <OutageLine o={o} now={props.now} />
            ))}
          </tbody>
        </table>
        {props.outages.length === 0 ? <p class="muted">No outage.</p> : null}
      </div>
    </Layout>
  );
}

const v = (f: FormValues, name: string, fallback = ''): string => {
  const x = f[name];
  return typeof x === 'string' ? x : fallback;
};

/** A monitor's current settings as form values (edit form). */
export function monitorFormValues(m: Monitor): FormValues {
  // The seed protocols' fields live in the protocol settings (src/protocols/seed.ts).
  const s = m.settings;
  return {
    name: m.name,
    url: m.url,
    protocol: m.protocol,
    http_method: String(s.http_method ?? 'GET'),
    check_frequency: String(m.checkFrequencySeconds),
    regions: m.regions,
    expected_status_code: String(s.expected_status_code ?? '2xx'),
    required_keyword: typeof s.required_keyword === 'string' ? s.required_keyword : '',
    follow_redirects: s.follow_redirects === false ? undefined : 'on',
    port: m.port === null ? '' : String(m.port),
    alerts_wait: String(m.alertsWaitMinutes),
    request_body: typeof s.request_body === 'string' ? s.request_body : '',
    request_headers: ((s.request_headers ?? []) as Array<{ name: string; value: string }>).map((h) => `${h.name}: ${h.value}`).join('\n'),
    timeout: String(m.timeoutSeconds),
    escalation_policy: m.escalationPolicyUuid ?? '',
  };
}

/** Create and edit form of HTTP, port and ICMP monitors with every field of the API; the API's message shows beside the field it names. */
export function MonitorFormPage(props: { s: Shell; values: FormValues; errors?: FormErrors | undefined; uuid?: string; policies: Array<{ uuid: string; name: string }>; localRegion: string }) {
  const { s, values: f, errors } = props;
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
        {field(
          'protocol',
          'Kind',
          <select name="protocol">
            {PROTOCOLS.map((p) => (
              <option value={p} selected={v(f, 'protocol', 'http') === p}>
                {p === 'http' ? 'HTTP(S)' : p === 'port' ? 'TCP port' : 'ICMP ping'}
              </option>
            ))}
          </select>,
        )}
        {field('url', 'URL (HTTP) or host (port, ICMP)', <input type="text" name="url" value={v(f, 'url')} required placeholder="https://example.com/health" />)}
        {field('port', 'Port (TCP port monitors)', <input type="number" name="port" value={v(f, 'port')} min={1} max={65535} />)}
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
          {REGIONS.map((r) => (
            <label class="check">
              <input type="checkbox" name="regions" value={r} checked={regions.includes(r)} /> {r}
            </label>
          ))}
          <FieldError errors={errors} name="regions" />
        </fieldset>
        <details open={v(f, 'protocol', 'http') === 'http'}>
          <summary>HTTP settings</summary>
          {field(
            'http_method',
            'Method',
            <select name="http_method">
              {HTTP_METHODS.map((x) => (
                <option value={x} selected={v(f, 'http_method', 'GET') === x}>
                  {x}
                </option>
              ))}
            </select>,
          )}
          {field('expected_status_code', 'Expected status', <input type="text" name="expected_status_code" value={v(f, 'expected_status_code', '2xx')} />)}
          {field('required_keyword', 'Body must contain (optional)', <input type="text" name="required_keyword" value={v(f, 'required_keyword')} />)}
          <label class="check">
            <input type="checkbox" name="follow_redirects" checked={f.follow_redirects !== undefined || !props.uuid && f.name === undefined} /> Follow redirects
          </label>
          {field('request_headers', 'Request headers (one "Name: value" per line)', <textarea name="request_headers">{v(f, 'request_headers')}</textarea>)}
          {field('request_body', 'Request body', <textarea name="request_body">{v(f, 'request_body')}</textarea>)}
        </details>
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
        <div class="actions">
          <button type="submit">{props.uuid ? 'Save' : 'Create monitor'}</button>
          <a href={props.uuid ? `/monitors/${props.uuid}` : '/'}>Cancel</a>
        </div>
      </form>
    </Layout>
  );
}
