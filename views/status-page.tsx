import { raw } from 'hono/html';
import { escapeToBuffer } from 'hono/utils/html';
import type { Incident } from '../src/domain/incident.ts';
import { localize } from '../src/domain/localized.ts';
import type { MaintenanceWindow } from '../src/domain/maintenance.ts';
import { LATENCY_RANGES, uptimeLevel, type DayUptime, type LatencyRange } from '../src/domain/status-page-view.ts';
import type { PageView, ServiceView } from '../src/core/status-view.ts';
import { formatDate, formatDateTime, formatDuration, pluralCategory } from './format.ts';
import { ResponseGraph } from './graph.tsx';
import { fmt, type UiKey } from './i18n/index.ts';
import { Card, href, Layout, type Chrome } from './layout.tsx';

/** One incident with its update timeline, newest update first. */
export function IncidentNotice(props: { c: Chrome; incident: Incident }) {
  const { c, incident } = props;
  const last = incident.updates.at(-1);
  return (
    <div class={`notice incident u-${last?.type ?? 'none'}`} id={incident.uuid}>
      <h3>{localize(incident.title, c.lang)}</h3>
      <ol class="timeline">
        {[...incident.updates].reverse().map((u) => (
          <li>
            <span class="type">{c.t[`update_${u.type}` as UiKey]}</span> — {localize(u.text, c.lang)}
            <time datetime={new Date(u.at).toISOString()}>{formatDateTime(u.at, c.lang)}</time>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** A maintenance window: title, times, updates. */
export function MaintenanceNotice(props: { c: Chrome; window: MaintenanceWindow }) {
  const { c, window: w } = props;
  return (
    <div class="notice maintenance">
      <h3>{localize(w.title, c.lang) || w.name}</h3>
      <div class="when">{fmt(c.t.from_to, { start: formatDateTime(w.startAt, c.lang), end: formatDateTime(w.endAt, c.lang) })}</div>
      {w.updates.length > 0 ? (
        <ol class="timeline">
          {[...w.updates].reverse().map((u) => (
            <li>
              {localize(u.text, c.lang)}
              <time datetime={new Date(u.date).toISOString()}>{formatDateTime(u.date, c.lang)}</time>
            </li>
          ))}
        </ol>
      ) : null}
    </div>
  );
}

const escape = (s: string) => {
  const buffer: [string] = [''];
  escapeToBuffer(s, buffer);
  return buffer[0];
};

/**
 * The bars' HTML by day and figures, shared by every service of one response: on most pages the days
 * of most services read alike (no data before creation, 100 % since), so each distinct bar is built
 * (date label, Intl, escaping) once per response, not once per service.
 */
const barMemo = new WeakMap<Chrome, Map<number, Map<number | null, Map<number, string>>>>();

function dayTitle(c: Chrome, d: DayUptime): string {
  const date = formatDate(d.dayStart, c.lang);
  if (d.uptime === null) return `${date} · ${c.t.no_data}`;
  const down = d.downtimeMs > 0 ? fmt(c.t.downtime, { duration: formatDuration(d.downtimeMs, c.lang) }) : c.t.no_downtime;
  return `${date} · ${d.uptime.toFixed(2)} % · ${down}`;
}

/**
 * The 90 bars as one escaped HTML string: 4,500 spans on a 50-service page are the page's bulk,
 * and building them as a string (every title escaped) costs a fraction of 4,500 JSX elements.
 */
function barsHtml(c: Chrome, days: DayUptime[]) {
  let memo = barMemo.get(c);
  if (!memo) barMemo.set(c, (memo = new Map()));
  let out = '';
  for (const d of days) {
    // Keyed by numbers (day start → uptime → downtime): no key strings built per bar.
    let byUptime = memo.get(d.dayStart);
    if (!byUptime) memo.set(d.dayStart, (byUptime = new Map()));
    let byDowntime = byUptime.get(d.uptime);
    if (!byDowntime) byUptime.set(d.uptime, (byDowntime = new Map()));
    let bar = byDowntime.get(d.downtimeMs);
    if (bar === undefined) byDowntime.set(d.downtimeMs, (bar = `<span class="bar l-${uptimeLevel(d.uptime)}" title="${escape(dayTitle(c, d))}"></span>`));
    out += bar;
  }
  return raw(out);
}

function StatusLabel(props: { c: Chrome; status: ServiceView['status'] }) {
  return (
    <span class={`status s-${props.status}`} data-status={props.status}>
      <span class="dot" />
      {props.c.t[`status_${props.status}` as UiKey]}
    </span>
  );
}

function ServiceRow(props: { c: Chrome; s: ServiceView; range: LatencyRange }) {
  const { c, s } = props;
  const days = s.days;
  return (
    <div class="service" data-service={s.name}>
      <div class="svc-head">
        <div>
          <div class="svc-name">{localize(s.nameI18n, c.lang) || s.name}</div>
          {s.description ? <div class="svc-desc">{localize(s.descriptionI18n, c.lang) || s.description}</div> : null}
        </div>
        <StatusLabel c={c} status={s.status} />
      </div>
      {days ? (
        <>
          <div class="bars" role="img" aria-label={s.uptime === null ? c.t.no_data : fmt(c.t.uptime_90_days, { value: s.uptime.toFixed(2) })}>
            {barsHtml(c, days)}
          </div>
          <div class="bars-legend">
            {/* Phones (style.ts, max-width 520px) show the last 30 bars and the second label: 90 bars of 2 px + gaps do not fit a 360 px card. */}
            <span class="ago-90">{c.t.days_ago_90}</span>
            <span class="ago-30">{c.t.days_ago_30}</span>
            <span data-uptime="90d">{s.uptime === null ? c.t.no_data : fmt(c.t.uptime_90_days, { value: s.uptime.toFixed(2) })}</span>
            <span>{c.t.today}</span>
          </div>
        </>
      ) : null}
      {s.latency && s.latency.length > 1 ? (
        <div class="graph">
          <ResponseGraph points={s.latency} from={c.now - LATENCY_RANGES[props.range]} to={c.now} label={`${c.t.response_time} (${s.name})`} />
          <div class="graph-legend">
            <span>{c.t.response_time}</span>
            <span>{fmt(c.t.average_ms, { value: Math.round(s.latency.reduce((a, p) => a + p[1], 0) / s.latency.length) })}</span>
          </div>
        </div>
      ) : null}
    </div>
  );
}

function GroupRow(props: { c: Chrome; s: ServiceView; range: LatencyRange }) {
  const { c, s } = props;
  return (
    <details class="group" data-service={s.name} open={s.status !== 'operational' ? true : undefined}>
      <summary>
        <div class="svc-head">
          <div>
            <div class="svc-name">{localize(s.nameI18n, c.lang) || s.name}</div>
            <div class="svc-desc">{s.description ? localize(s.descriptionI18n, c.lang) || s.description : fmt(pluralCategory(s.children.length, c.lang) === 'one' ? c.t.services_count_one : c.t.services_count, { count: s.children.length })}</div>
          </div>
          <StatusLabel c={c} status={s.status} />
        </div>
      </summary>
      {s.children.map((child) => (
        <ServiceRow c={c} s={child} range={props.range} />
      ))}
    </details>
  );
}

/** The status page: banner, active incidents and maintenance, sections of services, links. */
export function StatusPage(props: { c: Chrome; view: PageView; range: LatencyRange; canSubscribe: boolean }) {
  const { c, view, range } = props;
  const { t } = c;
  const withGraphs = view.page.sections.some((sec) => sec.services.some((s) => s.show_response_times || s.services.some((x) => x.show_response_times)));
  const links = (
    <>
      <a href={href(c, '/history')}>{t.incident_history}</a>
      {props.canSubscribe ? <a href={href(c, '/subscribe')}>{t.subscribe}</a> : null}
    </>
  );
  return (
    <Layout c={c} title={`${view.page.name} · ${t[`banner_${view.overall}` as UiKey]}`} refresh links={links} path="/" query={range === '24h' ? {} : { range }}>
      <div class={`banner ${view.page.settings.banner_header ? '' : 'plain '}s-${view.overall}`} data-overall={view.overall} role="status">
        <span class="dot" />
        {t[`banner_${view.overall}` as UiKey]}
      </div>
      {view.activeIncidents.length > 0 ? (
        <Card title={t.active_incidents}>
          {view.activeIncidents.map((i) => (
            <IncidentNotice c={c} incident={i} />
          ))}
        </Card>
      ) : null}
      {view.activeMaintenance.length > 0 ? (
        <Card title={t.maintenance_in_progress}>
          {view.activeMaintenance.map((w) => (
            <MaintenanceNotice c={c} window={w} />
          ))}
        </Card>
      ) : null}
      {view.upcomingMaintenance.length > 0 ? (
        <Card title={t.scheduled_maintenance}>
          {view.upcomingMaintenance.map((w) => (
            <MaintenanceNotice c={c} window={w} />
          ))}
        </Card>
      ) : null}
      {withGraphs ? (
        <nav class="ranges" aria-label={t.response_time}>
          <a href={href(c, '/')} aria-current={range === '24h' ? 'true' : undefined}>
            {t.last_24_hours}
          </a>
          <a href={href(c, '/', { range: '7d' })} aria-current={range === '7d' ? 'true' : undefined}>
            {t.last_7_days}
          </a>
        </nav>
      ) : null}
      {view.sections.map((sec) => (
        <section class="card section">
          <h2>{localize(sec.nameI18n, c.lang) || sec.name}</h2>
          {sec.services.map((s) => (s.kind === 'group' ? <GroupRow c={c} s={s} range={range} /> : <ServiceRow c={c} s={s} range={range} />))}
        </section>
      ))}
      <p class="updated">
        <small>{fmt(t.updated_at, { time: formatDateTime(view.now, c.lang) })}</small>
      </p>
    </Layout>
  );
}
