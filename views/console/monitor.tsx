import type { StoredResult } from '../../src/domain/check.ts';
import type { Monitor } from '../../src/domain/monitor.ts';
import { formatUptime } from '../../src/domain/uptime.ts';
import { plural } from '../format.ts';
import type { OutageRecord } from '../../src/domain/outage.ts';
import type { SettingLine, Shell } from './model.ts';
import { Layout, ResourceActions, ago, when } from './layout.tsx';
import { OutageTable } from './outages.tsx';
import { MonitorBadges, MonitorNow } from './live-state.tsx';
import { TagChips } from './tags.tsx';
import { CHART_RANGES, ResponseChart, type ChartKit, type ChartRange, type ChartSeries } from './response-chart.tsx';
import { HeartbeatBars } from './heartbeat-bars.tsx';
import type { Heartbeat } from '../../src/domain/heartbeat.ts';


/** Check frequency in words: "30 s", "5 min", "1 h". */
export const freqWords = (s: number) => (s < 60 ? `${s} s` : s < 3600 ? `${s / 60} min` : `${s / 3600} h`);

/** The monitor page's chosen period: the response-time chart and the uptime (SLA) over it (src/http/console/response-period.ts). */
export const MONITOR_RANGES = CHART_RANGES;
export type MonitorRange = ChartRange;
/** How a period is written next to its figure ("Uptime 1 h"). */
const RANGE_LABELS: Readonly<Record<MonitorRange, string>> = { '1h': '1 h', '24h': '24 h', '7d': '7 d', '30d': '30 d' };

/** Response times (hourly means from the rollups) and the SLA over the chosen period. */
export interface MonitorPeriod {
  range: MonitorRange;
  /** The chart's lines (views/console/response-chart.tsx) and the longest gap a line crosses, ms. */
  series: ChartSeries[];
  gapMs: number;
  /** d3's functions the chart draws with (loaded by the route on the first chart). */
  kit: ChartKit;
  from: number;
  to: number;
  /** Uptime (%) over the period (src/domain/uptime.ts), null while pending. */
  sla: number | null;
  downtime: string;
  mttr: string;
  outages: number;
}

/** A monitor: its settings, actions, recent checks with the reason of each failure and the region that ran it, and its outages. */
export function MonitorPage(props: { s: Shell; m: Monitor; checks: StoredResult[]; outages: OutageRecord[]; policy: string | null; settings: SettingLine[]; target: string; uptime24h: number | null; pending: boolean; period: MonitorPeriod; now: number; lastAt: number | null; beats?: Heartbeat[] }) {
  const { s, m } = props;
  const status = m.paused ? 'paused' : props.pending ? 'pending' : m.status;
  const current = props.outages.find((o) => o.endAt === null) ?? null;
  return (
    <Layout s={s} title={m.name} refresh>
      <h1>
        {m.name} <MonitorBadges m={m} status={status} />
      </h1>
      {m.tags.length > 0 || m.group ? (
        <div class="tagline" id="monitor-tags">
          {m.group ? (
            <span class="group-name">
              Group: <a href={`/?group=${encodeURIComponent(m.group)}`}>{m.group}</a>
            </span>
          ) : null}{' '}
          <TagChips tags={m.tags} filter />
        </div>
      ) : null}
      <ResourceActions s={s} id="monitor-actions" base={`/monitors/${m.uuid}`} paused={m.paused} confirm="Delete this monitor with its history and outages?" clone={`/monitors/new?clone=${m.uuid}`} />
      <div class="card">
        <MonitorNow m={m} status={status} lastAt={props.lastAt} current={current} now={props.now} />
      </div>
      <div class="card" id="heartbeats">
        <p class="small muted">Last checks, oldest left (times UTC)</p>
        <HeartbeatBars uuid={m.uuid} beats={props.beats ?? []} big />
      </div>
      <div class="card">
        <dl class="props">
          <dt>Target</dt>
          <dd>
            {props.target}
            {m.port ? `:${m.port}` : ''}
          </dd>
          <dt>Every</dt>
          <dd>
            {freqWords(m.checkFrequencySeconds)}, timeout {m.timeoutSeconds} s
          </dd>
          <dt>Regions</dt>
          <dd>{m.regions.join(', ')}</dd>
          {props.settings.map((x) => (
            <>
              <dt>{x.label}</dt>
              <dd>{x.value}</dd>
            </>
          ))}
          <dt>Uptime 24 h</dt>
          <dd data-uptime="24h">{formatUptime(props.uptime24h)}</dd>
          <dt>Alerts</dt>
          <dd>
            {m.alertsWaitMinutes < 0 ? 'never' : `after ${m.alertsWaitMinutes} min`} · {props.policy ?? 'no escalation policy'}
          </dd>
          {m.sslExpirationDays !== null ? (
            <>
              <dt>Certificate</dt>
              <dd>expires in {plural(m.sslExpirationDays, 'day')}</dd>
            </>
          ) : null}
        </dl>
      </div>
      <h2>Response time and uptime</h2>
      <div class="card" id="period">
        <nav class="actions" aria-label="Period">
          {(Object.keys(MONITOR_RANGES) as MonitorRange[]).map((r) => (
            <a href={`/monitors/${m.uuid}?range=${r}`} aria-current={props.period.range === r ? 'page' : undefined} class={props.period.range === r ? 'button' : 'button secondary'}>
              {r}
            </a>
          ))}
        </nav>
        <div class="chart">
          <ResponseChart series={props.period.series} from={props.period.from} to={props.period.to} gapMs={props.period.gapMs} kit={props.period.kit} label={`Response time over ${RANGE_LABELS[props.period.range]}`} />
        </div>
        <p>
          Uptime {RANGE_LABELS[props.period.range]} (SLA) <b data-sla="" data-uptime={props.period.range}>{formatUptime(props.period.sla)}</b> · {plural(props.period.outages, 'outage')} · downtime {props.period.downtime} · MTTR {props.period.mttr}
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
      <OutageTable id="monitor-outages" rows={props.outages} now={props.now} empty="No outage." outages={`of:${m.uuid}`} insert head={false} />
    </Layout>
  );
}
