import { Hono, type Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { MAX_PING_BODY_BYTES } from '../domain/healthcheck.ts';
import { parsePingSignal } from '../domain/ping.ts';
import type { HttpDeps } from './context.ts';

const PING_METHODS = 'GET, HEAD, POST';

/**
 * Reads at most `limit` bytes of a request body as UTF-8 and drains the rest: a ping's body is
 * kept up to 10 KB and a larger one is cut, never refused (CONTRACT.md "Healthchecks").
 */
async function headOfBody(c: Context, limit: number): Promise<string | null> {
  const stream = c.req.raw.body;
  if (!stream) return null;
  const kept: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    if (size < limit) kept.push(chunk.subarray(0, limit - size));
    size += chunk.byteLength;
  }
  if (size === 0) return null;
  return new TextDecoder().decode(Buffer.concat(kept));
}

/**
 * The ping endpoint `<public_url>/ping/<tok_uuid>[/start|/fail|/<exit-code>]` (API.md §4.2): HEAD,
 * GET or POST, no credentials, `200 OK` once the ping is committed; 404 for an unknown token or
 * signal; 405 for other methods. The source IP is the TCP peer (put Pharos behind a proxy and it is
 * the proxy's address).
 */
export function pingRouter(deps: Pick<HttpDeps, 'core' | 'clock'>) {
  const { core, clock } = deps;
  const app = new Hono();

  const handle = async (c: Context) => {
    const signal = parsePingSignal(c.req.param('signal'));
    if (!signal) return c.text('Not found', 404);
    const body = c.req.method === 'POST' ? await headOfBody(c, MAX_PING_BODY_BYTES) : null;
    const stored = await core.healthchecks.ping(c.req.param('token')!, {
      ...signal,
      at: clock.now(),
      method: c.req.method,
      sourceIp: getConnInfo(c).remote.address ?? null,
      userAgent: c.req.header('user-agent')?.slice(0, 512) ?? null,
      body,
    });
    if (!stored) return c.text('Not found', 404);
    return c.text('OK', 200);
  };
  for (const path of ['/:token', '/:token/:signal']) {
    app.on(['GET', 'HEAD', 'POST'], path, handle);
    app.all(path, (c) => c.text(`Method not allowed; allowed: ${PING_METHODS}`, 405, { Allow: PING_METHODS }));
  }
  return app;
}
