import type { Context } from 'hono';

/**
 * The caller's address for per-client limits (wrong passwords, sign-ins): the socket's, or with
 * `status_pages.trust_proxy` the last X-Forwarded-For entry (the one the proxy itself added; the
 * entries before it are whatever the client sent).
 */
export function clientAddress(c: Context, trustProxy: boolean): string {
  const forwarded = trustProxy ? c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim() : undefined;
  if (forwarded) return forwarded;
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? 'unknown';
}

/** True when the request reached us over https (directly, or as a proxy says with X-Forwarded-Proto). */
export function isHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';
}
