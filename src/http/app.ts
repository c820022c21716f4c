import { OpenAPIHono } from '@hono/zod-openapi';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { secureHeaders } from 'hono/secure-headers';
import { healthchecksRouter } from './api/healthchecks.ts';
import { escalationPoliciesRouter } from './api/escalation-policies.ts';
import { onCallSchedulesRouter } from './api/on-call-schedules.ts';
import { onCallIcalRouter } from './ical.ts';
import { pageLinksRouter } from './page-links.ts';
import { integrationsRouter } from './api/integrations.ts';
import { monitorsRouter } from './api/monitors.ts';
import { tagsRouter } from './api/tags.ts';
import { meRouter, teamMembersRouter } from './api/people.ts';
import { maintenanceRouter } from './api/maintenance.ts';
import { reportsRouter } from './api/reports.ts';
import { componentsRouter, incidentsRouter } from './api/incidents.ts';
import { statuspagesRouter } from './api/statuspages.ts';
import { subscribersRouter } from './api/subscribers.ts';
import { outagesRouter } from './api/outages.ts';
import { probesRouter } from './api/probes.ts';
import { clusterRouter } from './api/cluster.ts';
import { auditLogRouter } from './api/audit-log.ts';
import { mcpRouter } from './mcp/server.ts';
import { forwardToLeader } from './leader-forward.ts';
import { ssoConnectionsRouter } from './api/sso-connections.ts';
import { ssoRouter } from './sso/router.ts';
import { hostedDomain } from './api/statuspages.ts';
import { pageAssetsRouter } from './pages/assets.ts';
import { statusPagesRouter } from './pages/router.ts';
import { bearerAuth } from './auth.ts';
import { CONSOLE_PATH, consoleRouter } from './console/router.ts';
import { consoleSsoSignIn } from './console/routes-sso.ts';
import type { AppEnv, HttpDeps } from './context.ts';
import { docsRouter } from './docs.ts';
import { monitorBadgesRouter } from './badges.ts';
import { errorBody, errorHandler, validationHook } from './errors.ts';
import { hostedValidationStatus } from './api/hosted-status.ts';
import { wellFormedInput } from './well-formed.ts';

/** Request bodies above this are refused with 413 (CONTRACT.md "Errors and validation"). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Builds the whole HTTP application from narrow dependencies (house rule 5). One router per
 * resource and version, mounted with `app.route()`; auth on every `/v1`, `/v2`, `/v3` route.
 * Pings (`/ping/…`) never reach this app: `pingHandler` answers them in front of it.
 */
