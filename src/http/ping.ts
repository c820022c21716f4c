import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_PING_BODY_BYTES } from '../domain/healthcheck.ts';
import { parsePingSignal } from '../domain/ping.ts';
import type { HttpDeps } from './context.ts';

const PING_METHODS = 'GET, HEAD, POST';
const PREFIX = '/ping/';
const TOKEN = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * Reads at most `limit` bytes of a request body as UTF-8 and drains the rest: a ping's body is
 * kept up to 10 KB and a larger one is cut, never refused (CONTRACT.md "Healthchecks"). Bytes that are
 * not UTF-8 and NUL bytes (PostgreSQL's `text` cannot hold U+0000: the ping was lost, issue #30) read as U+FFFD.
 */
async function headOfBody(req: IncomingMessage, limit: number): Promise<string | null> {
  const kept: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    if (size < limit) kept.push(chunk.subarray(0, limit - size));
    size += chunk.byteLength;
  }
  return size === 0 ? null : Buffer.concat(kept).toString('utf8').replaceAll('\0', '\ufffd');
}

/** The headers of a plain-text answer `text`. */
const textHeaders = (text: string): Record<string, string> => ({ 'content-type': 'text/plain; charset=UTF-8', 'content-length': String(Buffer.byteLength(text)) });

function answer(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...textHeaders(text), ...headers });
  res.end(text);
}

// The two answers of a stored (or vanished) ping, built once: the hot path allocates no header object.
const OK_HEADERS = textHeaders('OK');
const NOT_FOUND_HEADERS = textHeaders('Not found');

/**
 * The ping endpoint `<public_url>/ping/<tok_uuid>[/start|/fail|/<exit-code>]` (API.md §4.2): HEAD,
 * GET or POST, no credentials, `200 OK` once the ping is committed; 404 for an unknown token or
 * signal (a request with a body to an unknown token is refused before the body is read, and its
 * connection closed); 405 (with `Allow`) for other methods. The source IP is the TCP peer (behind a proxy: the
 * proxy's address).
 *
 * It is the hot path (thousands of pings per second), so it is a plain node:http handler in front of
 * the Hono app: no Request/Response objects, no middleware. It only parses HTTP; storing is the
 * core's (`core.healthchecks.ping`).
 * @returns a listener that handles `/ping/…` requests and returns false for anything else
 */
export function pingHandler(deps: Pick<HttpDeps, 'core' | 'clock' | 'logger'>) {
  const { core, clock, logger } = deps;
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '';
    if (!url.startsWith(PREFIX)) return false;
    const q = url.indexOf('?');
    const [token = '', segment, extra] = url.slice(PREFIX.length, q < 0 ? undefined : q).split('/');
    const signal = extra === undefined && TOKEN.test(token) ? parsePingSignal(segment) : null;
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'POST') {
      req.resume();
      answer(res, 405, `Method not allowed; allowed: ${PING_METHODS}`, { allow: PING_METHODS });
      return true;
    }
    const hasBody = req.method === 'POST' || (req.headers['content-length'] ?? '0') !== '0' || req.headers['transfer-encoding'] !== undefined;
    const failed = (e: unknown) => {
      // An unreachable database is logged once by the store's watcher (pharos.ts), not per ping.
      const code = (e as { code?: string }).code;
      if (code === 'store.outcome_unknown') logger.warn('ping may or may not be stored: the connection to the database was lost while it committed');
      else if (code !== 'store.unavailable') logger.error('ping failed', { error: (e as Error).message });
      // A retried ping that was stored after all is a second ping of the same run: harmless.
      if (!res.headersSent) answer(res, 503, code === 'store.outcome_unknown' ? 'Ping may not be stored (the database connection was lost), try again' : 'Ping not stored, try again', { 'retry-after': '5' });
    };
    const submit = (body: string | null) => {
      if (!signal) return answer(res, 404, 'Not found');
      const ua = req.headers['user-agent'];
      core.healthchecks
        .ping(token, {
          kind: signal.kind,
          exitCode: signal.exitCode,
          at: clock.now(),
          method: req.method!,
          sourceIp: req.socket.remoteAddress ?? null,
          userAgent: ua ? ua.slice(0, 512) : null,
          body,
        })
        .then((stored) => {
          try {
            if (stored) res.writeHead(200, OK_HEADERS).end('OK');
            else res.writeHead(404, NOT_FOUND_HEADERS).end('Not found');
          } catch (e) {
            failed(e);
          }
        }, failed);
    };
    if (!hasBody) {
      // GET and HEAD (the common case): no body to wait for, the ping is queued in this turn.
      req.resume();
      submit(null);
      return true;
    }
    // Refused before the body is read (issue #14 point 9): the connection closes after the 404
    // instead of taking in, say, 1 GB that nobody wants. One indexed read, asynchronous (issue 31: the
    // event loop never waits on the database); pings without a body skip it.
    const known = signal === null ? Promise.resolve(false) : core.healthchecks.knows(token);
    known.then(
      (yes) => {
        if (!yes) return answer(res, 404, 'Not found', { connection: 'close' });
        if (req.method === 'POST') return void headOfBody(req, MAX_PING_BODY_BYTES).then(submit).catch(failed);
        // A GET or HEAD with a body: the body is not kept.
        req.resume();
        submit(null);
      },
      () => {
        // The store cannot be read (PostgreSQL unreachable): nothing can be stored either.
        answer(res, 503, 'Ping not stored, try again', { connection: 'close', 'retry-after': '5' });
      },
    );
    return true;
  };
}
