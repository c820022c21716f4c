import type { Core } from '../../core/index.ts';
import type { Clock } from '../../lib/clock.ts';
import type { PageView, ServiceView } from '../../core/status-view.ts';
import { MIN_RENDER_INTERVAL_MS, PageRenderCache, type Rendered } from './cache.ts';
import { contentSecurityPolicy, type PageContext } from './context.ts';

const caches = new WeakMap<Core, PageRenderCache>();

/** The render cache of a core's public pages (one per core, shared by the path and host routers). */
export function pageCacheFor(core: Core, clock: Clock): PageRenderCache {
  let cache = caches.get(core);
  if (!cache) caches.set(core, (cache = new PageRenderCache(core.bus, clock)));
  return cache;
}

/**
 * When a page view changes by time alone (epoch ms): the next maintenance start or end it shows, or
 * in 1 s while it shows a monitor with no check yet (its first stored result, which no event
 * announces, makes it operational). Undefined when nothing lies ahead.
 */
export function viewChangesAt(view: PageView): number | undefined {
  const times = [...view.activeMaintenance.map((w) => w.endAt), ...view.upcomingMaintenance.map((w) => w.startAt)].filter((t) => t > view.now);
  const unchecked = (s: ServiceView): boolean => (s.kind === 'monitor' && s.status === 'unknown') || s.children.some(unchecked);
  if (view.sections.some((sec) => sec.services.some(unchecked))) times.push(view.now + MIN_RENDER_INTERVAL_MS);
  return times.length ? Math.min(...times) : undefined;
}

/** True when an If-None-Match header names `etag` (or `*`); weak validators compare equal. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => {
    const v = t.trim().replace(/^W\//, '');
    return v === '*' || v === etag;
  });
}

/**
 * Answers a public page route from the render cache (after the gate has let the visitor in): the
 * key is `route` plus the page's uuid and last edit, the base path and the language, so no entry
 * is served for another page, another host form or language. Sets the CSP of the nonce the body
 * carries, an ETag (304 on If-None-Match) and `Vary: Accept-Encoding` (plus Accept-Language on a page in
 * several languages: without ?lang= it picks the language), and sends the body
 * brotli- or gzip-compressed when the client accepts it (compressed once per render).
 * @param route the route and its variant (`page|24h`, `summary`, …)
 * @param render called on a miss (one at a time per key: see {@link PageRenderCache.get})
 */
export async function cachedPage(c: PageContext, cache: PageRenderCache, route: string, render: () => Rendered | Promise<Rendered>): Promise<Response> {
  const { page, chrome } = c.var;
  // The links of a render depend on the language the visitor gets without ?lang= too (chrome.auto).
  const key = `${route}|${page.uuid}|${page.updatedAt}|${chrome.base}|${chrome.lang}|${chrome.auto ?? ''}`;
  const e = await cache.get(key, chrome.nonce, render);
  c.header('Content-Security-Policy', contentSecurityPolicy(e.nonce, page.settings.google_analytics !== null));
  c.header('ETag', e.etag);
  c.header('Vary', page.settings.languages.length > 1 ? 'Accept-Encoding, Accept-Language' : 'Accept-Encoding');
  if (c.req.method === 'GET' && matches(c.req.header('if-none-match'), e.etag)) return c.body(null, 304);
  const { body, encoding } = cache.encoded(e, c.req.header('accept-encoding'));
  if (encoding) c.header('Content-Encoding', encoding);
  c.header('Content-Type', e.contentType);
  return c.body(new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength), 200);
}
