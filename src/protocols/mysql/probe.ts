import { connect } from 'node:net';
import { createConnection, type Connection } from 'mysql2/promise';
import type { CheckOutcome } from '../../domain/check.ts';
import { describeNetworkError } from '../errors.ts';
import type { ProbeFactory } from '../types.ts';

/**
 * MySQL/MariaDB checks with mysql2: connect from `probe.source_address` when set, authenticate,
 * `SELECT 1`, close; within the check's timeout. Reasons are the server's own (`Access denied for
 * user 'app'@'10.0.0.5' (using password: YES)`, `Unknown database 'x'`) or the network's.
 */
export const mysqlProbe: ProbeFactory = (options) => ({
  async check(spec): Promise<CheckOutcome> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const ms = spec.timeoutSeconds * 1000;
    const u = new URL(spec.target.url);
    let conn: Connection | null = null;
    try {
      conn = await createConnection({
        host: spec.target.host,
        port: spec.target.port ?? 3306,
        user: decodeURIComponent(u.username),
        password: decodeURIComponent(u.password),
        ...(u.pathname.length > 1 ? { database: decodeURIComponent(u.pathname.slice(1)) } : {}),
        connectTimeout: ms,
        // mysql2 takes a `localAddress` option but never uses it; a stream factory does the binding.
        ...(options.sourceAddress ? { stream: () => connect({ host: spec.target.host, port: spec.target.port ?? 3306, localAddress: options.sourceAddress }) } : {}),
      });
      conn.on('error', () => {}); // a server gone after the check must not crash the process
      await conn.query({ sql: 'SELECT 1', timeout: ms });
      return { ok: true, latencyMs: latency(), statusCode: 0, reason: null };
    } catch (e) {
      const err = e as Error & { sqlMessage?: string; code?: string };
      const reason = err.sqlMessage ?? (err.code === 'ETIMEDOUT' || err.code === 'PROTOCOL_SEQUENCE_TIMEOUT' ? `Timeout after ${spec.timeoutSeconds} s` : describeNetworkError(e, spec.target.host, spec.timeoutSeconds));
      return { ok: false, latencyMs: latency(), statusCode: 0, reason };
    } finally {
      await conn?.end().catch(() => conn?.destroy());
    }
  },
  async close() {},
});
