import type { Hono } from 'hono';
import type { Core } from '../../core/index.ts';
import { formatTagRef } from '../../domain/tags.ts';
import type { FormValues } from '../../../views/console/model.ts';
import type { PickItem, PickerModel } from '../../../views/console/picker.tsx';
import { tagColorsCss } from '../../../views/console/tags.tsx';
import type { HttpDeps } from '../context.ts';
import type { ConsoleContext, ConsoleEnv } from './context.ts';

/** Most matches a picker shows at once (JavaScript on and off). */
export const PICK_LIMIT = 20;

/** What a picker chooses from: monitors only (maintenance), monitors and healthchecks (status-page create form), or those and components (status-page editor). */
export type PickSource = 'monitors' | 'checks' | 'services';

/** The candidates of `source`, monitors with their tags, by name. */
export async function pickItems(core: Core, source: PickSource): Promise<PickItem[]> {
  const monitors = (await core.monitors.list()).map((m): PickItem => ({ uuid: m.uuid, name: m.name, kind: m.protocol, tags: m.tags }));
  const hcs = source !== 'monitors' ? (await core.healthchecks.list()).map((h): PickItem => ({ uuid: h.uuid, name: h.name, kind: 'healthcheck', tags: [] })) : [];
  const components = source === 'services' ? (await core.incidents.components.list()).map((x): PickItem => ({ uuid: x.uuid, name: x.name, kind: 'component', tags: [] })) : [];
  return [...monitors, ...hcs, ...components];
}

/**
 * The items of `items` matching `q` (case-insensitive: the name contains it, or a tag written
 * `name` / `name:value` contains it), names starting with it first, then by name; `exclude`d uuids
 * left out. @returns at most `limit`, and whether more matched
 */
export function pickMatches(items: readonly PickItem[], q: string, exclude: ReadonlySet<string> = new Set(), limit = PICK_LIMIT): { items: PickItem[]; more: boolean } {
  const needle = q.trim().toLowerCase();
  if (needle === '') return { items: [], more: false };
  const hit = items.filter((it) => !exclude.has(it.uuid) && (it.name.toLowerCase().includes(needle) || it.tags.some((t) => formatTagRef(t).toLowerCase().includes(needle))));
  const rank = (it: PickItem) => (it.name.toLowerCase().startsWith(needle) ? 0 : it.name.toLowerCase().includes(needle) ? 1 : 2);
  hit.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
  return { items: hit.slice(0, limit), more: hit.length > limit };
}

const many = (f: FormValues, name: string): string[] => {
  const v = f[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};

/**
 * One picker's state from the form values (posted, or submitted by GET with JavaScript off): the
 * chosen uuids of `field` (an unknown one is kept, shown by its uuid, so nothing is dropped
 * silently), and the matches of `pick_q_<field>`. With `key` (several pickers of one field on a
 * page, each in its own form: the status-page editor), only the picker whose Search was pressed
 * (`pick=<key>`) takes the values; the others start empty.
 */
export function pickerModel(values: FormValues, field: string, items: readonly PickItem[], key?: string): PickerModel {
  if (key !== undefined && values.pick !== key) return { field, key, selected: [], query: '', matches: null, more: false };
  const byUuid = new Map(items.map((it) => [it.uuid, it]));
  const chosen = [...new Set(many(values, field))];
  const selected = chosen.map((u) => byUuid.get(u) ?? { uuid: u, name: u, kind: 'unknown', tags: [] });
  const qName = `pick_q_${key ?? field}`;
  const q = typeof values[qName] === 'string' ? (values[qName] as string) : '';
  const found = q.trim() === '' ? null : pickMatches(items, q, new Set(chosen));
  return { field, ...(key !== undefined ? { key } : {}), selected, query: q, matches: found?.items ?? null, more: found?.more ?? false };
}

/**
 * A page's form values from its query string, when it was submitted by a picker's "Search" (the
 * form by GET, JavaScript off: `pick=<field>`); an empty object otherwise.
 */
export function pickQueryValues(c: ConsoleContext): FormValues {
  const q = c.req.queries();
  if (!q.pick) return {};
  const out: FormValues = {};
  for (const [k, v] of Object.entries(q)) if (k !== '_csrf') out[k] = v.length === 1 ? v[0] : v;
  return out;
}

/**
 * The picker's routes: `GET /monitors/pick?source=monitors|checks|services&q=…` answers JSON
 * `{items: [{uuid, name, kind, tags: ["name" | "name:value"]}], more}` (at most {@link PICK_LIMIT}),
 * for picker-client.ts; `GET /_console/tag-colors.css?c=rrggbb.rrggbb` the chips' colours
 * (views/console/tags.tsx). Registered before the monitor routes (`/monitors/:uuid`).
 */
export function pickerRoutes(app: Hono<ConsoleEnv>, deps: Pick<HttpDeps, 'core'>): void {
  const { core } = deps;
  app.get('/monitors/pick', async (c) => {
    const asked = c.req.query('source');
    const source: PickSource = asked === 'checks' || asked === 'services' ? asked : 'monitors';
    const found = pickMatches(await pickItems(core, source), (c.req.query('q') ?? '').slice(0, 200));
    return c.json({ items: found.items.map((it) => ({ uuid: it.uuid, name: it.name, kind: it.kind, tags: it.tags.map(formatTagRef) })), more: found.more });
  });
  app.get('/_console/tag-colors.css', (c) => c.body(tagColorsCss(c.req.query('c') ?? ''), 200, { 'Content-Type': 'text/css; charset=utf-8' }));
}
