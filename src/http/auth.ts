import type { MiddlewareHandler } from 'hono';
import type { Core } from '../core/index.ts';
import { AppError } from '../lib/errors.ts';
import type { AppEnv } from './context.ts';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Bearer authentication (API.md §5, CONTRACT.md "Authentication and users"): a missing or unknown
 * token → 401 with `WWW-Authenticate: Bearer`; a `read` token on anything but GET/HEAD → 403.
 */
export function bearerAuth(core: Core): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('Authorization') ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) throw new AppError(401, 'auth.missing_token', 'missing API token: send Authorization: Bearer <token>');
    const principal = core.users.authenticate(m[1]!);
    if (!principal) throw new AppError(401, 'auth.invalid_token', 'invalid API token');
    if (principal.scope === 'read' && !READ_METHODS.has(c.req.method)) {
      throw new AppError(403, 'auth.read_only', 'this token has read scope; write operations need a write token');
    }
    c.set('principal', principal);
    await next();
  };
}
