import { JSONPath } from 'jsonpath-plus';
import { MongoClient, type Document } from 'mongodb';
import type { CheckOutcome } from '../../domain/check.ts';
import { describeNetworkError } from '../errors.ts';
import type { ProbeFactory } from '../types.ts';

/** The database a connection string names (`mongodb://h/app?…` → `app`), else `admin`. */
function databaseOf(url: string): string {
  const m = /^mongodb(?:\+srv)?:\/\/[^/?#]*\/([^?#]+)/.exec(url.trim());
  return m?.[1] ? decodeURIComponent(m[1]) : 'admin';
}

/** A failed connect or command as a reason: the server's own words, or the network's. */
function mongoReason(err: unknown, host: string, timeoutSeconds: number): string {
  const e = err as { name?: unknown; message?: unknown; code?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  // The server answered: its errmsg is the reason (`Authentication failed.`, `command … requires authentication`).
  if (e.name === 'MongoServerError') return message;
  if (/ECONNREFUSED/.test(message)) return 'Connection refused';
  if (/ENOTFOUND|EAI_AGAIN|querySrv/.test(message)) return `DNS lookup failed for ${host}`;
  if (/ECONNRESET|closed/i.test(message)) return 'Connection reset';
  if (e.name === 'MongoServerSelectionError' || e.name === 'MongoOperationTimeoutError' || /timed out/i.test(message)) return `Timeout after ${timeoutSeconds} s`;
  if (typeof e.code === 'string') return describeNetworkError(err, host, timeoutSeconds);
  return message;
}

const quote = (s: string) => JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s);

/**
 * MongoDB checks with the official `mongodb` driver (this file, and so the driver, is loaded on the
 * first mongodb check): one client per check (pool of one, no retried reads, no compression),
 * every wait bounded by the check's timeout (server selection, connect, socket, and the command's
 * `timeoutMS`), from `probe.source_address` when set; the client is closed after. Reasons: the
 * server's errmsg (`Authentication failed.`, `command serverStatus requires authentication`, `no
 * such command: 'x'`), `$.repl.primary was "db2", expected "db1"`, `$.x matched nothing in the
 * reply`, `Connection refused`, `Timeout after 5 s` (no server selectable in time), DNS errors.
 */
export const mongodbProbe: ProbeFactory = (options) => ({
  async check(spec): Promise<CheckOutcome> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const ms = spec.timeoutSeconds * 1000;
    const host = spec.target.host;
    const s = spec.settings;
    const client = new MongoClient(spec.target.url, {
      appName: 'pharos',
      maxPoolSize: 1,
      minPoolSize: 0,
      retryReads: false,
      retryWrites: false,
      serverSelectionTimeoutMS: ms,
      connectTimeoutMS: ms,
      socketTimeoutMS: ms,
      ...(options.sourceAddress ? { localAddress: options.sourceAddress } : {}),
    });
    try {
      const command = s.mongodb_command ? (JSON.parse(String(s.mongodb_command)) as Document) : { ping: 1 };
      const reply = await client.db(databaseOf(spec.target.url)).command(command, { timeoutMS: ms });
      const path = s.mongodb_json_path ? String(s.mongodb_json_path) : null;
      let reason: string | null = null;
      if (path) {
        const found = JSONPath({ path, json: JSON.parse(JSON.stringify(reply)) as object, wrap: true, eval: 'safe' }) as unknown[];
        const expected = s.mongodb_expected === null || s.mongodb_expected === undefined || s.mongodb_expected === '' ? null : String(s.mongodb_expected);
        if (found.length === 0) reason = `${path} matched nothing in the reply`;
        else if (expected !== null) {
          const text = typeof found[0] === 'string' ? found[0] : JSON.stringify(found[0]);
          if (text !== expected) reason = `${path} was ${quote(text)}, expected ${quote(expected)}`;
        }
      }
      return { ok: reason === null, latencyMs: latency(), statusCode: 0, reason };
    } catch (e) {
      return { ok: false, latencyMs: latency(), statusCode: 0, reason: mongoReason(e, host, spec.timeoutSeconds) };
    } finally {
      await client.close().catch(() => undefined);
    }
  },
  async close() {},
});
