import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { MiddlewareHandler } from 'hono';

const br = promisify(brotliCompress);
const gz = promisify(gzip);

/** Bodies smaller than this (bytes) go as they are: the headers would eat the saving. */
export const COMPRESS_MIN_BYTES = 1024;
/** Brotli quality for pages rendered per request: 4 of 11 (a 100 KB page in ~1 ms, ~85 % smaller; higher levels cost several times more for a few %). */
const BROTLI_QUALITY = 4;
/** Media types compressed: the console's pages, stylesheet and script. Never `text/event-stream` (the live stream must flush each message). */
const COMPRESSIBLE = /^(?:text\/html|text\/css|text\/javascript|application\/javascript)\b/;

/**
 * The encoding to answer with for an `Accept-Encoding` header: `br` before `gzip` (smaller at the same
 * cost), either only when listed without `q=0`; null for identity. Same rule as the status pages'
 * (src/http/pages/cache.ts `encoded`).
 */
export function chooseEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | null {
  if (!acceptEncoding) return null;
  const offered = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    if (name) offered.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const ok = (name: string) => (offered.get(name) ?? offered.get('*') ?? 0) > 0;
  if (ok('br')) return 'br';
  if (ok('gzip')) return 'gzip';
  return null;
}

/**
 * Compresses the console's HTML (and its CSS and script) with brotli or gzip as the client accepts
 * (issue 33 point 5: 949 KB of overview HTML at 2,000 monitors went uncompressed). Off the event loop
 * (zlib's thread pool). Adds `Vary: Accept-Encoding` to every compressible answer, compressed or not,
 * so a cache never hands a compressed body to a client that did not ask for it. Streams
 * (`text/event-stream`, the live updates at /events) and bodies under {@link COMPRESS_MIN_BYTES} pass untouched.
 */
export function compressConsole(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const res = c.res;
    const type = res.headers.get('content-type') ?? '';
    if (!COMPRESSIBLE.test(type) || res.headers.has('content-encoding') || !res.body || c.req.method === 'HEAD') return;
    const vary = res.headers.get('vary');
    const encoding = chooseEncoding(c.req.header('accept-encoding'));
    const body = Buffer.from(await res.arrayBuffer());
    const compress = encoding !== null && body.length >= COMPRESS_MIN_BYTES;
    const out = !compress ? body : encoding === 'br' ? await br(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } }) : await gz(body, { level: 6 });
    // Hono copies the old answer's headers onto the new one: set ours after.
    c.res = new Response(new Uint8Array(out), { status: res.status, statusText: res.statusText, headers: res.headers });
    if (compress) c.res.headers.set('content-encoding', encoding);
    c.res.headers.set('content-length', String(out.length));
    if (!vary || !/accept-encoding/i.test(vary)) c.res.headers.set('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
  };
}
