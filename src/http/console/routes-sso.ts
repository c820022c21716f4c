import type { Context, Hono } from 'hono';
import { AppError } from '../../lib/errors.ts';
import type { HttpDeps } from '../context.ts';
import type { ConsoleSignIn } from '../sso/router.ts';
import { MessagePage } from '../../../views/console/auth.tsx';
import { clientAddress, consoleCsp, newNonce, page, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { SAFE_NEXT } from './routes-auth.ts';
import { setSessionCookie } from './security.ts';

const REFUSALS = {
  wrong_door: () => 'This sign-in did not come through the console’s identity provider.',
  no_email: () => 'The identity provider did not say which email you have.',
  unverified: (email: string) => `The email ${email} is not verified at the identity provider.`,
  domain: (email: string) => `${email} may not sign in to this console.`,
  disabled: (email: string) => `The account ${email} is disabled. Ask an admin.`,
} as const;

/**
 * `GET /login/sso?next=` (console single sign-on, issue 19): records a console sign-in through the
 * `console.sso` door and sends the browser to `<public_url>/sso/begin/<id>` (the SSO router takes it
 * from there). Counts against the same per-address limit as status-page sign-ins (429).
 */
export function ssoRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core } = deps;
  const publicUrl = core.config.public_url.replace(/\/+$/, '');
  app.get('/login/sso', async (c) => {
    if (c.var.session) return c.redirect('/', 303);
    const method = await core.consoleSso.method();
    if (!method) return page(c, MessagePage({ nonce: c.var.nonce, title: 'Not found', message: 'This console has no single sign-on; sign in with your password.' }), 404);
    try {
      await core.identity.throttle(clientAddress(c, core.config.console.trust_proxy));
    } catch (e) {
      if (!(e instanceof AppError) || e.status !== 429) throw e;
      return page(c, MessagePage({ nonce: c.var.nonce, title: 'Too many sign-in attempts', message: e.message }), 429);
    }
    const next = c.req.query('next');
    const t = core.identity.begin({ kind: 'console', next: next && SAFE_NEXT.test(next) ? next : '/' }, method);
    return c.redirect(`${publicUrl}/sso/begin/${t.id}`, 303);
  });
}

/**
 * The console hook of the SSO router (`ssoRouter(deps, {console})`): after the identity provider's
 * answer was validated, signs the person in (core `consoleSso.signIn`: allowed verified email, not
 * disabled, first sign-in → viewer or the invited role) and sets the same session cookie as a right
 * password; with TOTP on it goes on to the code page. A refusal is a 403 page naming the reason.
 */
export function consoleSsoSignIn(deps: HttpDeps): ConsoleSignIn {
  const { core, logger } = deps;
  return async (c: Context, who, next) => {
    const client = { userAgent: c.req.header('user-agent') ?? '', address: clientAddress(c as ConsoleContext, core.config.console.trust_proxy) };
    const r = await core.consoleSso.signIn(who, client);
    const via = who.method.type === 'oidc' ? who.method.provider : `SSO connection ${who.method.connection}`;
    if (!r.ok) {
      logger.info(`console: sign-in of ${r.email ?? who.subject} through ${via} refused (${r.reason})`);
      const nonce = newNonce();
      c.header('Content-Security-Policy', consoleCsp(nonce));
      return c.html(`<!doctype html>${String(MessagePage({ nonce, title: 'Access refused', message: REFUSALS[r.reason](r.email ?? '') }))}`, 403);
    }
    logger.info(`console: ${r.account.email} signed in through ${via}`);
    setSessionCookie(c, r.id, core.config.public_url, core.config.console.session_max_days);
    return c.redirect(r.pending ? `/login/totp?next=${encodeURIComponent(next)}` : next, 303);
  };
}
