import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpDeps } from './context.ts';

const PREFIX = '/api/push/';
const TOKEN = /^[A-Za-z0-9_-]{1,100}$/;

/** A JSON answer as Kuma gives it (`{ok, msg?}`). */
function answer(res: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

/**
 * Uptime Kuma's push URL `<public_url>/api/push/<kuma token>?status=up|down&msg=…&ping=…` for push
 * monitors brought over by `pharos import kuma` (issue 36), so the jobs that push need no edit. The
 * Kuma token is looked up in the import's id map (`pushAlias`: pharos.ts passes `store.async.kumaImports.pushAlias`) and
 * the request becomes a ping of that healthcheck through `core.healthchecks.ping`, as `/ping/<tok>`
 * would: `status=down` → a `fail` signal, anything else a success; `msg` (first 10 KB) is the ping's
 * body; `ping` (Kuma's response time) is not kept. GET, HEAD or POST (the body is not read);
 * answers as Kuma does: 200 `{"ok":true}`, 404 `{"ok":false,"msg":"Monitor not found or not active."}`.
 * Borrowed from Kuma's server/routers/api-router.js (`/api/push/:pushToken`).
 * @returns a listener that handles `/api/push/…` and returns false for anything else
 */
export function kumaPushHandler(deps: Pick<HttpDeps, 'core' | 'clock' | 'logger'> & { pushAlias: (kumaToken: string) => Promise<string | undefined> }) {
  const { core, clock, logger, pushAlias } = deps;
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '';
    if (!url.startsWith(PREFIX)) return false;
    req.resume();
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'POST') {
      answer(res, 405, { ok: false, msg: 'Method not allowed' });
      return true;
    }
    const q = url.indexOf('?');
    const token = decodeURIComponent(url.slice(PREFIX.length, q < 0 ? undefined : q).replace(/\/+$/, ''));
    const params = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    const notFound = () => answer(res, 404, { ok: false, msg: 'Monitor not found or not active.' });
    if (!TOKEN.test(token)) {
      notFound();
      return true;
    }
    const failed = (e: unknown) => {
      const code = (e as { code?: string }).code;
      if (code === 'store.outcome_unknown') logger.warn('kuma push may or may not be stored: the connection to the database was lost while it committed');
      else if (code !== 'store.unavailable') logger.error('kuma push failed', { error: (e as Error).message });
      if (!res.headersSent) answer(res, 503, { ok: false, msg: code === 'store.outcome_unknown' ? 'Ping may not be stored (the database connection was lost), try again' : 'Ping not stored, try again' });
    };
    pushAlias(token)
      .then(async (tok) => {
        if (!tok) return notFound();
        const ua = req.headers['user-agent'];
        const msg = params.get('msg');
        const stored = await core.healthchecks.ping(tok, {
          kind: params.get('status') === 'down' ? 'fail' : 'success',
          exitCode: null,
          at: clock.now(),
          method: req.method!,
          sourceIp: req.socket.remoteAddress ?? null,
          userAgent: ua ? ua.slice(0, 512) : null,
          body: msg ? msg.slice(0, 10_000) : null,
        });
        if (stored) answer(res, 200, { ok: true });
        else notFound();
      })
      .catch(failed);
    return true;
  };
}
