import type { MonitorTag } from '../../src/domain/tags.ts';
import type { FormErrors } from './model.ts';
import { FieldError } from './layout.tsx';
import { TagChips } from './tags.tsx';

/**
 * The searchable picker (issue 33 point 5: "searchable pickers instead of checkbox walls"): what is
 * chosen shows as chips — ticked checkboxes named like the field the form always posted, so form
 * handlers do not change and unticking one removes it — and a search box finds more by name or tag.
 *
 * - JavaScript on (picker-client.ts): results as you type from `GET /monitors/pick?source=…&q=…`
 *   (at most 20); a click or Enter adds the first as a chip.
 * - JavaScript off: "Search" submits the whole form by GET to the same page (`pick_q_<field>=…`,
 *   `formnovalidate`), which renders it again with what was typed and chosen, and the matches as
 *   checkboxes to tick.
 */

/** Something to pick: a monitor (with its tags), a healthcheck or a component. */
export interface PickItem {
  uuid: string;
  name: string;
  /** What it is, shown beside its name (`http`, `healthcheck`, …). */
  kind: string;
  tags: readonly MonitorTag[];
}

/** One picker's state on a page. */
export interface PickerModel {
  /** The form field the picked uuids are posted as (repeated). */
  field: string;
  /** Chosen so far, in order. */
  selected: PickItem[];
  /** The search text (JavaScript off: what was submitted). */
  query: string;
  /** The matches of `query` not chosen yet (JavaScript off), at most 20; null when nothing was searched. */
  matches: PickItem[] | null;
  /** More than the matches shown matched. */
  more: boolean;
  /** Tells this picker from others of the same field on a page (its id, `pick_q_<key>`, `pick=<key>`); default `field`. */
  key?: string;
}

/** The picker's layout (in console.css). */
export const PICKER_CSS =
  '.picker .picker-chips{display:flex;flex-wrap:wrap;gap:.35rem;list-style:none;margin:0 0 .5rem;padding:0}' +
  '.picker label.chip{display:inline-flex;gap:.35rem;align-items:center;font-weight:400;background:var(--chip);border:1px solid var(--line);border-radius:999px;padding:.1rem .6rem}' +
  '.picker .picker-search{display:flex;gap:.5rem;align-items:flex-end}.picker .picker-search label{flex:1}' +
  '.picker input[type=search]{width:100%;padding:.45rem .55rem;border:1px solid var(--line);border-radius:6px;background:var(--bg)}' +
  '.picker .picker-results{list-style:none;margin:.4rem 0 0;padding:0;display:grid;gap:.25rem}' +
  '.picker .picker-results button{width:100%;text-align:left;font-weight:400;min-height:2.2rem}';

/** A searchable picker of `p.field` under `legend`; `source` names the candidates (`/monitors/pick?source=`). */
export function Picker(props: { p: PickerModel; legend: string; source: 'monitors' | 'checks' | 'services'; errors?: FormErrors | undefined; searchAction?: string }) {
  const { p } = props;
  const key = p.key ?? p.field;
  const id = `pick-${key}`;
  return (
    <fieldset class="picker" data-picker={props.source} data-field={p.field} id={id}>
      <legend>{props.legend}</legend>
      <ul class="picker-chips" data-picker-chips="" aria-label={`Chosen: ${props.legend}`}>
        {p.selected.map((it) => (
          <li>
            <label class="chip">
              <input type="checkbox" name={p.field} value={it.uuid} checked /> {it.name} <span class="muted small">({it.kind})</span>
            </label>
          </li>
        ))}
      </ul>
      {p.selected.length === 0 ? (
        <p class="muted small" data-picker-none="">
          None chosen yet: find them below.
        </p>
      ) : null}
      <div class="picker-search">
        <label>
          Find by name or tag
          <input type="search" name={`pick_q_${key}`} value={p.query} autocomplete="off" data-picker-q="" aria-controls={`${id}-results`} />
        </label>
        <button type="submit" class="secondary" formmethod="get" formaction={props.searchAction} formnovalidate name="pick" value={key} data-picker-go="">
          Search
        </button>
      </div>
      <div id={`${id}-results`} data-picker-results="" aria-live="polite">
        {p.matches === null ? null : p.matches.length === 0 ? (
          <p class="muted small">No match for “{p.query}”.</p>
        ) : (
          <>
            {p.matches.map((it) => (
              <label class="check">
                <input type="checkbox" name={p.field} value={it.uuid} /> {it.name} <span class="muted small">({it.kind})</span> <TagChips tags={it.tags} />
              </label>
            ))}
            {p.more ? <p class="muted small">More match: type more of the name.</p> : null}
          </>
        )}
      </div>
      <FieldError errors={props.errors} name={p.field} />
    </fieldset>
  );
}
