import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/** Requests of the app started per event-loop turn at most (the rest wait for the next turns). */
export const REQUESTS_PER_TURN = 32;
/** Requests waiting at most; more are answered 503 at once (a rush must not grow memory without bound). */
export const MAX_WAITING_REQUESTS = 20_000;

/**
 * Bounds the work the HTTP app (status pages, API) does per event-loop turn, so that due checks
 * (timers) and pings (answered before this, in front of the app) run between batches even when a
 * crowd opens a status page (issue 21): at most `perTurn` requests start in one turn, the others
 * queue (FIFO) and start in later turns (`setImmediate`, so timers and I/O run in between). A
 * request whose client went away while waiting is dropped; past `maxWaiting` waiting requests the
 * newcomer gets `503` with `Retry-After: 1`.
 * @param listener the app's request listener
 */
export function fairListener(listener: RequestListener, perTurn = REQUESTS_PER_TURN, maxWaiting = MAX_WAITING_REQUESTS): RequestListener {
  const waiting: Array<[IncomingMessage, ServerResponse]> = [];
  let started = 0;
  let scheduled = false;
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(turn);
  };
  const turn = () => {
    scheduled = false;
    started = 0;
    while (started < perTurn && waiting.length > 0) {
      const [req, res] = waiting.shift()!;
      if (req.destroyed || res.destroyed) continue;
      started++;
      listener(req, res);
    }
    if (waiting.length > 0 || started > 0) schedule();
  };
  return (req, res) => {
    if (waiting.length === 0 && started < perTurn) {
      started++;
      schedule();
      listener(req, res);
      return;
    }
    if (waiting.length >= maxWaiting) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1' }).end('busy, retry in a second');
      return;
    }
    waiting.push([req, res]);
    schedule();
  };
}
