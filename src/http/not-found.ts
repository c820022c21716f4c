import type { Context } from 'hono';
import { errorBody } from './errors.ts';

/** A route as Hono lists it (`app.routes`). */
interface RouteEntry {
  method: string;
  path: string;
}

/**
 * The not-found handler of an app whose routes `routes()` lists: 405 with `Allow` when the path is a
 * route's but the method is not (CONTRACT.md "Errors and validation"), else 404; both `{error,
 * message}`. The route list is read at the first miss (every route is registered by then).
 */
export function notFoundHandler(routes: () => readonly RouteEntry[]): (c: Context) => Response {
  let known: Array<{ method: string; re: RegExp }> | null = null;
  return (c) => {
    known ??= routes()
      .filter((r) => r.method !== 'ALL')
      .map((r) => ({ method: r.method, re: pathRegex(r.path) }));
    const allowed = [...new Set(known.filter((r) => r.re.test(c.req.path)).map((r) => r.method))];
    // A route of this method matched and found nothing (`/docs/assets/<unknown>`): 404, not 405.
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    if (allowed.length > 0 && !allowed.includes(method)) {
      c.header('Allow', allowed.join(', '));
      return c.json(errorBody(`method ${c.req.method} not allowed on ${c.req.path}; allowed: ${allowed.join(', ')}`, undefined, 'request.method_not_allowed'), 405);
    }
    return c.json(errorBody(`no route for ${c.req.method} ${c.req.path}`, undefined, 'request.not_found'), 404);
  };
}

/** `/v1/monitors/:uuid` → a regex matching concrete paths (parameters match one segment). */
function pathRegex(path: string): RegExp {
  const body = path
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`);
}
