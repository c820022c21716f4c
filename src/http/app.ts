import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { secureHeaders } from 'hono/secure-headers';
import { onCallIcalRouter } from './ical.ts';
import { pageLinksRouter } from './page-links.ts';
import { ssoRouter } from './sso/router.ts';
import { pageAssetsRouter } from './pages/assets.ts';
import { bearerAuth } from './auth.ts';
import { CONSOLE_PATH } from './console/paths.ts';
import type { AppEnv, HttpDeps } from './context.ts';
import { docsRouter } from './docs.ts';
import { monitorBadgesRouter } from './badges.ts';
import { errorHandler } from './errors.ts';
import { hostedDomain } from './host.ts';
import { notFoundHandler } from './not-found.ts';
import type { ConsoleSignIn } from './sso/router.ts';
import { wellFormedInput } from './well-formed.ts';

/** Request bodies above this are refused with 413 (CONTRACT.md "Errors and validation"). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The paths the REST API answers (src/http/api-app.ts). */
const API_PATHS = ['/v1/*', '/v2/*', '/v3/*', '/openapi.json'];

/**
 * Builds the whole HTTP application from narrow dependencies (house rule 5): health, status pages,
 * console, SSO, docs, badges, metrics, and the REST API (src/http/api-app.ts: one router per resource
 * and version, auth on every `/v1`, `/v2`, `/v3` route). The API, the console and the status pages
 * are apps of their own, built at their first request (issue 38 point 1); the middlewares here run
 * before them.
 * Pings (`/ping/…`) never reach this app: `pingHandler` answers them in front of it.
 */
export function createApp(deps: HttpDeps) {
  const { core, logger } = deps;
  const app = new Hono<AppEnv>();
  const auth = bearerAuth(core);

  // overwrite: false keeps what a router chose itself (the console's and status pages' Referrer-Policy
  // same-origin: with no-referrer, Chromium sends `Origin: null` on form posts and the console's Origin check fails).
  // HSTS is opt-in (issue 37): only with tls.hsts_max_age_seconds (behind a reverse proxy, the proxy's choice).
  const hstsSeconds = core.config.tls?.hsts_max_age_seconds ?? 0;
  app.use('*', secureHeaders({ crossOriginResourcePolicy: 'same-origin', overwrite: false, strictTransportSecurity: hstsSeconds > 0 ? `max-age=${hstsSeconds}` : false }));
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new HTTPException(413);
    },
  });
  app.use('*', limitBody);
  // Before every router (status pages, console, SSO, API): NUL characters and over-deep JSON never reach a store.
  app.use('*', wellFormedInput);
  // From memory only (issue 31): 503 when this instance cannot serve, 200 `degraded` with the reasons
  // when it serves but leadership is not as it should be (docs/api.md "Health"). Before the status
  // pages' host routing and the console, which may read the store: a health check must never wait on
  // the database (nor fail with its error) — on any Host.
  app.get('/healthz', (c) => {
    const h = deps.health?.();
    if (!h) return c.json({ status: 'ok', version: deps.version }, 200);
    const body = {
      status: h.status,
      version: deps.version,
      instance: h.instance,
      leader: h.leader,
      // What the other instances ask during a database outage (issue 31 point 5, cluster/outage-watch.ts).
      ...(h.database ? { database: h.database } : {}),
      ...(h.keepsChecks !== undefined ? { keepsChecks: h.keepsChecks } : {}),
      ...(h.reasons.length > 0 ? { reasons: h.reasons } : {}),
    };
    return c.json(body, h.status === 'unavailable' ? 503 : 200);
  });
  // A request for a status page's own host (`<subdomain>.<hosted_domain>` or its custom hostname)
  // is the page's: only its routes (and the page assets) answer there, never the API.
  // Status pages are built at their first request, like the API and the console (issue 38 point 1).
  const hostPages = lazily(async () => {
    const { statusPagesRouter } = await import('./pages/router.ts');
    const pages = new Hono<AppEnv>();
    pages.route('/_pharos', pageAssetsRouter());
    pages.route('/', statusPagesRouter(deps, 'host'));
    return pages;
  });
  const pathPages = lazily(async () => {
    const { statusPagesRouter } = await import('./pages/router.ts');
    const pages = new Hono<AppEnv>();
    pages.route('/status/:subdomain', statusPagesRouter(deps, 'path'));
    pages.notFound(notFoundHandler(() => pages.routes));
    pages.onError(errorHandler(logger));
    return pages;
  });
  const domain = hostedDomain(core.config);
  // Asynchronous (issue 31): remembered 1 s per host, one read in flight per host (core/statuspages.ts).
  app.use('*', async (c, next) => ((await core.statuspages.byHost(c.req.header('host'), domain)) ? (await hostPages()).fetch(c.req.raw, c.env) : next()));
  // The web console (issue 16) answers its own paths (`/`, `/monitors/…`, `/login`, …) before the API.
  // Built at its first request (issue 38 point 1): an idle process need not hold its pages and forms.
  const consoleApp = lazily(async () => (await import('./console/router.ts')).consoleRouter(deps).app);
  // Not on `<anything>.<hosted_domain>`: those hosts belong to status pages (an unknown one is a 404, not a sign-in page).
  const pageHost = (host: string | undefined) => (host ?? '').toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '').endsWith(`.${domain.toLowerCase()}`);
  app.use('*', async (c, next) => (CONSOLE_PATH.test(c.req.path) && !pageHost(c.req.header('host')) ? (await consoleApp()).fetch(c.req.raw, c.env) : next()));
  // The REST API and its OpenAPI document (src/http/api-app.ts), built at the first request for them
  // (issue 38 point 1): its routes and ~1,200 zod schemas are memory an idle process need not hold.
  const apiApp = lazily(async () => (await import('./api-app.ts')).createApiApp(deps));
  for (const path of API_PATHS) app.all(path, async (c) => (await apiApp()).fetch(c.req.raw, c.env));
  app.route('/docs', docsRouter());
  app.route('/_pharos', pageAssetsRouter());
  for (const path of ['/status/:subdomain', '/status/:subdomain/*']) app.all(path, async (c) => (await pathPages()).fetch(c.req.raw, c.env));
  app.route('/badge/monitors', monitorBadgesRouter(deps));
  // Anonymous, the token in the path is the secret (issue 34 point 2).
  app.route('/ical', onCallIcalRouter(deps));
  // Anonymous: acknowledge / resolve from a page, Twilio's inbound SMS (issue 34 point 4).
  app.route('/', pageLinksRouter(deps));
  const consoleSignIn = lazily(async () => (await import('./console/routes-sso.ts')).consoleSsoSignIn(deps));
  app.route('/sso', ssoRouter(deps, { console: (async (c, who, next) => (await consoleSignIn())(c, who, next)) satisfies ConsoleSignIn }));
  app.get('/metrics', auth, async (c) => c.body(await deps.metricsText(), 200, { 'Content-Type': deps.metricsContentType }));
  app.notFound(notFoundHandler(() => app.routes));
  app.onError(errorHandler(logger));
  return app;
}

/**
 * `load` run once, at the first call; its promise shared by concurrent callers. A failed load is
 * forgotten, so the next call tries again (a module that failed to build answers 500 once, not forever).
 */
function lazily<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () =>
    (loaded ??= load().catch((e: unknown) => {
      loaded = undefined;
      throw e;
    }));
}
