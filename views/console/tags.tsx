import { formatTagRef, readableTextColor, type MonitorTag } from '../../src/domain/tags.ts';

/**
 * Tag chips (issue 33 point 5, Uptime Kuma's coloured tags). The console's CSP allows no inline
 * styles, so a chip's colour is a class named after it (`tagc-2563eb`) and the rules come from
 * `/_console/tag-colors.css?c=2563eb.16a34a` (the colours listed in the URL, {@link tagColorsCss}):
 * a pure function of its query, so any page can link the colours it shows. The text is black or
 * white, whichever contrasts more with the colour (domain/tags.ts `readableTextColor`, ≥ 4.5:1).
 */

const HEX6 = /^[0-9a-f]{6}$/;

/** The class of a chip of colour `#rrggbb`. */
export const tagClass = (color: string): string => `tag tagc-${color.slice(1).toLowerCase()}`;

/** The stylesheet address for chips of `colors` (`#rrggbb`; deduplicated, sorted: one URL per set). */
export function tagColorsHref(colors: Iterable<string>): string {
  const set = [...new Set([...colors].map((c) => c.slice(1).toLowerCase()).filter((c) => HEX6.test(c)))].sort();
  return `/_console/tag-colors.css?c=${set.join('.')}`;
}

/**
 * The rules of `/_console/tag-colors.css?c=…`: for each `rrggbb` of `query` (dot-separated, at most
 * 200; anything else ignored), the chip's background and its readable text colour.
 */
export function tagColorsCss(query: string): string {
  return query
    .split('.')
    .slice(0, 200)
    .map((c) => c.toLowerCase())
    .filter((c) => HEX6.test(c))
    .map((c) => `.tagc-${c}{background:#${c};color:${readableTextColor(`#${c}`)}}`)
    .join('\n');
}

/** The chips' layout (in console.css); colours come from the tag-colors stylesheet. */
export const TAGS_CSS =
  '.tags{display:inline-flex;flex-wrap:wrap;gap:.25rem;list-style:none;margin:0;padding:0;vertical-align:middle}' +
  '.tag{display:inline-block;border-radius:999px;padding:.05rem .55rem;font-size:.78em;font-weight:600;line-height:1.5;background:var(--chip);color:var(--fg);white-space:nowrap}' +
  '.tag a{color:inherit;text-decoration:none}.tag a:hover,.tag a:focus-visible{text-decoration:underline}' +
  '.group-name{font-size:.8em;color:var(--muted)}';

/** A stylesheet link for chips of `colors` (put once on a page that lists many rows, then `TagChips link={false}`). */
export function TagStyles(props: { colors: Iterable<string> }) {
  return <link rel="stylesheet" href={tagColorsHref(props.colors)} />;
}

/**
 * A monitor's tags as coloured chips (`name` or `name: value`), in their order; nothing when it has
 * none. `link` (default true) adds the stylesheet link for their colours; `filter` makes each chip a
 * link to the overview filtered by its tag (`/?tag=<name>`).
 */
export function TagChips(props: { tags: readonly MonitorTag[]; link?: boolean; filter?: boolean }) {
  if (props.tags.length === 0) return null;
  return (
    <>
      {props.link === false ? null : <TagStyles colors={props.tags.map((t) => t.color)} />}
      <ul class="tags" aria-label="Tags">
        {props.tags.map((t) => (
          <li class={tagClass(t.color)} data-tag={formatTagRef(t)}>
            {props.filter ? (
              <a href={`/?tag=${encodeURIComponent(t.name)}`} title={`Monitors tagged ${t.name}`}>
                {t.value === '' ? t.name : `${t.name}: ${t.value}`}
              </a>
            ) : t.value === '' ? (
              t.name
            ) : (
              `${t.name}: ${t.value}`
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
