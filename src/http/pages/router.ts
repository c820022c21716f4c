import { Hono, type MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { AppError } from '../../lib/errors.ts';
import type { Statuspage } from '../../domain/statuspage.ts';
import type { HttpDeps } from '../context.ts';
import { hostedDomain } from '../host.ts';
import { StatusPage } from '../../../views/status-page.tsx';
import { HistoryPage } from '../../../views/history.tsx';
import { MessagePage, PasswordPage } from '../../../views/forms.tsx';
import { UI_STRINGS } from '../../../views/i18n/index.ts';
import { pathOf, type Chrome } from '../../../views/layout.tsx';
import { chromeFor, contentSecurityPolicy, htmlDocument, type PageContext, type PageEnv } from './context.ts';
import { feedRoutes } from './feeds.ts';
import { subscribeRoutes } from './subscribe.ts';
import { cachedPage, pageCacheFor, viewChangesAt } from './cached.ts';
import { clientAddress } from './client.ts';
import { PAGE_COOKIE, SAFE_NEXT, isSignInRoute, setSessionCookie, signInDoors, signInRoutes } from './sign-in.ts';

/** Paths answered with HTML (the wall shows its form there); others get a bare 401. */
const htmlPath = (p: string) => !/\.(atom|json|svg)$/.test(p);

/**
 * The public routes of one status page (issue "Status pages", docs/api.md "Status pages"):
 * `/`, `/history`, `/feed.atom`, `/summary.json`, `/badge.svg`, `/login` and `/subscribe…`.
 * `mode: 'path'` serves them under `/status/:subdomain`; `mode: 'host'` at the root of the page's
 * own host (`<subdomain>.<hosted_domain>` or its custom `hostname`).
 *
 * Every route sits behind the page's gate: password and SSO pages need the signed session cookie
 * (the wall offers the password form and the page's working SSO doors), SSO pages with no working
 * door are closed (403), and nothing of the page (not even its name) is sent before. Every response
 * carries a strict CSP with a per-response nonce.
 */
export function statusPagesRouter(deps: HttpDeps, mode: 'path' | 'host') {
  const { core } = deps;
  const domain = hostedDomain(core.config);
  const app = new Hono<PageEnv>();

  const resolve: MiddlewareHandler<PageEnv> = async (c, next) => {
    const page = await (mode === 'path' ? core.statuspages.bySubdomain(c.req.param('subdomain') ?? '') : core.statuspages.byHost(c.req.header('host'), domain));
    if (!page) return c.html(notFoundHtml(), 404, { 'Content-Security-Policy': "default-src 'none'; style-src 'self'" });
    const base = mode === 'path' ? `/status/${page.subdomain}` : '';
    const chrome = chromeFor(page, base, c.req.query('lang'), deps.clock.now(), c.req.header('accept-language'));
    c.set('page', page);
    c.set('chrome', chrome);
    pageHeaders(c);
    const gate = await core.pageAccess.gate(page);
    const path = pagePath(c, base);
    if (gate === 'closed') return deny(c, 403, chrome.t.sso_required);
    const opening = (c.req.method === 'POST' && path === '/login' && core.pageAccess.acceptsPassword(page)) || (gate === 'sso' && isSignInRoute(c.req.method, path));
    if (gate !== 'open' && !opening && !core.pageAccess.validSession(page, getCookie(c, PAGE_COOKIE))) {
      if (!htmlPath(path) || c.req.method !== 'GET') return deny(c, 401, chrome.t.password_title);
      const url = new URL(c.req.url);
      const next = path + url.search;
      c.status(401);
      return send(c, PasswordPage({ c: anonymous(chrome), next, password: core.pageAccess.acceptsPassword(page), doors: gate === 'sso' ? await signInDoors(c, deps, next) : [] }));
    }
    await next();
  };
  app.use('*', resolve);

  const cache = pageCacheFor(core, deps.clock);
  app.get('/', (c) => {
    const range = c.req.query('range') === '7d' ? '7d' : '24h';
    return cachedPage(c, cache, `page|${range}`, async () => {
      const view = await core.statusView.page(c.var.page, range);
      const html = htmlDocument(StatusPage({ c: c.var.chrome, view, range, canSubscribe: core.subscriptions.channels(c.var.page).length > 0 }));
      return { body: html, contentType: 'text/html; charset=UTF-8', changesAt: viewChangesAt(view) };
    });
  });
  app.get('/history', (c) =>
    cachedPage(c, cache, 'history', async () => ({ body: htmlDocument(HistoryPage({ c: c.var.chrome, view: await core.statusView.history(c.var.page) })), contentType: 'text/html; charset=UTF-8' })),
  );

  app.post('/login', async (c) => {
    const { page, chrome } = c.var;
    const form = await c.req.parseBody();
    const next = typeof form.next === 'string' && SAFE_NEXT.test(form.next) ? form.next : '/';
    if (!core.pageAccess.acceptsPassword(page)) return c.redirect(pathOf(chrome, next), 303);
    const doors = (await core.pageAccess.gate(page)) === 'sso' ? await signInDoors(c, deps, next) : [];
    const wall = (error: 'wrong' | 'too_many') => PasswordPage({ c: anonymous(chrome), next, error, password: true, doors });
    try {
      if (await core.pageAccess.checkPassword(page, typeof form.password === 'string' ? form.password : '', clientAddress(c, core.config.status_pages.trust_proxy))) {
        setSessionCookie(c, deps, page);
        return c.redirect(next === '/' ? pathOf(chrome, '/') : chrome.base + next, 303);
      }
      c.status(401);
      return send(c, wall('wrong'));
    } catch (e) {
      if (!(e instanceof AppError) || e.status !== 429) throw e;
      c.status(429);
      return send(c, wall('too_many'));
    }
  });

  signInRoutes(app, deps, mode);
  feedRoutes(app, deps);
  subscribeRoutes(app, deps);
  return app;
}

/** The request path relative to the page (`/`, `/history`, …). */
function pagePath(c: PageContext, base: string): string {
  const p = c.req.path.slice(base.length) || '/';
  return p.length > 1 ? p.replace(/\/+$/, '') : p;
}

/** Headers every response of a page gets (set once, before any route runs): CSP, robots when hidden, no caching of protected pages. */
function pageHeaders(c: PageContext): void {
  const { page, chrome } = c.var;
  c.header('Content-Security-Policy', contentSecurityPolicy(chrome.nonce, page.settings.google_analytics !== null));
  if (page.settings.hide_from_search_engines) c.header('X-Robots-Tag', 'noindex, nofollow');
  const a = page.settings.authentication;
  c.header('Cache-Control', a.password_protection || a.google_sso || a.saml_sso ? 'private, no-store' : 'no-cache');
  c.header('Referrer-Policy', 'same-origin');
}

/** Renders a view as an HTML document with the status set on `c`. */
export function send(c: PageContext, el: unknown): Response {
  return c.html(htmlDocument(el));
}

/** A refusal at the gate: HTML routes get a page that names nothing of the status page, others plain text. */
function deny(c: PageContext, status: 401 | 403, message: string): Response {
  const path = c.req.path;
  if (!htmlPath(path)) return c.text(message, status);
  c.status(status);
  return c.html(htmlDocument(MessagePage({ c: anonymous(c.var.chrome), title: message, message, error: status === 403 })));
}

/** The chrome of a gated page: nothing of it (name, logo, description, website, analytics, custom CSS, footer text) is shown before the gate opens. */
export function anonymous(chrome: Chrome): Chrome {
  const page: Statuspage = { ...chrome.page, name: chrome.t.password_title, settings: { ...chrome.page.settings, logo: null, description: null, description_i18n: null, website: null, favicon: null, google_analytics: null, custom_css: null, footer_text: null, footer_text_i18n: null } };
  return { ...chrome, page };
}

function notFoundHtml(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found</title><link rel="stylesheet" href="/_pharos/status.css"></head><body><div class="wrap"><p class="empty">${UI_STRINGS.en.not_found}</p></div></body></html>`;
}
