import type { Child } from 'hono/jsx';
import type { Shell } from './model.ts';
import { Csrf, Layout } from './layout.tsx';

/**
 * The overview's list controls (issue 33 point 5): what the query string asks for, the sort choice,
 * the pager and the bulk-action bar. Everything is a link or a plain form (no JavaScript needed);
 * the console script adds search as you type and "select all on this page".
 */

/** Rows per page unless `?per=` says otherwise, and the most `?per=` may ask for. */
export const PER_PAGE = 50;
/** The most rows one page shows (`?per=` is capped here). */
export const MAX_PER_PAGE = 200;

/** The overview's query string: filters (`q`, `status`, `protocol`), sort (`sort`, `dir`) and page (`page` from 1, `per`). */
export interface OverviewFilter {
  status: string;
  protocol: string;
  /** A tag's name ('' for any). */
  tag: string;
  /** A group's name ('' for any). */
  group: string;
  q: string;
  sort: 'status' | 'name' | 'changed' | 'response';
  dir: 'asc' | 'desc';
  page: number;
  per: number;
}

/** The labels of the sorts, in the order offered. */
export const SORT_LABELS = { status: 'status', name: 'name', changed: 'last change', response: 'response time' } as const;

/** The overview's address for `f` (only what differs from the defaults is written), page 1 unless given. */
export function overviewHref(f: OverviewFilter, change: Partial<OverviewFilter> = {}): string {
  const g = { ...f, page: 1, ...change };
  const p = new URLSearchParams();
  if (g.q) p.set('q', g.q);
  if (g.status) p.set('status', g.status);
  if (g.protocol) p.set('protocol', g.protocol);
  if (g.tag) p.set('tag', g.tag);
  if (g.group) p.set('group', g.group);
  if (g.sort !== 'status') p.set('sort', g.sort);
  if (g.dir !== 'asc') p.set('dir', g.dir);
  if (g.per !== PER_PAGE) p.set('per', String(g.per));
  if (g.page > 1) p.set('page', String(g.page));
  const s = p.toString();
  return s ? `/?${s}` : '/';
}

/** True when `f` is the plain first page (no filter, default sort): the only page new rows may be added to live. */
export const isPlainFirstPage = (f: OverviewFilter): boolean => !f.q && !f.status && !f.protocol && !f.tag && !f.group && f.sort === 'status' && f.dir === 'asc' && f.page === 1;

const n = (x: number) => x.toLocaleString('en-US');

/** "1–50 of 2,000" with Previous / Next links (`rel` prev/next) and the page number. */
export function Pager(props: { f: OverviewFilter; total: number; shown: number }) {
  const { f, total } = props;
  const pages = Math.max(1, Math.ceil(total / f.per));
  const first = (f.page - 1) * f.per;
  return (
    <nav class="pager" aria-label="Pages" id="pager">
      <span class="muted">
        {props.shown === 0 ? `0 of ${n(total)}` : `${n(first + 1)}–${n(first + props.shown)} of ${n(total)}`}
      </span>
      {f.page > 1 ? (
        <a href={overviewHref(f, { page: Math.min(f.page - 1, pages) })} rel="prev">
          ← Previous
        </a>
      ) : null}
      <span>
        Page {n(Math.min(f.page, pages))} of {n(pages)}
      </span>
      {f.page < pages ? (
        <a href={overviewHref(f, { page: f.page + 1 })} rel="next">
          Next →
        </a>
      ) : null}
    </nav>
  );
}

/** A column heading that sorts by `by` (a second click reverses); `aria-sort` on the current one. */
export function SortHeading(props: { f: OverviewFilter; by: OverviewFilter['sort']; children: Child; class?: string }) {
  const { f, by } = props;
  const current = f.sort === by;
  const dir = current && f.dir === 'asc' ? 'desc' : 'asc';
  return (
    <th class={props.class} aria-sort={current ? (f.dir === 'asc' ? 'ascending' : 'descending') : undefined}>
      <a href={overviewHref(f, { sort: by, dir })} data-sort={by}>
        {props.children}
        {current ? (f.dir === 'asc' ? ' ↑' : ' ↓') : ''}
      </a>
    </th>
  );
}

/** The bulk actions (value → label). `tag` is offered only when tags exist in this build (`withTags`). */
export const BULK_ACTIONS = { pause: 'Pause', resume: 'Resume', delete: 'Delete…', policy: 'Attach escalation policy', tag: 'Add tag' } as const;
/** One of {@link BULK_ACTIONS}. */
export type BulkAction = keyof typeof BULK_ACTIONS;

/**
 * The bulk-action bar: a form (`#bulk`) the rows' checkboxes belong to (`form="bulk"`), posting to
 * `/monitors/bulk` with the chosen action, "all on this page" (the page's monitor uuids travel in
 * `page_uuids`), and where to come back to (`back`).
 */
