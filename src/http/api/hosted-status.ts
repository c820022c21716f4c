import type { MiddlewareHandler } from 'hono';

/**
 * `api.compatibility: hosted` (docs/api.md "Clients"): a refused field answers **422** as the hosted
 * service does (hyperping-go testdata/cassettes/monitor_validation_error.yaml: `422 {"message":
 * "Invalid URL"}`), not API.md's 400. Only answers that name a field are moved (every error code
 * but `request.*`: a body that is not JSON at all stays 400). The body is unchanged
 * (`{error, message, code}`); both clients treat 400 and 422 alike as validation errors.
 */
export function hostedValidationStatus(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (c.res.status !== 400 || !c.res.headers.get('content-type')?.includes('application/json')) return;
    const body = (await c.res.clone().json()) as { code?: unknown };
    if (typeof body.code === 'string' && body.code.startsWith('request.')) return;
    c.res = new Response(c.res.body, { status: 422, headers: c.res.headers });
  };
}
