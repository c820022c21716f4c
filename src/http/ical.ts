import { Hono } from 'hono';
import { RateLimiterMemory, RateLimiterRes } from '../lib/rate-limiter.ts';
import { rateLimitKey } from '../lib/ip-ranges.ts';
import type { Feed } from '../core/on-call-feeds.ts';
import type { AppEnv, HttpDeps } from './context.ts';
import { errorBody } from './errors.ts';
import { clientAddress } from './pages/client.ts';

/** Requests per client address per minute on the feed route (a calendar polls every few minutes at most). */
export const ICAL_PER_MINUTE = 60;

/**
 * A feed as iCalendar text (RFC 5545), made by `ical-generator`: one VEVENT per shift, times in UTC.
 * The library is loaded on the first feed asked for (issue 38 point 1: not at start); its default
 * export, as from source (inside the single executable a package loaded on first use answers its
 * `module.exports`, and the bundle's interop finds `default` there: src/lib/sea.ts `installBundledLibs`).
 */
export async function feedIcs(feed: Feed, prodHost: string): Promise<string> {
  const { default: ical } = await import('ical-generator');
  const cal = ical({ name: feed.name, prodId: { company: 'Pharos', product: 'on-call', language: 'EN' }, ttl: 15 * 60, x: { 'X-WR-TIMEZONE': feed.timeZone }, description: `Pharos on-call shifts (${prodHost})` });
  for (const e of feed.events) {
    cal.createEvent({
      id: e.uid,
      start: new Date(e.start),
      end: new Date(e.end),
      summary: feed.kind === 'user' ? `On call: ${e.scheduleName}` : `On call: ${e.userName}`,
      description: `${e.userName} is on call for ${e.scheduleName}${e.overrideUuid ? ' (override)' : ''}.`,
    });
  }
  return cal.toString();
}

/**
 * The iCal feeds of on-call shifts (issue 34 point 2): `GET /ical/on-call/<token>.ics`, anonymous
 * but unguessable (the token is the secret; core/on-call-feeds.ts). A wrong, rotated or removed
 * token answers the same 404 `on_call_feeds.not_found`; {@link ICAL_PER_MINUTE} requests per client
 * address per minute, then 429 (like the other anonymous routes, by the address status pages use:
 * `status_pages.trust_proxy`). `Referrer-Policy: no-referrer` and `Cache-Control: private` keep the URL
 * out of referrers and shared caches.
 */
export function onCallIcalRouter(deps: Pick<HttpDeps, 'core'>) {
  const { core } = deps;
  const perAddress = new RateLimiterMemory({ keyPrefix: 'ical-addr', points: ICAL_PER_MINUTE, duration: 60 });
  const app = new Hono<AppEnv>();
  app.get('/on-call/:file', async (c) => {
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cache-Control', 'private, max-age=300');
    try {
      await perAddress.consume(rateLimitKey(clientAddress(c, core.config.status_pages.trust_proxy)));
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      c.header('Retry-After', String(Math.ceil(e.msBeforeNext / 1000)));
      return c.json(errorBody('too many requests for iCal feeds from this address; try again later', undefined, 'on_call_feeds.too_many'), 429);
    }
    const m = /^([0-9A-Za-z]{1,64})\.ics$/.exec(c.req.param('file'));
    if (!m) return c.json(errorBody('no such iCal feed', undefined, 'on_call_feeds.not_found'), 404);
    const feed = await core.onCallFeeds.feed(m[1]!);
    return c.body(await feedIcs(feed, new URL(core.config.public_url).host), 200, { 'Content-Type': 'text/calendar; charset=utf-8', 'Content-Disposition': 'inline; filename="on-call.ics"' });
  });
  return app;
}