export function BulkBar(props: { s: Shell; back: string; pageUuids: string[]; policies: Array<{ uuid: string; name: string }>; withTags: boolean }) {
  const { s } = props;
  return (
    <form class="bulk" id="bulk" method="post" action="/monitors/bulk">
      <Csrf s={s} />
      <input type="hidden" name="back" value={props.back} />
      <input type="hidden" name="page_uuids" value={props.pageUuids.join(',')} />
      <label>
        <input type="checkbox" name="all" value="page" data-select-page="" /> Select all on this page
      </label>
      <select name="action" aria-label="Bulk action">
        {(Object.keys(BULK_ACTIONS) as BulkAction[])
          .filter((a) => a !== 'tag' || props.withTags)
          .map((a) => (
            <option value={a}>{BULK_ACTIONS[a]}</option>
          ))}
      </select>
      <select name="policy" aria-label="Escalation policy (Attach escalation policy)">
        <option value="none">no escalation policy</option>
        {props.policies.map((p) => (
          <option value={p.uuid}>{p.name}</option>
        ))}
      </select>
      {props.withTags ? <input type="text" name="tag" placeholder="tag or tag:value" aria-label="Tag (Add tag)" /> : null}
      <button type="submit" class="secondary">
        Apply to selected
      </button>
    </form>
  );
}

/** The flash line after a bulk action (`?done=<action>&n=<count>`): from this list only, never text from the query. */
export function flashOf(done: string, count: number): string | null {
  if (done === 'none') return 'Select monitors first: nothing was changed.';
  const verbs: Record<string, string> = { pause: 'Paused', resume: 'Resumed', delete: 'Deleted', policy: 'Attached the escalation policy to', tag: 'Tagged' };
  const v = verbs[done];
  if (!v || !Number.isInteger(count) || count < 0) return null;
  return `${v} ${n(count)} ${count === 1 ? 'monitor' : 'monitors'}.`;
}

/** The confirmation page of a bulk delete: the monitors by name, Delete (posts the same uuids with `confirm=delete`), Cancel. */
export function BulkDeleteList(props: { names: string[] }) {
  const shown = props.names.slice(0, 50);
  return (
    <ul id="bulk-delete-names">
      {shown.map((x) => (
        <li>{x}</li>
      ))}
      {props.names.length > shown.length ? <li class="muted">and {n(props.names.length - shown.length)} more</li> : null}
    </ul>
  );
}

/**
 * The confirmation page of a bulk delete (POST /monitors/bulk with `action=delete` and no
 * confirmation): the monitors by name and what goes with them; Delete posts the same uuids with
 * `confirm=delete`; Cancel goes back to the list.
 */
export function BulkDeleteConfirmPage(props: { s: Shell; names: string[]; uuids: string[]; back: string; confirmField: string; confirmValue: string }) {
  const { s } = props;
  const what = `${n(props.names.length)} ${props.names.length === 1 ? 'monitor' : 'monitors'}`;
  return (
    <Layout s={{ ...s, path: '/' }} title={`Delete ${what}?`}>
      <h1>Delete {what}?</h1>
      <div class="card" id="delete-losses">
        <p>Deleting cannot be undone. Gone with each: its check history (results, response times, uptime bars and reports), its outages and their timelines, and its place on status pages.</p>
        <BulkDeleteList names={props.names} />
        <p class="muted">Pausing stops their checks and alerts and keeps all of this; resume them any time.</p>
      </div>
      <div class="actions" id="delete-actions">
        <form method="post" action="/monitors/bulk">
          <Csrf s={s} />
          <input type="hidden" name="back" value={props.back} />
          {props.uuids.map((u) => (
            <input type="hidden" name="uuid" value={u} />
          ))}
          <input type="hidden" name="action" value="delete" />
          <input type="hidden" name={props.confirmField} value={props.confirmValue} />
          <button type="submit" class="danger">
            Delete {what}
          </button>
        </form>
        <form method="post" action="/monitors/bulk">
          <Csrf s={s} />
          <input type="hidden" name="back" value={props.back} />
          {props.uuids.map((u) => (
            <input type="hidden" name="uuid" value={u} />
          ))}
          <input type="hidden" name="action" value="pause" />
          <button type="submit" class="secondary">
            Pause instead
          </button>
        </form>
        <a class="button secondary" href={props.back}>
          Cancel
        </a>
      </div>
    </Layout>
  );
}

/**
 * The list controls' styles (added to the console's stylesheet, style.ts): the pick column only where
 * the bulk bar is (editors), the pager, the flash line. On phones (≤ 640 px) the pick column and the
 * bulk bar are hidden: bulk actions are a desktop task, the rows stay readable.
 */
export const OVERVIEW_LIST_CSS = `
table.rows th.pick,table.rows td.pick{width:1.6rem}
table.rows:not(.bulk) .pick{display:none}
form.bulk{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-bottom:.6rem}
form.bulk select,form.bulk input[type=text]{flex:0 1 14rem}
.pager{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;justify-content:flex-end;margin-top:.6rem}
.flash{background:var(--chip);border:1px solid var(--line);border-radius:8px;padding:.5rem .75rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
th a[data-sort]{color:inherit}
@media (max-width:640px){table.rows .pick,form.bulk{display:none}}
`;
