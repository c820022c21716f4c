import type { Shell } from './model.ts';

/**
 * Console themes (issue 33 point 11): `auto` follows the browser (`prefers-color-scheme`); `light`
 * and `dark` are a person's choice, kept in the `pharos_theme` cookie and written by the server as
 * `<html data-theme>` so the first paint already has it (no flash, no script).
 */
export type Theme = 'auto' | 'light' | 'dark';

/** The cookie that remembers the chosen theme (a year; absent = `auto`). */
export const THEME_COOKIE = 'pharos_theme';

/** The theme a cookie value names (anything else: `auto`). */
export const themeOf = (v: string | undefined): Theme => (v === 'light' || v === 'dark' ? v : 'auto');

/** auto → dark → light → auto: what the toggle switches to next. */
export const nextTheme = (t: Theme): Theme => (t === 'auto' ? 'dark' : t === 'dark' ? 'light' : 'auto');

const DARK_VARS = '--bg:#0f1217;--card:#181c23;--fg:#e6e9ee;--muted:#9aa4b1;--line:#2a313b;--accent:#6ea0ff;--up:#3fbf7f;--down:#ff6b6b;--warn:#f0a848;--paused:#8b94a1;--chip:#232a33;--on-accent:#0f1217;color-scheme:dark';

/**
 * The theme rules: dark colours under `data-theme=dark`, and under `auto` when the browser prefers
 * dark; `data-theme=light` keeps the light ones (`--on-accent`: the label colour on accent, status
 * and danger fills, dark on the light fills of the dark theme for AA contrast). The skip link is
 * off screen until focused.
 */
export const THEME_CSS =
  `:root{--on-accent:#fff}:root[data-theme=light]{color-scheme:light}:root[data-theme=dark]{${DARK_VARS}}` +
  `@media (prefers-color-scheme:dark){:root:not([data-theme=light]){${DARK_VARS}}}` +
  '.skip{position:absolute;left:.5rem;top:-3rem;z-index:10;background:var(--card);color:var(--accent);padding:.4rem .8rem;border:2px solid var(--accent);border-radius:6px}.skip:focus{top:.5rem}' +
  'form.theme button{min-height:2rem;padding:.2rem .6rem;font-weight:400}';

/** The theme toggle of the console's bar: a plain form (works without JavaScript), not boosted so `<html data-theme>` is rendered anew. */
export function ThemeToggle(props: { s: Shell }) {
  const now = props.s.theme ?? 'auto';
  const next = nextTheme(now);
  return (
    <form class="theme" method="post" action="/theme" hx-boost="false">
      <input type="hidden" name="_csrf" value={props.s.csrf} />
      <input type="hidden" name="theme" value={next} />
      <button type="submit" class="secondary" title={`Theme: ${now}; switch to ${next}`} aria-label={`Theme: ${now}. Switch to ${next}`}>
        {now === 'dark' ? '☾ Dark' : now === 'light' ? '☀ Light' : '◐ Auto'}
      </button>
    </form>
  );
}
