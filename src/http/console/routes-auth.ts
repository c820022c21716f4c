import type { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { AppError } from '../../lib/errors.ts';
import type { HttpDeps } from '../context.ts';
import { LoginPage, MessagePage, SetupNeededPage, SetupPage, TotpPage } from '../../../views/console/auth.tsx';
import { clientAddress, page, SESSION_COOKIE, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { formErrors, formOf, text } from './forms.ts';
import { clearSessionCookie, setSessionCookie } from './security.ts';

/** `next` after sign-in: a path inside the console, never another site. */
export const SAFE_NEXT = /^\/(?![/\\])[A-Za-z0-9/._~?&=%+-]*$/;

/**
 * Before anyone can sign in (no console user yet): the page saying how to finish setup (issue 33
 * point 10), with `status`; else null. Shown at `/` and `/login`, and as the answer to a sign-in.
 */
export async function setupNeeded(c: ConsoleContext, core: HttpDeps['core'], status: 200 | 401 = 200): Promise<Response | null> {
  if ((await core.accounts.list()).length > 0) return null;
  const next = c.req.query('next');
  return page(c, SetupNeededPage({ nonce: c.var.nonce, here: new URL(c.req.url).origin, sso: await core.consoleSso.label(), next: next && SAFE_NEXT.test(next) ? next : '/' }), status);
}

/** Sign in, sign out and the first-start setup link. */
export function authRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core } = deps;
  const publicUrl = core.config.public_url;
  const client = (c: ConsoleContext) => ({ userAgent: c.req.header('user-agent') ?? '', address: clientAddress(c, core.config.console.trust_proxy) });

  app.get('/login', async (c) => {
    if (c.var.session) return c.redirect('/', 303);
    const first = await setupNeeded(c, core);
    if (first) return first;
    const next = c.req.query('next');
    return page(c, LoginPage({ nonce: c.var.nonce, sso: await core.consoleSso.label(), next: next && SAFE_NEXT.test(next) ? next : '/', notice: c.req.query('signed_out') ? 'You are signed out.' : undefined }));
  });

  app.post('/login', async (c) => {
    const f = await formOf(c);
    const email = text(f, 'email');
    const next = SAFE_NEXT.test(text(f, 'next')) ? text(f, 'next') : '/';
    try {
      const r = await core.accounts.login(email, text(f, 'password'), client(c), text(f, 'code'));
      if (r) {
        setSessionCookie(c, r.id, publicUrl, core.config.console.session_max_days);
        return c.redirect(r.pending ? `/login/totp?next=${encodeURIComponent(next)}` : next, 303);
      }
      // Nobody to sign in as yet: how to finish setup rather than "Wrong email or password" (the try was throttled and counted all the same).
      return (await setupNeeded(c, core, 401)) ?? page(c, LoginPage({ nonce: c.var.nonce, sso: await core.consoleSso.label(), email, next, errors: { message: 'Wrong email or password.', fields: {} } }), 401);
    } catch (e) {
      if (!(e instanceof AppError) || e.status !== 429) throw e;
      return page(c, LoginPage({ nonce: c.var.nonce, sso: await core.consoleSso.label(), email, next, askCode: true, errors: { message: e.message, fields: {} } }), 429);
    }
  });

  app.get('/login/totp', async (c) => {
    if (!(await core.accounts.pendingAccount(getCookie(c, SESSION_COOKIE)))) return c.redirect('/login', 303);
    const next = c.req.query('next');
    return page(c, TotpPage({ nonce: c.var.nonce, next: next && SAFE_NEXT.test(next) ? next : '/' }));
  });

  app.post('/login/totp', async (c) => {
    const f = await formOf(c);
    const next = SAFE_NEXT.test(text(f, 'next')) ? text(f, 'next') : '/';
    try {
      if (await core.accounts.secondFactor(getCookie(c, SESSION_COOKIE), text(f, 'code'), client(c).address)) return c.redirect(next, 303);
      if (!(await core.accounts.pendingAccount(getCookie(c, SESSION_COOKIE)))) return c.redirect('/login', 303);
      return page(c, TotpPage({ nonce: c.var.nonce, next, error: 'That code is not right. Try the current one, or a recovery code.' }), 401);
    } catch (e) {
      if (!(e instanceof AppError) || e.status !== 429) throw e;
      return page(c, TotpPage({ nonce: c.var.nonce, next, error: e.message }), 429);
    }
  });

  app.post('/logout', async (c) => {
    const id = getCookie(c, SESSION_COOKIE);
    if (id) await core.accounts.logout(id);
    clearSessionCookie(c, publicUrl);
    return c.redirect('/login?signed_out=1', 303);
  });

  const spent = async (c: ConsoleContext, token: string) =>
    (await core.accounts.setupState(token)) === 'expired'
      ? page(c, MessagePage({ nonce: c.var.nonce, title: 'Setup link expired', message: 'This setup link expired (a link works for one hour). Restart Pharos to print a new one, or create an admin on the server with pharos user create --email E --role admin.' }), 403)
      : page(c, MessagePage({ nonce: c.var.nonce, title: 'Setup link not valid', message: 'This setup link was used already (or a newer one was printed at start). Sign in, or ask an admin for an account.' }), 403);

  app.get('/setup/:token', async (c) => {
    if ((await core.accounts.setupState(c.req.param('token'))) !== 'open') return spent(c, c.req.param('token'));
    return page(c, SetupPage({ nonce: c.var.nonce, token: c.req.param('token') }));
  });

  app.post('/setup/:token', async (c) => {
    const token = c.req.param('token');
    if ((await core.accounts.setupState(token)) !== 'open') return spent(c, token);
    const f = await formOf(c);
    const values = { email: text(f, 'email'), name: text(f, 'name') };
    try {
      const id = await core.accounts.setup(token, { ...values, password: text(f, 'password') }, client(c));
      setSessionCookie(c, id, publicUrl, core.config.console.session_max_days);
      return c.redirect('/', 303);
    } catch (e) {
      if (e instanceof AppError && e.status === 403) return spent(c, token);
      return page(c, SetupPage({ nonce: c.var.nonce, token, values, errors: formErrors(e) }), 400);
    }
  });
}
