import type { Child } from 'hono/jsx';
import type { Statuspage } from '../src/domain/statuspage.ts';
import { localize } from '../src/domain/localized.ts';
import { LANGUAGE_NAMES, type PageLanguage, type UiStrings } from './i18n/index.ts';

/** What every page template gets: the page, the visitor's language and strings, and link building. */
export interface Chrome {
  page: Statuspage;
  lang: PageLanguage;
  /** The language this visitor gets without `?lang=` (the browser's Accept-Language among the page's, else its first); links in it carry no `?lang`. Absent: the page's first. */
  auto?: PageLanguage;
  t: UiStrings;
  /** Path prefix of the page's routes: `/status/<subdomain>`, or '' when served on its own host. */
  base: string;
  /** This response's CSP nonce (style and script elements). */
  nonce: string;
  /** Epoch ms the page shows. */
  now: number;
  /** The page's own CSS (font faces, accent colour), built by http from validated settings. */
  pageCss: string;
}

/** The address of one of the page's routes (`/` is the page itself, without a trailing slash). */
export function pathOf(c: Pick<Chrome, 'base'>, path: string): string {
  return path === '/' ? c.base || '/' : c.base + path;
}

/** A link to one of the page's routes in language `lang` (default: the visitor's); the language the visitor gets anyway (`c.auto`, else the page's first) needs no `?lang`. */
export function href(c: Chrome, path: string, query: Record<string, string> = {}, lang: string = c.lang): string {
  const q = new URLSearchParams(query);
  if (lang !== (c.auto ?? c.page.settings.languages[0])) q.set('lang', lang);
  const s = q.toString();
  return `${pathOf(c, path)}${s ? `?${s}` : ''}`;
}

/** A titled card of the page (incidents, maintenance, history): a labelled section with its heading. */
export function Card(props: { title: string; children?: Child }) {
  return (
    <section class="card" aria-label={props.title}>
      <h2>{props.title}</h2>
      {props.children}
    </section>
  );
}

/**
 * The HTML document around every public page: head (robots, refresh, favicon, styles, Google
 * Analytics only when set), the header with logo or name, website link and language switcher,
 * and the footer (the page's footer text, "Powered by Pharos" unless hidden). The page's custom CSS
 * (validated: no `</style`) follows its own styles in a nonce'd `<style>`.
 */
export function Layout(props: { c: Chrome; title: string; children?: Child; refresh?: boolean; links?: Child; path?: string; query?: Record<string, string> }) {
  const { c } = props;
  const { page, t } = c;
  const s = page.settings;
  const ga = s.google_analytics;
  const logoHeight = Number.parseInt(s.logo_height, 10);
  return (
    <html lang={c.lang} data-theme={s.theme}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
        {s.hide_from_search_engines ? <meta name="robots" content="noindex, nofollow" /> : null}
        {props.refresh && s.auto_refresh ? <meta http-equiv="refresh" content="60" /> : null}
        <link rel="icon" href={s.favicon ?? '/_pharos/favicon.svg'} />
        <link rel="stylesheet" href="/_pharos/status.css" />
        <style nonce={c.nonce} dangerouslySetInnerHTML={{ __html: c.pageCss }} />
        {s.custom_css ? <style nonce={c.nonce} data-custom-css="" dangerouslySetInnerHTML={{ __html: s.custom_css }} /> : null}
        <link rel="alternate" type="application/atom+xml" href={pathOf(c, '/feed.atom')} title={page.name} />
        {ga ? <script async src={`https://www.googletagmanager.com/gtag/js?id=${ga}`} nonce={c.nonce} /> : null}
        {ga ? (
          <script nonce={c.nonce} dangerouslySetInnerHTML={{ __html: `window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());gtag('config','${ga}');` }} />
        ) : null}
      </head>
      <body>
        <a class="skip" href="#main">
          {t.skip_to_content}
        </a>
        <div class="wrap">
          <header class="top">
            <a class="brand" href={href(c, '/')}>
              {s.logo ? <img src={s.logo} alt={page.name} height={logoHeight} /> : <h1>{page.name}</h1>}
            </a>
            <nav class="top-links">
              {props.links}
              {s.website ? (
                <a href={s.website} rel="noopener noreferrer">
                  {t.visit_website}
                </a>
              ) : null}
            </nav>
          </header>
          <main id="main">
            {s.description ? <p class="desc">{localize(s.description_i18n, c.lang) || s.description}</p> : null}
            {props.children}
          </main>
          <footer>
            {s.languages.length > 1 ? (
              <nav class="langs" aria-label={t.language}>
                {(s.languages as PageLanguage[]).map((l) => (
                  <a href={href(c, props.path ?? '/', props.query ?? {}, l)} hreflang={l} aria-current={l === c.lang ? 'true' : undefined}>
                    {LANGUAGE_NAMES[l]}
                  </a>
                ))}
              </nav>
            ) : (
              <span />
            )}
            {s.footer_text ? <span class="footer-text">{localize(s.footer_text_i18n, c.lang) || s.footer_text}</span> : null}
            {s.hide_powered_by ? null : <span class="powered">{t.powered_by}</span>}
          </footer>
        </div>
      </body>
    </html>
  );
}