export function createApp(deps: HttpDeps) {
  const { core, logger } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
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
  const hostPages = new Hono<AppEnv>();
  hostPages.route('/_pharos', pageAssetsRouter());
  hostPages.route('/', statusPagesRouter(deps, 'host'));
  const domain = hostedDomain(core.config);
  // Asynchronous (issue 31): remembered 1 s per host, one read in flight per host (core/statuspages.ts).
  app.use('*', async (c, next) => ((await core.statuspages.byHost(c.req.header('host'), domain)) ? hostPages.fetch(c.req.raw, c.env) : next()));
  // The web console (issue 16) answers its own paths (`/`, `/monitors/…`, `/login`, …) before the API.
  const consoleApp = consoleRouter(deps).app;
  // Not on `<anything>.<hosted_domain>`: those hosts belong to status pages (an unknown one is a 404, not a sign-in page).
  const pageHost = (host: string | undefined) => (host ?? '').toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '').endsWith(`.${domain.toLowerCase()}`);
  app.use('*', async (c, next) => (CONSOLE_PATH.test(c.req.path) && !pageHost(c.req.header('host')) ? consoleApp.fetch(c.req.raw, c.env) : next()));
  for (const v of ['/v1/*', '/v2/*', '/v3/*']) app.use(v, auth);
  // api.compatibility: hosted: refused fields answer 422 as the hosted service does (docs/api.md "Clients").
  if (core.config.api.compatibility === 'hosted') for (const v of ['/v1/*', '/v2/*', '/v3/*']) app.use(v, hostedValidationStatus());

  app.route('/v1/monitors', monitorsRouter(deps));
  app.route('/v1/tags', tagsRouter(deps));
  app.route('/v1/escalation-policies', escalationPoliciesRouter(deps));
  app.route('/v1/on-call-schedules', onCallSchedulesRouter(deps));
  app.route('/v1/team-members', teamMembersRouter(deps));
  app.route('/v1/me', meRouter(deps));
  app.route('/v1/integrations', integrationsRouter(deps));
  app.route('/v1/healthchecks', healthchecksRouter(deps, 'v1'));
  app.route('/v2/healthchecks', healthchecksRouter(deps, 'v2'));
  app.route('/v2/outages', outagesRouter(deps));
  app.route('/v1/maintenance-windows', maintenanceRouter(deps));
  app.route('/v2/reporting/monitor-reports', reportsRouter(deps));
  app.route('/v3/incidents', incidentsRouter(deps));
  app.route('/v1/components', componentsRouter(deps));
  app.route('/v2/statuspages', statuspagesRouter(deps));
  app.route('/v2/statuspages', subscribersRouter(deps));
  if (deps.leaderUrl) {
    const forward = forwardToLeader(deps.leaderUrl, (core.config.probe.agent_poll_seconds + 15) * 1000);
    app.post('/v1/probes/poll', forward);
    app.post('/v1/probes/results', forward);
    app.get('/v1/probes', forward);
  }
  app.route('/v1/probes', probesRouter(deps));
  app.route('/v1/cluster', clusterRouter(deps));
  app.route('/v1/audit-log', auditLogRouter(deps));
  // The Model Context Protocol (issue 35 point 3): the same services as tools for MCP clients and assistants.
  app.route('/v1/mcp', mcpRouter(deps));
  app.route('/v1/sso-connections', ssoConnectionsRouter(deps));

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'Pharos API', version: deps.version, description: 'Self-hosted uptime monitoring and status pages. Errors are `{error, message}`.' },
    security: [{ bearer: [] }],
  });
  app.route('/docs', docsRouter());
  app.route('/_pharos', pageAssetsRouter());
  app.route('/status/:subdomain', statusPagesRouter(deps, 'path'));
  app.route('/badge/monitors', monitorBadgesRouter(deps));
  // Anonymous, the token in the path is the secret (issue 34 point 2).
  app.route('/ical', onCallIcalRouter(deps));
  // Anonymous: acknowledge / resolve from a page, Twilio's inbound SMS (issue 34 point 4).
  app.route('/', pageLinksRouter(deps));
  app.route('/sso', ssoRouter(deps, { console: consoleSsoSignIn(deps) }));
  app.get('/metrics', auth, async (c) => c.body(await deps.metricsText(), 200, { 'Content-Type': deps.metricsContentType }));
  const routes = () => app.routes.filter((r) => r.method !== 'ALL').map((r) => ({ method: r.method, re: pathRegex(r.path) }));
  let known: ReturnType<typeof routes> | null = null;
  app.notFound((c) => {
    known ??= routes();
    const allowed = [...new Set(known.filter((r) => r.re.test(c.req.path)).map((r) => r.method))];
    // A route of this method matched and found nothing (`/docs/assets/<unknown>`): 404, not 405.
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    if (allowed.length > 0 && !allowed.includes(method)) {
      c.header('Allow', allowed.join(', '));
      return c.json(errorBody(`method ${c.req.method} not allowed on ${c.req.path}; allowed: ${allowed.join(', ')}`, undefined, 'request.method_not_allowed'), 405);
    }
    return c.json(errorBody(`no route for ${c.req.method} ${c.req.path}`, undefined, 'request.not_found'), 404);
  });
  app.onError(errorHandler(logger));
  return app;
}

/** `/v1/monitors/:uuid` → a regex matching concrete paths (parameters match one segment). */
function pathRegex(path: string): RegExp {
  const body = path
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`);
}
