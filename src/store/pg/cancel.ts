/** PostgreSQL's out-of-band cancel, for the driver's worker thread (pg/worker.ts). */
import pg from 'pg';

/**
 * Sends PostgreSQL's CancelRequest for what `client`'s backend runs now (pg's `Client.cancel`, on a
 * connection of its own): a server sees a closed socket only when it next reads or writes it, so a
 * long statement would otherwise run on to its statement_timeout after its caller gave up. Fire and
 * forget; a server that does not answer (frozen, cut off) gets 10 s before the attempt is dropped.
 * @param url the pool's connection string (the same server and credentials)
 */
export function cancelOnServer(client: pg.PoolClient, url: string): void {
  const { processID, secretKey } = client as unknown as { processID: number | null; secretKey: number | null };
  if (processID === null || secretKey === null) return;
  const target = new pg.Client({ connectionString: url }) as unknown as { host: string; port: number; connection: CancelConnection };
  const con = target.connection;
  const stop = setTimeout(() => con.stream.destroy(), 10_000);
  con.on('error', () => clearTimeout(stop));
  con.on('end', () => clearTimeout(stop));
  con.once('connect', () => con.cancel(processID, secretKey));
  if (target.host.startsWith('/')) con.connect(`${target.host}/.s.PGSQL.${target.port}`);
  else con.connect(target.port, target.host);
}

/** What {@link cancelOnServer} uses of pg's (untyped) Connection. */
interface CancelConnection {
  stream: { destroy(): void };
  on(event: 'error' | 'end', fn: () => void): void;
  once(event: 'connect', fn: () => void): void;
  connect(portOrPath: number | string, host?: string): void;
  cancel(processID: number, secretKey: number): void;
}
