import type { MiddlewareHandler } from 'hono';
import type { Core } from '../core/index.ts';
import { AppError } from '../lib/errors.ts';
import type { AppEnv } from './context.ts';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** POST routes a `read` token may call: MCP (src/http/mcp/server.ts refuses its write tools to a read token itself). */
export const READ_POST_ROUTES = new Set(['POST /v1/mcp']);

/** The only routes a `probe` token may call (`pharos agent`), and only a probe token. */
export const AGENT_ROUTES = new Set(['POST /v1/probes/poll', 'POST /v1/probes/results']);

/**
 * Bearer authentication (API.md §5, CONTRACT.md "Authentication and users"): a missing or unknown
 * token → 401 with `WWW-Authenticate: Bearer`; a `read` token on anything but GET/HEAD → 403; a
 * `probe` token anywhere but the agent routes → 403, and any other token on them → 403.
 */
export function bearerAuth(core: Core): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('Authorization') ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) throw new AppError(401, 'auth.missing_token', 'missing API token: send Authorization: Bearer <token>');
    const principal = await core.users.authenticate(m[1]!);
    if (!principal) throw new AppError(401, 'auth.invalid_token', 'invalid API token');
    const agentRoute = AGENT_ROUTES.has(`${c.req.method} ${c.req.path.replace(/\/$/, '')}`);
    if (principal.scope === 'probe' && !agentRoute) {
      throw new AppError(403, 'auth.probe_only', 'this token has probe scope: it may only poll for checks and push results (pharos agent)');
    }
    if (principal.scope !== 'probe' && agentRoute) {
      throw new AppError(403, 'auth.probe_required', 'only a probe-scope token (pharos token create --scope probe) may poll for checks or push results');
    }
    if (principal.scope === 'read' && !READ_METHODS.has(c.req.method) && !READ_POST_ROUTES.has(`${c.req.method} ${c.req.path.replace(/\/$/, '')}`)) {
      throw new AppError(403, 'auth.read_only', 'this token has read scope; write operations need a write token');
    }
    c.set('principal', principal);
    await next();
  };
}
