import { Socket } from 'node:net';
import pg from 'pg';
import type { CheckOutcome } from '../../domain/check.ts';
import { describeNetworkError } from '../errors.ts';
import type { ProbeFactory } from '../types.ts';

/** A socket that connects from `localAddress` (pg calls `connect(port, host)` itself). */
function socketFrom(localAddress: string): () => Socket {
  return () => {
    const s = new Socket();
    const connect = s.connect.bind(s) as (o: object) => Socket;
    (s as unknown as { connect: (port: number, host: string) => Socket }).connect = (port, host) => connect({ port, host, localAddress });
    return s;
  };
}

/**
 * PostgreSQL checks with `pg`: connect (TLS as the URL's `sslmode` says), authenticate, `SELECT 1`,
 * close; every step within the check's timeout. Reasons are the server's own (`password
 * authentication failed for user "app"`, `database "x" does not exist`) or the network's.
 */
export const postgresProbe: ProbeFactory = (options) => ({
  async check(spec): Promise<CheckOutcome> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const ms = spec.timeoutSeconds * 1000;
    const client = new pg.Client({
      connectionString: spec.target.url,
      connectionTimeoutMillis: ms,
      query_timeout: ms,
      application_name: 'pharos',
      ...(options.sourceAddress ? { stream: socketFrom(options.sourceAddress) } : {}),
    });
    client.on('error', () => {}); // a server gone after the check must not crash the process
    try {
      await client.connect();
      await client.query('SELECT 1');
      return { ok: true, latencyMs: latency(), statusCode: 0, reason: null };
    } catch (e) {
      const err = e as Error & { code?: string; severity?: string };
      const reason = err.severity ? err.message : /timeout/i.test(err.message) ? `Timeout after ${spec.timeoutSeconds} s` : describeNetworkError(e, spec.target.host, spec.timeoutSeconds);
      return { ok: false, latencyMs: latency(), statusCode: 0, reason };
    } finally {
      await client.end().catch(() => {});
    }
  },
  async close() {},
});
