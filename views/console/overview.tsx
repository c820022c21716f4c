import { raw } from 'hono/html';
import { escapeToBuffer } from 'hono/utils/html';
import type { OverviewCounts, OverviewRow } from '../../src/core/console-view.ts';
import { PROTOCOLS } from '../../src/domain/monitor.ts';
import { formatUptime } from '../../src/domain/uptime.ts';
import type { Shell } from './model.ts';
import { canWrite } from './model.ts';
import { ago, Layout } from './layout.tsx';
import { HEARTBEAT_HEADING_TITLE, heartbeatCellHtml } from './heartbeat-bars.tsx';
import { tagClass, tagColorsHref, TagStyles } from './tags.tsx';
import { formatTagRef, type MonitorTag } from '../../src/domain/tags.ts';
import { BulkBar, isPlainFirstPage, overviewHref, Pager, SORT_LABELS, SortHeading, type OverviewFilter } from './overview-list.tsx';
import { OnCallGapsBanner, type OnCallGapView } from './on-call-gaps.tsx';

export type { OverviewFilter } from './overview-list.tsx';

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
 * cost a fraction of the elements (and of the garbage). `colors`: the chips bring their own
 * tag-colors stylesheet link (a row sent live may carry a colour the page's link lacks).
 */
export function overviewRowHtml(r: OverviewRow, now: number, colors = false): string {
  const href = r.kind === 'monitor' ? `/monitors/${r.uuid}` : `/healthchecks/${r.uuid}`;
  const st = escape(r.status);
  return (
    `<tr id="row-${escape(r.uuid)}" data-kind="${r.kind}" data-status="${st}"${r.maintenance ? ' data-maintenance=""' : ''}>` +
    (r.kind === 'monitor' ? `<td class="pick"><input type="checkbox" name="uuid" value="${escape(r.uuid)}" form="bulk" aria-label="Select ${escape(r.name)}"></td>` : '<td class="pick"></td>') +
    `<td><span class="status" data-status="${st}">${st}</span>` +
    `${r.maintenance ? '<div class="small muted">maintenance</div>' : ''}</td>` +
    `<td><a href="${escape(href)}">${escape(r.name)}</a><div class="muted small">${escape(r.target)}</div>${chipsHtml(r.tags, colors)}</td>` +
    heartbeatCellHtml(r) +
    `<td class="hide-sm">${escape(r.protocol)}</td><td class="num" data-uptime="24h">${pct(r, r.uptime24h)}</td><td class="num hide-sm" data-uptime="30d">${pct(r, r.uptime30d)}</td>` +
    `<td class="hide-sm spark">${r.sparkline}</td>` +
    `<td class="num hide-sm">${ago(r.lastAt, now)}</td><td class="hide-sm small">${escape(r.regions.join(', '))}</td></tr>`
  );
}

/** A row's tag chips as HTML (views/console/tags.tsx's `TagChips`, as a string like the row; colours from the page's TagStyles link). */
function chipsHtml(tags: readonly MonitorTag[] | undefined, colors = false): string {
  if (!tags || tags.length === 0) return '';
  let out = `${colors ? `<link rel="stylesheet" href="${escape(tagColorsHref(tags.map((t) => t.color)))}">` : ''}<ul class="tags" aria-label="Tags">`;
  for (const t of tags) out += `<li class="${escape(tagClass(t.color))}" data-tag="${escape(formatTagRef(t))}">${escape(t.value === '' ? t.name : `${t.name}: ${t.value}`)}</li>`;
  return `${out}</ul>`;
}

/** One line of the overview (see {@link overviewRowHtml}; `colors`: sent live, with its chips' stylesheet link). */
export function OverviewLine(props: { row: OverviewRow; now: number; colors?: boolean }) {
  return raw(overviewRowHtml(props.row, props.now, props.colors));
}

/** The counts by status over every monitor and healthcheck (`#counts`), each a link to its filter; also sent over SSE after changes. */
export function OverviewCountsBox(props: { counts: OverviewCounts }) {
  const { counts } = props;
  return (
    <div class="counts" id="counts">
      {(['up', 'down', 'paused', 'pending'] as const).map((st) => (
        <a href={`/?status=${st}`} data-count={st}>
          <b>{counts[st]}</b>
          {st}
        </a>
      ))}
      <a href="/?status=maintenance" data-count="maintenance">
        <b>{counts.maintenance}</b>
        in maintenance
      </a>
    </div>
  );
}

/** What the overview shows: one page of rows, how many match, the counts, and the bulk bar's choices. */
export interface OverviewModel {
  s: Shell;
  rows: OverviewRow[];
  /** Rows matching the filter, every page. */
  total: number;
  counts: OverviewCounts;
  filter: OverviewFilter;
  now: number;
  /** The line after a bulk action ("Paused 12 monitors."), or null. */
  flash: string | null;
  policies: Array<{ uuid: string; name: string }>;
  /** The bulk bar offers "Add tag". */
  withTags: boolean;
  /** Names of every tag and group (the filter's choices). */
  tags: string[];
  /** Colours (`#rrggbb`) of every tag: the chips' stylesheet. */
  tagColors: string[];
  groups: string[];
  /** Stretches of the next 7 days with nobody on call (issue 34 point 5): a banner. */
  onCallGaps?: OnCallGapView[];
}

/**
 * The overview (issue 33 point 5): counts, search and filters, one page of monitors and healthcheck
 * rows sorted and paged by the store, bulk actions for editors (live over SSE; meta refresh without JS).
 */
export function OverviewPage(props: OverviewModel) {
  const { s, rows, filter } = props;
  const empty = props.counts.up + props.counts.down + props.counts.paused + props.counts.pending === 0;
  return (
    <Layout s={s} title="Overview" refresh live>
      <h1>Overview</h1>
      <OverviewCountsBox counts={props.counts} />
      <OnCallGapsBanner gaps={props.onCallGaps} />
      {props.flash ? (
        <p class="flash" id="flash" role="status">
          {props.flash}
        </p>
      ) : null}
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
      <form class="filters" method="get" action="/" role="search" id="overview-filter" hx-get="/" hx-trigger="submit, change" hx-target="#overview-list" hx-select="#overview-list" hx-swap="outerHTML" hx-push-url="true">
        <input
          type="search"
          name="q"
          value={filter.q}
          placeholder="Search name or URL"
          aria-label="Search name or URL"
          hx-get="/"
          hx-include="closest form"
          hx-trigger="input changed delay:250ms, search"
          hx-target="#overview-list"
          hx-select="#overview-list"
          hx-swap="outerHTML"
          hx-push-url="true"
          hx-sync="this:replace"
        />
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
        {props.tags.length > 0 || filter.tag ? (
          <select name="tag" aria-label="Tag">
            {['', ...props.tags].map((v) => (
              <option value={v} selected={filter.tag.toLowerCase() === v.toLowerCase()}>
                {v || 'any tag'}
              </option>
            ))}
          </select>
        ) : null}
        {props.groups.length > 0 || filter.group ? (
          <select name="group" aria-label="Group">
            {['', ...props.groups].map((v) => (
              <option value={v} selected={filter.group === v}>
                {v || 'any group'}
              </option>
            ))}
          </select>
        ) : null}
        <select name="sort" aria-label="Sort by">
          {(Object.keys(SORT_LABELS) as Array<OverviewFilter['sort']>).map((v) => (
            <option value={v} selected={filter.sort === v}>
              sort by {SORT_LABELS[v]}
            </option>
          ))}
        </select>
        <select name="dir" aria-label="Order">
          <option value="asc" selected={filter.dir === 'asc'}>
            ascending
          </option>
          <option value="desc" selected={filter.dir === 'desc'}>
            descending
          </option>
        </select>
        {filter.per !== 50 ? <input type="hidden" name="per" value={String(filter.per)} /> : null}
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      <div class="card" id="overview-list">
        {canWrite(s) && rows.some((r) => r.kind === 'monitor') ? (
          <BulkBar s={s} back={overviewHref(filter, { page: filter.page })} pageUuids={rows.filter((r) => r.kind === 'monitor').map((r) => r.uuid)} policies={props.policies} withTags={props.withTags} />
        ) : null}
        {props.tagColors.length > 0 ? <TagStyles colors={props.tagColors} /> : null}
        {rows.length === 0 ? (
          <p class="muted">{empty ? 'Nothing is monitored yet.' : props.total === 0 ? 'Nothing matches the filter.' : 'Nothing on this page.'}</p>
        ) : (
          <table class={canWrite(s) ? 'rows bulk' : 'rows'} id="overview" data-insert={isPlainFirstPage(filter) && props.total <= filter.per ? '' : undefined}>
            <thead>
              <tr>
                <th class="pick">
                  <span class="visually-hidden">Select</span>
                </th>
                <SortHeading f={filter} by="status">
                  Status
                </SortHeading>
                <SortHeading f={filter} by="name">
                  Name
                </SortHeading>
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
        <Pager f={filter} total={props.total} shown={rows.length} />
      </div>
    </Layout>
  );
}
