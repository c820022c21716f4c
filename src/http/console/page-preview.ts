import type { Hono } from 'hono';
import { StatuspagePatchBody, type Statuspage } from '../../domain/statuspage.ts';
import { AppError } from '../../lib/errors.ts';
import type { HttpDeps } from '../context.ts';
import { StatusPage } from '../../../views/status-page.tsx';
import { chromeFor, contentSecurityPolicy, htmlDocument } from '../pages/context.ts';
import type { ConsoleContext, ConsoleEnv } from './context.ts';
import { formErrors, formOf, parseWith } from './forms.ts';
import { settingsBody } from './page-editor.ts';

/** The preview's CSP: the public page's own (its nonce), but framable by the console (same origin) instead of by nobody. */
export function previewCsp(nonce: string): string {
  return contentSecurityPolicy(nonce, false).replace("frame-ancestors 'none'", "frame-ancestors 'self'");
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * The status-page editor's preview (issue 33): `GET /statuspages/:uuid/preview` renders the stored
 * page, `POST` the page with the posted settings form merged in (the same body, schema and rules as
 * a save; nothing is stored, audited or announced). Editors and admins only (a viewer gets 403, a
 * signed-out visitor the sign-in redirect of every console route). The answer is the public page
 * (views/status-page.tsx) with the public page's CSP (framable only by the console) and
 * `X-Frame-Options: SAMEORIGIN`; the editor frames it with `sandbox` (no script, opaque origin), so
 * a draft's look stays inside the frame. Google Analytics is never loaded in a preview. A refused
 * draft answers 400 with the rule, in the frame.
 */
export function previewRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core } = deps;
  const render = async (c: ConsoleContext, page: Statuspage, status: 200 | 400 = 200) => {
    const shown: Statuspage = { ...page, settings: { ...page.settings, google_analytics: null } };
    const chrome = chromeFor(shown, `/status/${page.subdomain}`, c.req.query('lang'), deps.clock.now());
    const view = await core.statusView.page(shown, '24h');
    const html = htmlDocument(StatusPage({ c: chrome, view, range: '24h', canSubscribe: core.subscriptions.channels(shown).length > 0 }));
    return c.html(html, status, { 'Content-Security-Policy': previewCsp(chrome.nonce), 'X-Frame-Options': 'SAMEORIGIN', 'X-Robots-Tag': 'noindex, nofollow' });
  };
  const refused = (c: ConsoleContext, e: unknown) => {
    const errors = formErrors(e);
    const items = Object.entries(errors.fields).map(([k, v]) => `<li><b>${escapeHtml(k)}</b>: ${escapeHtml(v)}</li>`);
    const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Preview</title><link rel="stylesheet" href="/_pharos/status.css"></head><body><main class="wrap"><h1>Not previewed</h1><p class="empty" role="alert">${escapeHtml(errors.message)}</p><ul>${items.join('')}</ul></main></body></html>`;
    return c.html(body, e instanceof AppError && e.status === 404 ? 404 : 400, { 'Content-Security-Policy': previewCsp('none'), 'X-Frame-Options': 'SAMEORIGIN' });
  };
  const editorOnly = (c: ConsoleContext) => (c.var.session!.account.role === 'viewer' ? c.text('Your role (viewer) may not preview drafts.', 403) : null);

  app.get('/statuspages/:uuid/preview', async (c) => {
    const no = editorOnly(c);
    if (no) return no;
    try {
      return await render(c, await core.statuspages.get(c.req.param('uuid')));
    } catch (e) {
      if (e instanceof AppError && e.status === 404) return c.notFound();
      throw e;
    }
  });
  app.post('/statuspages/:uuid/preview', async (c) => {
    const no = editorOnly(c);
    if (no) return no;
    try {
      const body = parseWith(StatuspagePatchBody, settingsBody(await formOf(c)));
      return await render(c, await core.statuspages.draft(c.req.param('uuid'), body));
    } catch (e) {
      return refused(c, e);
    }
  });
}
