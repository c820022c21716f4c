import { timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import { AppError } from '../../lib/errors.ts';
import type { SignInTransaction, VerifiedIdentity } from '../../core/identity.ts';
import type { HttpDeps } from '../context.ts';
import { clientAddress, isHttps } from '../pages/client.ts';
import type { OidcAdapter } from './oidc.ts';
import type { samlAdapter } from './saml.ts';
import { spUrls } from './sp-urls.ts';

/** Cookie binding an OIDC sign-in to the browser that started it (path /sso, 10 minutes). */
const BINDING_COOKIE = 'pharos_sso';

/**
 * What the console (issue 16) plugs in to sign people in through the same doors: called after an
 * identity provider's answer was validated for a sign-in begun with purpose `{kind: 'console'}`
 * (`core.identity.begin(...)`, then a redirect to `/sso/begin/<id>`). It decides who gets in
 * (invited email, first-sign-in viewer) and answers the browser (session cookie + redirect).
 */
export type ConsoleSignIn = (c: Context, who: VerifiedIdentity, next: string) => Response | Promise<Response>;

/**
 * The identity providers' side of single sign-on, on the public URL's origin (docs/api.md "Single
 * sign-on"): `GET /sso/begin/<id>` sends the browser to the provider of a pending sign-in;
 * `GET /sso/oidc/callback` (the redirect URI to register) and `POST /sso/saml/<uuid>/acs` take the
 * answers; `GET /sso/saml/<uuid>/metadata` is the SP metadata. A status-page sign-in that passes
 * ends with a redirect to the page's `/sso/complete` with a one-use 60 s ticket (the page may live on
 * another host, where only it can set its cookie). Every route counts against the per-address
 * sign-in limit. Failures answer a plain page naming the reason, never the page's content.
 */
export function ssoRouter(deps: HttpDeps, hooks: { console?: ConsoleSignIn } = {}) {
  const { core, logger, clock } = deps;
  const publicUrl = core.config.public_url.replace(/\/+$/, '');
  // The protocol libraries (openid-client, @node-saml/node-saml) load at the first sign-in through
  // them, not at start (issue 38; test/api/lazy-modules.test.ts).
  let oidcAdapter: Promise<OidcAdapter> | undefined;
  let samlAdapterP: Promise<ReturnType<typeof samlAdapter>> | undefined;
  const oidc = () => (oidcAdapter ??= import('./oidc.ts').then((m) => m.oidcAdapter({ clock, logger, redirectUri: `${publicUrl}/sso/oidc/callback` })));
  const saml = () => (samlAdapterP ??= import('./saml.ts').then((m) => m.samlAdapter({ publicUrl })));
  const app = new Hono();

  app.use('*', async (c, next) => {
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    try {
      await core.identity.throttle(clientAddress(c, core.config.status_pages.trust_proxy));
    } catch (e) {
      if (e instanceof AppError && e.status === 429) return message(c, 429, 'Too many sign-in attempts', e.message);
      throw e;
    }
    await next();
  });

  app.get('/begin/:id', async (c) => {
    const t = core.identity.peek(c.req.param('id'));
    if (!t || t.protocol.started) return message(c, 400, 'Sign-in expired', 'This sign-in link is no longer valid. Go back to the page and sign in again.');
    t.protocol.started = '1';
    try {
      if (t.method.type === 'oidc') {
        const provider = core.identity.provider(t.method.provider);
        if (!provider) return message(c, 404, 'Sign-in unavailable', 'This identity provider is not configured.');
        const { url, checks } = await (await oidc()).authorizationUrl(provider, t.id);
        Object.assign(t.protocol, checks);
        setCookie(c, BINDING_COOKIE, t.binding, { path: '/sso/', httpOnly: true, sameSite: 'Lax', secure: isHttps(c), maxAge: 600 });
        return c.redirect(url.href, 303);
      }
      const conn = await core.identity.connections.find(t.method.connection);
      if (!conn) return message(c, 404, 'Sign-in unavailable', 'This SSO connection no longer exists.');
      return c.redirect(await (await saml()).authorizeUrl(conn, t), 303);
    } catch (e) {
      logger.warn(`sign-in: could not reach the identity provider`, { error: (e as Error).message });
      return message(c, 502, 'Sign-in unavailable', 'The identity provider could not be reached. Try again later.');
    }
  });

  app.get('/oidc/callback', async (c) => {
    const t = core.identity.take(c.req.query('state') ?? '');
    if (!t || t.method.type !== 'oidc' || !t.protocol.verifier) return message(c, 400, 'Sign-in expired', 'This sign-in is unknown or was already used. Go back to the page and sign in again.');
    const bound = getCookie(c, BINDING_COOKIE) ?? '';
    deleteCookie(c, BINDING_COOKIE, { path: '/sso/' });
    if (bound.length !== t.binding.length || !timingSafeEqual(Buffer.from(bound), Buffer.from(t.binding))) {
      return message(c, 400, 'Sign-in refused', 'This sign-in was started in another browser.');
    }
    const provider = core.identity.provider(t.method.provider);
    if (!provider) return message(c, 404, 'Sign-in unavailable', 'This identity provider is not configured.');
    const refusal = c.req.query('error');
    if (refusal) {
      logger.info(`sign-in through ${provider.name} ended at the provider: ${refusal}`);
      return message(c, 403, 'Sign-in cancelled', `The identity provider did not sign you in (${refusal.slice(0, 64)}).`);
    }
    // The redirect URI sent with the code must be the registered one, whatever Host the request came in on.
    const current = new URL(`${publicUrl}/sso/oidc/callback${new URL(c.req.url).search}`);
    let who: VerifiedIdentity;
    try {
      const id = await (await oidc()).callback(provider, current, { state: t.protocol.state!, nonce: t.protocol.nonce!, verifier: t.protocol.verifier });
      who = { method: t.method, ...id };
    } catch (e) {
      logger.info(`sign-in through ${provider.name} refused: ${(e as Error).message}`);
      return message(c, 403, 'Sign-in refused', 'The identity provider’s answer could not be verified.');
    }
    return finish(c, t, who);
  });

  app.get('/saml/:uuid/metadata', async (c) => {
    const conn = await core.identity.connections.find(c.req.param('uuid'));
    if (!conn) return message(c, 404, 'Not found', 'There is no such SSO connection.');
    return c.body((await saml()).metadata(conn), 200, { 'Content-Type': 'application/samlmetadata+xml; charset=utf-8' });
  });

  app.post('/saml/:uuid/acs', async (c) => {
    const form = await c.req.parseBody();
    const relay = typeof form.RelayState === 'string' ? form.RelayState : '';
    const response = typeof form.SAMLResponse === 'string' ? form.SAMLResponse : '';
    const uuid = c.req.param('uuid');
    const t = core.identity.take(relay);
    const conn = await core.identity.connections.find(uuid);
    if (!t || t.method.type !== 'saml' || t.method.connection !== uuid || !conn) {
      return message(c, 400, 'Sign-in expired', 'This sign-in is unknown or was already used. Go back to the page and sign in again.');
    }
    let who: VerifiedIdentity;
    try {
      const id = await (await saml()).validate(conn, t, response);
      if (!core.identity.firstUse(`${conn.uuid}:${id.assertionId}`, id.validUntil)) throw new Error(`assertion ${id.assertionId} was already used (replay)`);
      who = { method: t.method, subject: id.subject, email: id.email, emailVerified: true };
    } catch (e) {
      logger.info(`sign-in through SSO connection ${conn.name} refused: ${(e as Error).message}`);
      return message(c, 403, 'Sign-in refused', 'The identity provider’s answer could not be verified.');
    }
    return finish(c, t, who);
  });

  async function finish(c: Context, t: SignInTransaction, who: VerifiedIdentity): Promise<Response> {
    const purpose = t.purpose;
    if (purpose.kind === 'console') {
      if (!hooks.console) return message(c, 404, 'Not found', 'The console does not sign in through SSO here.');
      return hooks.console(c, who, purpose.next);
    }
    const page = (await core.statuspages.exists(purpose.pageUuid)) ? await core.statuspages.get(purpose.pageUuid) : undefined;
    if (!page) return message(c, 404, 'Not found', 'There is no status page here.');
    if (!(await core.identity.admits(page, who))) {
      logger.info(`status page ${page.subdomain}: sign-in of ${who.email ?? who.subject} refused (${who.email && who.emailVerified ? 'not an allowed account' : 'no verified email'})`);
      const reason = who.email && !who.emailVerified ? `The email ${who.email} is not verified at the identity provider.` : `${who.email ?? 'This account'} may not see this status page.`;
      return message(c, 403, 'Access refused', reason);
    }
    logger.info(`status page ${page.subdomain}: ${who.email ?? who.subject} signed in through ${who.method.type === 'oidc' ? who.method.provider : 'SAML'}`);
    const q = new URLSearchParams({ ticket: core.pageAccess.issueTicket(page), next: purpose.next });
    return c.redirect(`${purpose.returnBase}/sso/complete?${q}`, 303);
  }

  return app;
}

/** The SP URLs of a connection (for the API's connection view). */
export { spUrls };

/** A self-contained message page (no status page chrome: nothing of a page is shown here). */
function message(c: Context, status: 400 | 403 | 404 | 429 | 502, title: string, text: string): Response {
  const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  c.header('Content-Security-Policy', "default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'");
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><link rel="stylesheet" href="/_pharos/status.css"></head><body><div class="wrap"><section class="card center"><h2>${esc(title)}</h2><p class="msg${status === 404 ? '' : ' err'}" role="alert">${esc(text)}</p></section></div></body></html>`,
    status,
  );
}
