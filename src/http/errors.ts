import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ZodError } from 'zod';
import { AppError } from '../lib/errors.ts';
import type { Logger } from '../lib/logger.ts';

/**
 * Error body of every endpoint: `{error, message, code}` with the same text in `error` and `message`
 * (API.md §7 clients read `error`, the hosted service's clients read `message`), the AppError's dotted
 * `code` (e.g. `monitors.not_found`, issue 14 point 22), plus `details` for validation (CONTRACT.md).
 */
export function errorBody(message: string, details?: ReadonlyArray<{ path: string; message: string }>, code?: string) {
  const body: { error: string; message: string; code?: string; details?: ReadonlyArray<{ path: string; message: string }> } = { error: message, message };
  if (code) body.code = code;
  if (details && details.length) body.details = details;
  return body;
}

/** Dotted `code` of the errors Hono raises itself (malformed JSON, body too large, wrong media type). */
const HTTP_CODES: Record<number, string> = { 400: 'request.malformed', 404: 'request.not_found', 405: 'request.method_not_allowed', 413: 'request.too_large', 415: 'request.unsupported_media_type' };

/** A ZodError as a 400 AppError whose message names the first field and its rule, e.g. `check_frequency: must be one of …`. */
export function fromZodError(err: ZodError, target: string): AppError {
  const details = err.issues.map((i) => {
    let path = i.path.map(String).join('.');
    let message = i.message;
    if (!path) path = target === 'json' ? '(body)' : target;
    if (path === '(body)' && i.code === 'invalid_type') message = 'must be a JSON object';
    return { path, message };
  });
  const first = details[0] ?? { path: target, message: 'is invalid' };
  return new AppError(400, 'validation.invalid', `${first.path}: ${first.message}`, details);
}

/** Hook for @hono/zod-openapi: turn a failed validation into our 400. */
export function validationHook(result: { success: boolean; error?: unknown; target?: string }, _c: Context): void {
  if (!result.success) throw fromZodError(result.error as ZodError, result.target ?? 'json');
}

/**
 * The app's error handler: AppError → its status; Hono's HTTPException (malformed JSON → 400,
 * body too large → 413, unsupported media type → 415) → same status; SQLite's SQLITE_FULL / SQLITE_BUSY
 * (disk full, lock timeout; the transaction rolled back) → 503 with Retry-After; anything else is our bug:
 * logged with the request path, answered 500 without internals.
 */
export function errorHandler(logger: Logger) {
  return (err: Error, c: Context) => {
    if (err instanceof AppError) {
      if (err.status === 401) c.header('WWW-Authenticate', 'Bearer');
      // store.unavailable (PostgreSQL unreachable): the client may retry shortly; the store recovers by itself.
      if (err.status === 503) c.header('Retry-After', '5');
      // The one answer the client cannot act on blindly: say so to the operator too (pg/driver.ts outcomeUnknown).
      if (err.code === 'store.outcome_unknown') logger.warn('a change may or may not have been saved: the connection to the database was lost while it committed', { method: c.req.method, path: c.req.path });
      return c.json(errorBody(err.message, err.details, err.code), err.status as 400);
    }
    if (err instanceof HTTPException) {
      const status = err.status;
      // The unread rest of a refused body would poison a kept-alive connection: close it.
      if (status === 413) c.header('Connection', 'close');
      const message = status === 413 ? 'request body larger than 1 MiB' : err.message || 'bad request';
      return c.json(errorBody(message, undefined, HTTP_CODES[status] ?? 'request.invalid'), status);
    }
    const sqlite = (err as { code?: unknown }).code;
    if (sqlite === 'SQLITE_FULL' || sqlite === 'SQLITE_BUSY') {
      // The write was rolled back; the client may try again once the operator freed space (or the lock passed).
      logger.error(sqlite === 'SQLITE_FULL' ? 'write refused: the disk (or the database size limit) is full' : 'write refused: the database is locked', { method: c.req.method, path: c.req.path });
      c.header('Retry-After', '60');
      return c.json(errorBody(sqlite === 'SQLITE_FULL' ? 'storage full: the change was not saved, try again later' : 'storage busy: the change was not saved, try again'), 503);
    }
    logger.error('unhandled error', { method: c.req.method, path: c.req.path, error: err.message, stack: err.stack });
    return c.json(errorBody('internal error', undefined, 'internal'), 500);
  };
}

/**
 * node:http's `clientError` handler: a request Node itself refuses before any route sees it
 * (malformed request line or header, header block over the limit, a header timeout) is answered in
 * the API's JSON error shape instead of Node's bare `400 Bad Request`, then the connection closes.
 * Nothing is written to a socket that is already gone (reset by the peer, or mid-response).
 */
export function clientErrorHandler() {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || !socket.writable || (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, message] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'request header fields too large']
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'request timeout: the request headers did not arrive in time']
          : [400, 'malformed HTTP request'];
    const body = JSON.stringify(errorBody(message));
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  };
}
