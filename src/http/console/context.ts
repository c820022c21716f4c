import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import type { ConsoleSession } from '../../core/accounts.ts';
import { getCookie } from 'hono/cookie';
import type { Shell } from '../../../views/console/model.ts';
import { THEME_COOKIE, themeOf } from '../../../views/console/theme.tsx';

/** Hono environment of console routes: the session (null when signed out) and this response's CSP nonce. */
export interface ConsoleEnv {
  Variables: { session: ConsoleSession | null; nonce: string };
}

/** A console route's context. */
export type ConsoleContext = Context<ConsoleEnv>;

/** Session cookie name. */
export const SESSION_COOKIE = 'pharos_session';

/** A fresh 128-bit CSP nonce. */
export const newNonce = (): string => randomBytes(16).toString('base64');

/**
 * The console's Content-Security-Policy: scripts only from Pharos itself or nonce'd, styles from
 * Pharos, no inline handlers, no framing (`frame-ancestors 'none'`), forms only to Pharos; frames
 * only of Pharos (the status-page preview).
 */
export function consoleCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' 'nonce-${nonce}'`,
    `style-src 'self'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    // The status-page editor's preview frame (/statuspages/<uuid>/preview, sandboxed).
    "frame-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** What the layout of every signed-in screen needs. */
export function shellOf(c: ConsoleContext, path: string): Shell {
  const s = c.var.session!;
  return { nonce: c.var.nonce, csrf: s.csrf, path, user: { name: s.account.name, email: s.account.email, role: s.account.role }, theme: themeOf(getCookie(c, THEME_COOKIE)) };
}

/** A rendered JSX element as a whole HTML document response. */
export function page(c: ConsoleContext, el: unknown, status: 200 | 400 | 401 | 403 | 404 | 409 | 429 = 200): Response {
  const html = `<!doctype html>${String(el)}`;
  // Signed-out pages (sign-in, setup, messages) have no Shell: their <html> gets the chosen theme here.
  const theme = themeOf(getCookie(c, THEME_COOKIE));
  return c.html(theme === 'auto' || !html.startsWith(BARE_HTML) ? html : `<!doctype html><html lang="en" data-theme="${theme}">${html.slice(BARE_HTML.length)}`, status);
}
const BARE_HTML = '<!doctype html><html lang="en">';

/**
 * The caller's address (wrong-password throttle, session list): the socket's, or behind a proxy
 * (`console.trust_proxy`) the last X-Forwarded-For entry, the one the proxy itself added.
 */
export function clientAddress(c: Context, trustProxy: boolean): string {
  const forwarded = trustProxy ? c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim() : undefined;
  if (forwarded) return forwarded;
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? 'unknown';
}
