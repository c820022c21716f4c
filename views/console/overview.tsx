import { raw } from 'hono/html';
import { escapeToBuffer } from 'hono/utils/html';
import type { OverviewRow } from '../../src/core/console-view.ts';
import { PROTOCOLS } from '../../src/domain/monitor.ts';
import { formatUptime } from '../../src/domain/uptime.ts';
import type { Shell } from './model.ts';
import { canWrite } from './model.ts';
import { ago, Layout } from './layout.tsx';
import { HEARTBEAT_HEADING_TITLE, heartbeatCellHtml } from './heartbeat-bars.tsx';

/** Overview filters (query string `status`, `protocol`, `q`). */
export interface OverviewFilter {
  status: string;
  protocol: string;
  q: string;
}

/** A row's uptime figure (src/domain/uptime.ts): "pending" for a monitor not checked yet, "—" for a healthcheck. */
const pct = (r: OverviewRow, v: number | null) => (r.kind === 'healthcheck' ? '—' : formatUptime(v));

const escape = (v: string) => {
  const buffer: [string] = [''];
  escapeToBuffer(v, buffer);
  return buffer[0];
};

/**
 * One line of the overview as an escaped HTML string (id `row-<uuid>`); also sent alone over SSE
 * when it changes. Built as a string, not JSX: a thousand rows are the page's bulk, and strings
 * cost a fraction of the elements (and of the garbage).
 */
export function overviewRowHtml(r: OverviewRow, now: number): string {
  const href = r.kind === 'monitor' ? `/monitors/${r.uuid}` : `/healthchecks/${r.uuid}`;
  const st = escape(r.status);
  return (
    `<tr id="row-${escape(r.uuid)}" data-kind="${r.kind}" data-status="${st}"${r.maintenance ? ' data-maintenance=""' : ''}><td><span class="status" data-status="${st}">${st}</span>` +
    `${r.maintenance ? '<div class="small muted">maintenance</div>' : ''}</td>` +
    `<td><a href="${escape(href)}">${escape(r.name)}</a><div class="muted small">${escape(r.target)}</div></td>` +
    heartbeatCellHtml(r) +
    `<td class="hide-sm">${escape(r.protocol)}</td><td class="num" data-uptime="24h">${pct(r, r.uptime24h)}</td><td class="num hide-sm" data-uptime="30d">${pct(r, r.uptime30d)}</td>` +
    `<td class="hide-sm spark">${r.sparkline}</td>` +
    `<td class="num hide-sm">${ago(r.lastAt, now)}</td><td class="hide-sm small">${escape(r.regions.join(', '))}</td></tr>`
  );
}

/** One line of the overview (see {@link overviewRowHtml}). */
export function OverviewLine(props: { row: OverviewRow; now: number }) {
  return raw(overviewRowHtml(props.row, props.now));
}

/** The overview: counts, filters and every monitor and healthcheck (live over SSE; meta refresh without JS). */
export function OverviewPage(props: { s: Shell; rows: OverviewRow[]; all: OverviewRow[]; filter: OverviewFilter; now: number }) {
  const { s, rows, all, filter } = props;
  const count = (st: string) => all.filter((r) => r.status === st).length;
  return (
    <Layout s={s} title="Overview" refresh live>
      <h1>Overview</h1>
      <div class="counts" id="counts">
        {(['up', 'down', 'paused', 'pending'] as const).map((st) => (
          <a href={`/?status=${st}`} data-count={st}>
            <b>{count(st)}</b>
            {st}
          </a>
        ))}
        <a href="/?status=maintenance" data-count="maintenance">
          <b>{all.filter((r) => r.maintenance).length}</b>
          in maintenance
        </a>
      </div>
      <div class="actions">
        {canWrite(s) ? (
          <>
            <a class="button" href="/monitors/new">
              New monitor
            </a>
            <a class="button secondary" href="/healthchecks/new">
              New healthcheck
            </a>
          </>
        ) : null}
      </div>
      <form class="filters" method="get" action="/" role="search">
        <input type="search" name="q" value={filter.q} placeholder="Filter by name or URL" aria-label="Text" />
        <select name="status" aria-label="Status">
          {['', 'up', 'down', 'paused', 'pending', 'maintenance'].map((v) => (
            <option value={v} selected={filter.status === v}>
              {v || 'any status'}
            </option>
          ))}
        </select>
        <select name="protocol" aria-label="Protocol">
          {['', ...PROTOCOLS, 'healthcheck'].map((v) => (
            <option value={v} selected={filter.protocol === v}>
              {v || 'any kind'}
            </option>
          ))}
        </select>
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      <div class="card">
        {rows.length === 0 ? (
          <p class="muted">{all.length === 0 ? 'Nothing is monitored yet.' : 'Nothing matches the filter.'}</p>
        ) : (
          <table class="rows" id="overview">
            <thead>
              <tr>
                <th>Status</th>
                <th>Name</th>
                <th title={HEARTBEAT_HEADING_TITLE}>Last checks</th>
                <th class="hide-sm">Kind</th>
                <th>Uptime 24 h</th>
                <th class="hide-sm">Uptime 30 d</th>
                <th class="hide-sm" title="Response time, last 24 h (hourly means, each row scaled to its own range)">Latency 24 h</th>
                <th class="hide-sm">Last check / ping</th>
                <th class="hide-sm">Regions</th>
              </tr>
            </thead>
            <tbody>{raw(rows.map((row) => overviewRowHtml(row, props.now)).join(''))}</tbody>
          </table>
        )}
      </div>
    </Layout>
  );
}

/** Applies the overview filters. */
export function filterRows(rows: OverviewRow[], f: OverviewFilter): OverviewRow[] {
  const q = f.q.trim().toLowerCase();
  return rows.filter((r) => (!f.status || r.status === f.status || (f.status === 'maintenance' && r.maintenance)) && (!f.protocol || r.protocol === f.protocol) && (!q || r.name.toLowerCase().includes(q) || r.target.toLowerCase().includes(q)));
}
