import { Hono, type Context } from 'hono';
import type { BadgeStatus } from '../core/badges.ts';
import type { AppEnv, HttpDeps } from './context.ts';
import { errorBody } from './errors.ts';

/** How long a browser or proxy may keep a badge, seconds (short: a badge follows the monitor within a minute). */
export const BADGE_MAX_AGE_S = 60;

const STATUS_COLOURS: Record<BadgeStatus, string> = { up: 'brightgreen', down: 'red', degraded: 'yellow', paused: 'lightgrey', pending: 'lightgrey' };

/** Headers of every badge answer: embeddable from any site (CORP cross-origin), cacheable briefly, nothing active. */
export function badgeHeaders(c: Context): void {
  c.header('Cross-Origin-Resource-Policy', 'cross-origin');
  c.header('Cache-Control', `public, max-age=${BADGE_MAX_AGE_S}`);
  c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
}

/** Colour of an uptime figure (%), from green at 99.9 down to red below 90. */
export function uptimeColour(pct: number): string {
  if (pct >= 99.9) return 'brightgreen';
  if (pct >= 99) return 'green';
  if (pct >= 95) return 'yellow';
  if (pct >= 90) return 'orange';
  return 'red';
}

/** Colour of days left on a certificate: red within 7 days (or expired), orange within 14, yellow within 30 (Kuma's warning days). */
export function certificateColour(days: number): string {
  if (days <= 7) return 'red';
  if (days <= 14) return 'orange';
  if (days <= 30) return 'yellow';
  return 'brightgreen';
}

/** An integer query parameter in [min, max], `fallback` when absent; null when malformed or out of range. */
function intParam(raw: string | undefined, fallback: number, min: number, max: number): number | null {
  if (raw === undefined) return fallback;
  if (!/^\d{1,4}$/.test(raw)) return null;
  const n = Number(raw);
  return n >= min && n <= max ? n : null;
}

/**
 * Per-monitor badges (issue 33 point 8, after Uptime Kuma's `/api/badge/:id/…`), SVG made by
 * shields.io's `badge-maker` like a status page's `badge.svg`, no sign-in:
 * `GET /badge/monitors/:uuid/status.svg`, `…/uptime.svg?days=N` (1–365, default 30),
 * `…/response-time.svg?hours=N` (1–720, default 24) and `…/certificate.svg`.
 * A monitor answers only when it opted in (`public_badges`); otherwise, and for an unknown uuid,
 * the same 404 `badges.not_found`. Every answer is `Cross-Origin-Resource-Policy: cross-origin`
 * (an `<img>` on another site loads it) and `Cache-Control: public, max-age=60`.
 */
export function monitorBadgesRouter(deps: Pick<HttpDeps, 'core'>) {
  const { badges } = deps.core;
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    badgeHeaders(c);
    await next();
  });
  // badge-maker (its font-width tables: ~4 MB of heap) loads at the first badge, not at start (issue 38).
  const svg = async (c: Context, label: string, message: string, color: string) =>
    c.body((await import('badge-maker')).makeBadge({ label, message, color }), 200, { 'Content-Type': 'image/svg+xml; charset=utf-8' });
  const missing = (c: Context) => c.json(errorBody('no such badge', undefined, 'badges.not_found'), 404);
  const bad = (c: Context, name: string, rule: string) => c.json(errorBody(`${name}: ${rule}`, undefined, 'validation.invalid'), 400);

  app.get('/:uuid/status.svg', async (c) => {
    const s = await badges.status(c.req.param('uuid'));
    return s === undefined ? missing(c) : svg(c, 'status', s, STATUS_COLOURS[s]);
  });
  app.get('/:uuid/uptime.svg', async (c) => {
    const days = intParam(c.req.query('days'), 30, 1, 365);
    if (days === null) return bad(c, 'days', 'must be an integer from 1 to 365');
    const pct = await badges.uptime(c.req.param('uuid'), days);
    if (pct === undefined) return missing(c);
    const label = `uptime ${days}d`;
    return pct === null ? svg(c, label, 'pending', 'lightgrey') : svg(c, label, `${pct.toFixed(2)}%`, uptimeColour(pct));
  });
  app.get('/:uuid/response-time.svg', async (c) => {
    const hours = intParam(c.req.query('hours'), 24, 1, 720);
    if (hours === null) return bad(c, 'hours', 'must be an integer from 1 to 720');
    const ms = await badges.responseTime(c.req.param('uuid'), hours);
    if (ms === undefined) return missing(c);
    const label = `response ${hours}h`;
    return ms === null ? svg(c, label, 'no data', 'lightgrey') : svg(c, label, `${ms} ms`, 'blue');
  });
  app.get('/:uuid/certificate.svg', async (c) => {
    const days = await badges.certificateDays(c.req.param('uuid'));
    if (days === undefined) return missing(c);
    if (days === null) return svg(c, 'certificate', 'none', 'lightgrey');
    return svg(c, 'certificate', days < 0 ? 'expired' : `${days} ${days === 1 ? 'day' : 'days'}`, certificateColour(days));
  });
  return app;
}
