import { OpenAPIHono } from '@hono/zod-openapi';
import { healthchecksRouter } from './api/healthchecks.ts';
import { escalationPoliciesRouter } from './api/escalation-policies.ts';
import { onCallSchedulesRouter } from './api/on-call-schedules.ts';
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
import { ssoConnectionsRouter } from './api/sso-connections.ts';
import { hostedValidationStatus } from './api/hosted-status.ts';
import { mcpRouter } from './mcp/server.ts';
import { forwardToLeader } from './leader-forward.ts';
import { bearerAuth } from './auth.ts';
import type { AppEnv, HttpDeps } from './context.ts';
import { errorHandler, validationHook } from './errors.ts';
import { notFoundHandler } from './not-found.ts';

/**
 * The REST API (../shared/API.md and docs/api.md) as an app of its own: one router per resource and
 * version, mounted with `app.route()`, bearer auth on every `/v1`, `/v2`, `/v3` route, the OpenAPI
 * document at `/openapi.json`, 405/404 for what no route answers. src/http/app.ts builds it at the
 * first request for `/v1/…`, `/v2/…`, `/v3/…` or `/openapi.json` (issue 38 point 1: its ~1,200 zod schemas and routes are ~5 MB
 * an idle process need not hold) and hands it `c.req.raw`; the top-level middlewares (security
 * headers, body limit, well-formed input) have run by then.
 */
export function createApiApp(deps: HttpDeps): OpenAPIHono<AppEnv> {
  const { core, logger } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const auth = bearerAuth(core);
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
  app.notFound(notFoundHandler(() => app.routes));
  app.onError(errorHandler(logger));
  return app;
}
