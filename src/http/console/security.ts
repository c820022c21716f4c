import { timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Core } from '../../core/index.ts';
import { consoleCsp, newNonce, SESSION_COOKIE, type ConsoleContext, type ConsoleEnv } from './context.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every console response: a fresh CSP nonce and the console's CSP, no caching of signed-in pages,
 * and the session from the cookie (null when absent, expired or ended).
 */
export function consoleBase(core: Core): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    const nonce = newNonce();
    c.set('nonce', nonce);
    c.set('session', await core.accounts.session(getCookie(c, SESSION_COOKIE)));
    await next();
    // A route that set its own policy keeps it (the status-page preview: the public page's CSP, framable by the console).
    if (!c.res.headers.has('Content-Security-Policy')) {
      c.header('Content-Security-Policy', consoleCsp(nonce));
      c.header('X-Frame-Options', 'DENY');
    }
    c.header('Cache-Control', 'private, no-store');
    c.header('Referrer-Policy', 'same-origin');
  };
}

/**
 * Cross-site request refusal for state-changing requests: the Origin (or, without one, the Referer)
 * must be Pharos's own (the request's host or `public_url`), and — when `withToken` — the session's
 * CSRF token must come as the `_csrf` form field or the `X-CSRF-Token` header (htmx). Refused → 403.
 */
export function originOk(c: ConsoleContext, publicUrl: string): boolean {
  const origin = c.req.header('origin') ?? (c.req.header('referer') ? safeOrigin(c.req.header('referer')!) : null);
  if (!origin) return true; // No browser omits both on a cross-site POST; the CSRF token still applies.
  const own = new Set([new URL(c.req.url).origin, new URL(publicUrl).origin]);
  const host = c.req.header('host');
  if (host) own.add(`${new URL(c.req.url).protocol}//${host}`);
  return own.has(origin);
}

function safeOrigin(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** True when `given` equals the session's CSRF token (constant-time). */
export function csrfOk(expected: string, given: unknown): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/** Whether a method changes state. */
export const isUnsafe = (method: string): boolean => !SAFE_METHODS.has(method);

/** Sets the session cookie: HttpOnly, SameSite=Lax, Secure when the public URL is https; lasts at most the absolute session length. */
export function setSessionCookie(c: Context, id: string, publicUrl: string, maxDays: number): void {
  setCookie(c, SESSION_COOKIE, id, { path: '/', httpOnly: true, sameSite: 'Lax', secure: publicUrl.startsWith('https:'), maxAge: maxDays * 86_400 });
}

/** Clears the session cookie. */
export function clearSessionCookie(c: ConsoleContext, publicUrl: string): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: publicUrl.startsWith('https:') });
}
