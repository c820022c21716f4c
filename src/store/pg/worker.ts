/**
 * The PostgreSQL driver's worker thread (issue 22, BRIEF "design decisions"): owns the `pg` pool,
 * answers the main thread's synchronous calls one at a time, pins one client between `begin` and
 * `commit`/`rollback`, and knows when the database is down: after a connection-class error it sets
 * the shared DOWN flag (the main thread then fails fast without a round trip) and probes with
 * `SELECT 1` at a growing interval (200 ms doubling to 5 s) until the database answers again.
 * Bundled on its own for the single executable (build.sh, SEA asset `pg-worker.cjs`).
 */
import { workerData } from 'node:worker_threads';
import pg from 'pg';
import { DOWN, EXITED, READY, type Reply, type Request, type WorkerInit } from './protocol.ts';

const init = workerData as WorkerInit;
const state = new Int32Array(init.state);
const port = init.port;

// However this thread ends, the main thread must not wait for an answer that will never come.
process.on('exit', () => {
  Atomics.store(state, DOWN, 1);
  Atomics.store(state, EXITED, 1);
  Atomics.store(state, READY, -1);
  Atomics.notify(state, READY);
});

// int8 (count(*), bigint columns: epoch ms) and numeric (sum of int8) come back as JS numbers, and
// booleans (`x IS NOT NULL AS flag`) as 1/0, as SQLite returns them; other types keep pg's parser.
const bool = (v: string) => (v === 't' ? 1 : 0);
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === 20 || oid === 1700 ? Number : oid === 16 ? bool : pg.types.getTypeParser(oid, format as 'text')),
};
const pool = new pg.Pool({
  connectionString: init.url,
  max: init.poolSize,
  statement_timeout: init.statementTimeoutMs,
  connectionTimeoutMillis: 3000,
  idleTimeoutMillis: 60_000,
  keepAlive: true,
  application_name: 'pharos',
  types,
} as pg.PoolConfig);
// An idle client losing its server (a restart) must not kill the thread: the next query finds out.
pool.on('error', () => markDown());

let tx: pg.PoolClient | null = null;
let txBroken = false;
const onTxError = () => {
  txBroken = true;
  markDown();
};
const names = new Map<string, string>();
let probing = false;

/** Errors that mean "the server cannot be reached", as opposed to a bad statement. */
function isConnectionError(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  const msg = (e as Error).message ?? '';
  return (
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|57P01|57P02|57P03|53300)$/.test(code) ||
    code.startsWith('08') ||
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(msg)
  );
}

function markDown(): void {
  Atomics.store(state, DOWN, 1);
  void probe();
}

async function probe(): Promise<void> {
  if (probing) return;
  probing = true;
  let wait = 200;
  for (;;) {
    await new Promise((r) => setTimeout(r, wait));
    try {
      await pool.query('SELECT 1');
      Atomics.store(state, DOWN, 0);
      probing = false;
      return;
    } catch {
      wait = Math.min(wait * 2, 5000);
    }
  }
}

/** The prepared-statement name of a text (pg prepares it once per connection). */
function nameOf(text: string): string {
  let n = names.get(text);
  if (!n) names.set(text, (n = `p${names.size + 1}`));
  return n;
}

const toBuffers = (values: unknown[]) => values.map((v) => (v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v));

async function handle(req: Request): Promise<Reply> {
  const id = req.id;
  try {
    switch (req.op) {
      case 'query': {
        const q = { name: nameOf(req.text), text: req.text, values: toBuffers(req.values) };
        const r = tx ? await tx.query(q) : await pool.query(q);
        return { id, ok: true, rows: r.rows, changes: r.rowCount ?? 0 };
      }
      case 'exec': {
        if (tx) await tx.query(req.text);
        else await pool.query(req.text);
        return { id, ok: true, rows: [], changes: 0 };
      }
      case 'begin': {
        if (tx) throw new Error('a transaction is already open');
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
        } catch (e) {
          client.release(e as Error);
          throw e;
        }
        tx = client;
        txBroken = false;
        // A pinned client losing its server between two statements must not kill the thread.
        client.on('error', onTxError);
        return { id, ok: true, rows: [], changes: 0 };
      }
      case 'commit':
      case 'rollback': {
        const client = tx;
        tx = null;
        if (!client) return { id, ok: true, rows: [], changes: 0 };
        client.off('error', onTxError);
        try {
          await client.query(req.op === 'commit' ? 'COMMIT' : 'ROLLBACK');
          client.release(txBroken ? true : undefined);
        } catch (e) {
          client.release(e as Error);
          throw e;
        }
        return { id, ok: true, rows: [], changes: 0 };
      }
      case 'close':
        await pool.end();
        return { id, ok: true, rows: [], changes: 0 };
      case 'crash':
        setImmediate(() => {
          throw new Error('PostgreSQL store worker crashed on purpose (test hook)');
        });
        return await new Promise<never>(() => {});
    }
  } catch (e) {
    const unavailable = isConnectionError(e);
    if (unavailable) {
      if (tx) txBroken = true;
      markDown();
    }
    const err = e as Error & { code?: string };
    return { id, ok: false, message: err.message, code: err.code, unavailable: unavailable || err.code === '57014' };
  }
}

// A replacement for a worker that died starts with DOWN set: find out whether the database answers.
if (Atomics.load(state, DOWN) === 1) void probe();

// Requests are handled strictly in order (the main thread waits for each, but a request it gave up
// on may still be running when the next arrives).
let chain: Promise<void> = Promise.resolve();
port.on('message', (req: Request) => {
  chain = chain.then(async () => {
    const reply = await handle(req);
    port.postMessage(reply);
    Atomics.store(state, READY, req.id);
    Atomics.notify(state, READY);
  });
});
