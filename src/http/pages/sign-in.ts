import type { Hono } from 'hono';
import { setCookie } from 'hono/cookie';
import { AppError } from '../../lib/errors.ts';
import type { SignInMethod } from '../../core/identity.ts';
import type { Statuspage } from '../../domain/statuspage.ts';
import type { HttpDeps } from '../context.ts';
import { pathOf } from '../../../views/layout.tsx';
import { fmt } from '../../../views/i18n/index.ts';
import { MessagePage } from '../../../views/forms.tsx';
import { clientAddress, isHttps } from './client.ts';
import type { PageContext, PageEnv } from './context.ts';
import { anonymous, send } from './router.ts';

/** The page-access cookie (password wall and SSO alike). */
export const PAGE_COOKIE = 'pharos_page';
/** `next` after the wall: a path (and query) inside the page, never another site. */
export const SAFE_NEXT = /^\/(?![/\\])[A-Za-z0-9/._~?&=%+-]*$/;
const GOOGLE_ISSUER = /^https:\/\/accounts\.google\.com\/?$/;

/** Routes of a page that answer before its gate opens: they are how it opens. */
export const isSignInRoute = (method: string, path: string): boolean => method === 'GET' && (path === '/sso/oidc' || path === '/sso/saml' || path === '/sso/complete');

/** Sets the signed page-access cookie of `page` (HttpOnly, SameSite=Lax, Path = the page, Secure over https, `session_days`). */
export function setSessionCookie(c: PageContext, deps: Pick<HttpDeps, 'core'>, page: Statuspage): void {
  const { core } = deps;
  setCookie(c, PAGE_COOKIE, core.pageAccess.issueSession(page), {
    path: c.var.chrome.base || '/',
    httpOnly: true,
    sameSite: 'Lax',
    secure: isHttps(c),
    maxAge: Math.floor(core.pageAccess.sessionMs() / 1000),
  });
}

/** The sign-in buttons the wall of a page shows (its working SSO doors), with the `next` path carried along. */
export async function signInDoors(c: PageContext, deps: Pick<HttpDeps, 'core'>, next: string): Promise<Array<{ href: string; label: string }>> {
  const { page, chrome } = c.var;
  const m = await deps.core.identity.pageMethods(page);
  const doors: Array<{ href: string; label: string }> = [];
  const q = `?next=${encodeURIComponent(next)}`;
  if (m.oidc) {
    const issuer = deps.core.identity.provider(m.oidc)?.issuer ?? '';
    const name = GOOGLE_ISSUER.test(issuer) ? 'Google' : new URL(issuer).hostname;
    doors.push({ href: pathOf(chrome, '/sso/oidc') + q, label: fmt(chrome.t.sign_in_with, { name }) });
  }
  if (m.saml) doors.push({ href: pathOf(chrome, '/sso/saml') + q, label: fmt(chrome.t.sign_in_with, { name: m.saml.name }) });
  return doors;
}

/**
 * The page side of single sign-on (docs/api.md "Single sign-on"): `GET /sso/oidc` and `GET /sso/saml`
 * record a pending sign-in for this page and send the browser to `<public_url>/sso/begin/<id>`;
 * `GET /sso/complete?ticket=…` turns the one-use ticket the identity provider's answer earned into
 * the page-access cookie. Starts count against the per-address sign-in limit.
 */
export function signInRoutes(app: Hono<PageEnv>, deps: HttpDeps, mode: 'path' | 'host'): void {
  const { core } = deps;
  const publicUrl = core.config.public_url.replace(/\/+$/, '');
  const nextOf = (c: PageContext) => {
    const n = c.req.query('next') ?? '/';
    return SAFE_NEXT.test(n) ? n : '/';
  };
  const refuse = (c: PageContext, status: 400 | 403 | 404 | 429, text: string) => {
    c.status(status);
    const { chrome } = c.var;
    return send(c, MessagePage({ c: anonymous(chrome), title: chrome.t.password_title, message: text, error: true }));
  };

  const start = async (c: PageContext, method: SignInMethod | null) => {
    const { page } = c.var;
    if (!method) return refuse(c, 404, c.var.chrome.t.not_found);
    try {
      await core.identity.throttle(clientAddress(c, core.config.status_pages.trust_proxy));
    } catch (e) {
      if (e instanceof AppError && e.status === 429) return refuse(c, 429, e.message);
      throw e;
    }
    // Where the visitor comes back to: the page as they reached it (its own host, or the path on the public URL).
    const returnBase = mode === 'path' ? `${publicUrl}/status/${page.subdomain}` : `${isHttps(c) ? 'https' : 'http'}://${c.req.header('host')}`;
    const t = core.identity.begin({ kind: 'page', pageUuid: page.uuid, returnBase, next: nextOf(c) }, method);
    return c.redirect(`${publicUrl}/sso/begin/${t.id}`, 303);
  };

  app.get('/sso/oidc', async (c) => {
    const m = await core.identity.pageMethods(c.var.page);
    return start(c, m.oidc ? { type: 'oidc', provider: m.oidc } : null);
  });
  app.get('/sso/saml', async (c) => {
    const m = await core.identity.pageMethods(c.var.page);
    return start(c, m.saml ? { type: 'saml', connection: m.saml.uuid } : null);
  });
  app.get('/sso/complete', (c) => {
    const { page, chrome } = c.var;
    if (!core.pageAccess.redeemTicket(page, c.req.query('ticket') ?? '')) return refuse(c, 403, chrome.t.sign_in_expired);
    setSessionCookie(c, deps, page);
    const next = nextOf(c);
    return c.redirect(next === '/' ? pathOf(chrome, '/') : chrome.base + next, 303);
  });
}
