import type { MessagePort } from 'node:worker_threads';
import { AppError } from '../lib/errors.ts';

/**
 * The wire between the main thread's `store.async` on PostgreSQL (store/host-client.ts) and the store
 * host thread (store/host-server.ts, started from src/store-host.ts). Requests are answered in order,
 * one at a time; a request the main thread gave up on is named on the control port and the host's
 * PostgreSQL driver is woken through the shared state's READY slot (pg/protocol.ts), so the call
 * waiting there abandons its statement at once (pg/driver.ts `cancelled`).
 */

/** What the host thread is started with (`workerData`). */
export interface HostInit {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  /** The host driver's shared state (pg/protocol.ts slots), made by the main thread so it can wake a waiting call. */
  state: SharedArrayBuffer;
  /** Requests ({@link HostRequest}) and answers ({@link HostReply}). */
  port: MessagePort;
  /** Ids of requests the main thread gave up on (`{ cancel: id }`), read by the host while it waits. */
  control: MessagePort;
  /** Inside the single executable: the PostgreSQL worker's bundled code (SEA asset pg-worker.cjs). */
  pgWorkerCode?: string | undefined;
}

/** A module call `store.<module>.<fn>(...args)` or a procedure run in `store.tx`. */
export type HostRequest =
  | { id: number; kind: 'call'; module: string; fn: string; args: unknown[] }
  | { id: number; kind: 'tx'; name: string; args: unknown };

/** An error as it crosses the thread boundary. */
export interface WireError {
  message: string;
  /** AppError's HTTP status, when it was one. */
  status?: number | undefined;
  /** AppError's code or a driver error's SQLSTATE. */
  code?: string | undefined;
  details?: ReadonlyArray<{ path: string; message: string }> | undefined;
}

/** The answer to a {@link HostRequest}. */
export type HostReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WireError };

/** `e` as it crosses the thread boundary. */
export function toWire(e: unknown): WireError {
  if (e instanceof AppError) return { message: e.message, status: e.status, code: e.code, details: e.details };
  const err = e as Error & { code?: unknown };
  return { message: err?.message ?? String(e), code: typeof err?.code === 'string' ? err.code : undefined };
}

/** The error a {@link WireError} stands for: an AppError again when it was one. */
export function fromWire(w: WireError): Error {
  if (w.status !== undefined && w.code !== undefined) return new AppError(w.status, w.code, w.message, w.details);
  const err = new Error(w.message) as Error & { code?: string };
  if (w.code !== undefined) err.code = w.code;
  return err;
}

/**
 * `v` with the Uint8Arrays structured cloning made of Buffers turned back into Buffers (in place,
 * through arrays, plain objects and Maps; what the store takes and returns holds them at most a few
 * levels deep).
 */
export function revive(v: unknown, depth = 0): unknown {
  if (v instanceof Uint8Array) return Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  if (v === null || typeof v !== 'object' || depth > 6) return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = revive(v[i], depth + 1);
  } else if (v instanceof Map) {
    for (const [k, x] of v) v.set(k, revive(x, depth + 1));
  } else if (Object.getPrototypeOf(v) === Object.prototype) {
    const o = v as Record<string, unknown>;
    for (const k in o) {
      const x = o[k];
      if (x !== null && typeof x === 'object') o[k] = revive(x, depth + 1);
    }
  }
  return v;
}
