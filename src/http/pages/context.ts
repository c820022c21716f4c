import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import type { Statuspage } from '../../domain/statuspage.ts';
import type { Chrome } from '../../../views/layout.tsx';
import { UI_STRINGS, type PageLanguage } from '../../../views/i18n/index.ts';
import { fontFaceCss, fontStack } from './fonts.ts';
import { readableOn, textOn } from '../../lib/contrast.ts';

/** Hono environment of a public status page's routes: the page and the visitor's chrome. */
export interface PageEnv {
  Variables: { page: Statuspage; chrome: Chrome };
}

/** A page route's context. */
export type PageContext = Context<PageEnv>;

/**
 * The chrome of a request: language from `?lang=` when the page offers it, else the one the
 * browser prefers among the page's (`Accept-Language`, {@link negotiateLanguage}), else the page's
 * first; `auto` is the language this visitor gets without `?lang=` (links in it need none); a fresh
 * CSP nonce (128 bits).
 * @param base `/status/<subdomain>` or '' on the page's own host
 * @param acceptLanguage the request's Accept-Language header, if any
 */
export function chromeFor(page: Statuspage, base: string, lang: string | undefined, now: number, acceptLanguage?: string): Chrome {
  const langs = page.settings.languages as PageLanguage[];
  const auto = negotiateLanguage(acceptLanguage, langs) ?? langs[0] ?? 'en';
  const l = lang && (langs as string[]).includes(lang) ? (lang as PageLanguage) : auto;
  return { page, lang: l, auto, t: UI_STRINGS[l], base, nonce: randomBytes(16).toString('base64'), now, pageCss: pageCss(page) };
}

/**
 * The first of `offered` an Accept-Language header asks for (RFC 9110 §12.5.4): ranges by
 * descending `q` (ties in header order; `q=0` and `*` ignored), each matched by its primary subtag
 * (`es-ES` → `es`, `zh-CN` and `zh-Hans` → `zh`, Simplified being Pharos's only Chinese;
 * `pt-PT` → `pt`); undefined when none matches or there is no header. At most 20 ranges are read.
 */
export function negotiateLanguage<L extends string>(header: string | undefined, offered: readonly L[]): L | undefined {
  if (!header || offered.length < 2) return undefined;
  const ranges = header
    .split(',', 20)
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((x) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(x)?.[1]).find((x) => x !== undefined);
      return { primary: tag.trim().toLowerCase().split('-')[0] ?? '', q: q === undefined ? 1 : Number(q), i };
    })
    .filter((r) => r.q > 0 && r.primary !== '*' && r.primary !== '')
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranges) {
    const hit = offered.find((l) => l === r.primary);
    if (hit) return hit;
  }
  return undefined;
}

const cssMemo = new Map<string, string>();

/** Per-page CSS: the chosen font's faces (served by Pharos) and the accent colour. Values are validated (hex, enum). Memoized (few fonts × colours in use). */
function pageCss(page: Statuspage): string {
  const s = page.settings;
  const key = `${s.font}|${s.accent_color}`;
  let css = cssMemo.get(key);
  if (css === undefined) {
    // Links and button labels stay readable whatever accent is chosen (WCAG AA, issue 33 point 11):
    // links in the accent mixed toward black (light) or white (dark) as far as needed.
    const dark = readableOn(s.accent_color, ['#0f1217', '#171b22']);
    css = `${fontFaceCss(s.font, '/_pharos/fonts/')}:root{--accent:${s.accent_color};--link:${readableOn(s.accent_color, ['#ffffff', '#f6f7f9'])};--on-accent:${textOn(s.accent_color)};--font:${fontStack(s.font)}}[data-theme=dark]{--link:${dark}}@media (prefers-color-scheme:dark){[data-theme=system]{--link:${dark}}}`;
    if (cssMemo.size >= 256) cssMemo.clear();
    cssMemo.set(key, css);
  }
  return css;
}

/**
 * The Content-Security-Policy of public pages: nothing but same-origin styles, fonts and forms,
 * nonce'd style/script elements, images from anywhere (logo, favicon), no framing. Google
 * Analytics, only when the page sets it, adds its script and beacon hosts.
 */
export function contentSecurityPolicy(nonce: string, analytics: boolean): string {
  const ga = analytics ? ' https://www.googletagmanager.com' : '';
  return [
    "default-src 'none'",
    `style-src 'self' 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'${ga}`,
    "img-src 'self' data: https: http:",
    "font-src 'self'",
    `connect-src 'self'${analytics ? ' https://*.google-analytics.com https://*.analytics.google.com https://*.googletagmanager.com' : ''}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** `<!doctype html>` + a rendered JSX element. */
export function htmlDocument(el: unknown): string {
  return `<!doctype html>${String(el)}`;
}
