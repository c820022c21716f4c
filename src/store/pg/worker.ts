/**
 * The PostgreSQL driver's worker thread (issue 22, BRIEF "design decisions"): owns the `pg` pool,
 * answers the main thread's synchronous calls one at a time, pins one client between `begin` and
 * `commit`/`rollback`, and knows when the database is down: after a connection-class error it sets
 * the shared DOWN flag (the main thread then fails fast without a round trip) and probes with
 * `SELECT 1` at a growing interval (200 ms doubling to 5 s) until the database answers again.
 *
 * A request the main thread gave up waiting for (`abandon`, issue 31 point 1) never runs after that:
 * one still queued is skipped (a `commit` becomes a `ROLLBACK`), one in flight has its connection
 * destroyed (the server rolls back what that session had open as soon as it sees the close), and a
 * `begin` that completes after its caller gave up is rolled back at once. A committing statement
 * (COMMIT, a one-statement transaction, a write outside a transaction) already handed to its
 * connection may still commit: the worker answers every `abandon` at once with whether it was
 * (`AbandonAck`), and the main thread answers `store.outcome_unknown` then, `store.unavailable` otherwise. Before this a `begin`
 * abandoned during a network cut completed later and left its transaction open for good: every
 * later request ran inside it, nothing committed, and its locks held the whole cluster.
 *
 * Asynchronous requests (`Db.txAsync`, issue 31) arrive on a port of their own and run in parallel
 * with the chain above, each transaction on a client of a second pool (so a transaction waiting for
 * its next step from the main thread never takes a client the blocking chain needs). Abandoning one
 * of them is the same `abandon` as above, for that request alone.
 * Bundled on its own for the single executable (build.sh, SEA asset `pg-worker.cjs`).
 */
import { workerData } from 'node:worker_threads';
import pg from 'pg';
import { cancelOnServer } from './cancel.ts';
import { isConnectionError, nameOf, toBuffers, types } from './wire.ts';
import { CONFLICT, DOWN, EXITED, READY, mayWrite, type AbandonAck, type AsyncReply, type AsyncRequest, type Reply, type Request, type WorkerInit } from './protocol.ts';

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

const newPool = () => {
  const p = new pg.Pool({
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
  p.on('error', () => markDown());
  return p;
};
const pool = newPool();
/** The asynchronous requests' pool (see the module comment). */
const asyncPool = newPool();

let tx: pg.PoolClient | null = null;
/** The id of the chain's `begin` that opened {@link tx}. */
let txBegunBy = 0;
/** The highest request id the main thread gave up waiting for (requests up to it are abandoned). */
let gaveUp = 0;
/** A request being handled and the connection it is using, if any (destroyed when it is abandoned). */
interface InFlight {
  id: number;
  /** A request of the synchronous chain (abandoned with every one before it) or an asynchronous one (alone). */
  chain: boolean;
  client: pg.PoolClient | null;
  /** Its committing statement was handed to the connection (see {@link AbandonAck}). */
  sent: boolean;
}
/** The chain's request being handled. */
let current: InFlight | null = null;
/** Every request being handled, the chain's and the asynchronous ones, by id. */
const inFlight = new Map<number, InFlight>();
/** Asynchronous requests given up on while in flight. */
const abandonedOnes = new Set<number>();
const isAbandoned = (r: InFlight) => (r.chain ? r.id <= gaveUp : abandonedOnes.has(r.id));

/**
 * Ends `client`'s connection at once: its pending query fails ("Connection terminated") and the
 * server, seeing the socket close, rolls back whatever that session had open.
 */
function destroy(client: pg.PoolClient): void {
  // The error this destruction raises on an asynchronous transaction's client says nothing about the database.
  if (client.listeners('error').includes(onAsyncClientError)) {
    client.off('error', onAsyncClientError);
    client.on('error', () => undefined);
  }
  // A client checked out of the pool for one statement has no listener: its 'error' would end this thread.
  if (client.listenerCount('error') === 0) client.on('error', () => undefined);
  cancelOnServer(client, init.url);
  (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
}

/**
 * Marks requests of the chain up to `id` abandoned, or with `one` the asynchronous request `id`
 * alone; one in flight among them loses its connection.
 */
function abandon(id: number, one = false): void {
  if (!one) gaveUp = Math.max(gaveUp, id);
  else if (inFlight.has(id)) abandonedOnes.add(id);
  for (const r of inFlight.values()) if (r.client && isAbandoned(r)) destroy(r.client);
  // A `begin` given up on after the server had answered it: its caller threw from `begin`, so no
  // commit or rollback will come, and the next call (another caller's) would run inside it. Its
  // connection is ended instead; the server rolls the transaction back.
  if (!one && tx && txBegunBy === id) {
    const client = tx;
    tx = null;
    client.off('error', onTxError);
    client.on('error', () => undefined);
    client.release(true);
  }
}

/** Thrown for a request abandoned before or while it ran (answered, but nobody reads the answer). */
const abandonedError = () => Object.assign(new Error('the caller gave up waiting for this request'), { code: 'PHAROS_ABANDONED' });
let txBroken = false;
const onTxError = () => {
  txBroken = true;
  markDown();
};
let probing = false;

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

async function handle(req: Exclude<Request, { op: 'abandon' }>): Promise<Reply> {
  const id = req.id;
  try {
    switch (req.op) {
      case 'query':
      case 'exec': {
        if (id <= gaveUp) throw abandonedError();
        const q = req.op === 'query' ? { name: nameOf(req.text), text: req.text, values: toBuffers(req.values) } : req.text;
        if (tx) {
          current!.client = tx;
          const r = await tx.query(q);
          return { id, ok: true, rows: r.rows, changes: r.rowCount ?? 0 };
        }
        // A client of its own (not pool.query), so an abandoned request's connection can be destroyed.
        const client = await pool.connect();
        current!.client = client;
        try {
          if (id <= gaveUp) throw abandonedError();
          // A write outside a transaction commits by itself: its lost connection leaves the outcome unknown.
          current!.sent = mayWrite(req.text);
          const r = await client.query(q);
          client.release();
          return { id, ok: true, rows: r.rows, changes: r.rowCount ?? 0 };
        } catch (e) {
          client.release(e as Error);
          throw e;
        }
      }
      case 'begin': {
        if (id <= gaveUp) throw abandonedError();
        if (tx) throw new Error('a transaction is already open');
        const client = await pool.connect();
        current!.client = client;
        try {
          if (id <= gaveUp) throw abandonedError();
          await client.query('BEGIN');
          // Its caller gave up while BEGIN was on its way: nobody will commit or roll this back.
          if (id <= gaveUp) {
            await client.query('ROLLBACK');
            throw abandonedError();
          }
        } catch (e) {
          client.release(e as Error);
          throw e;
        }
        tx = client;
        txBegunBy = id;
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
        current!.client = client;
        // A commit its caller gave up on (it answered 503) must not save anything later.
        const commit = req.op === 'commit' && id > gaveUp;
        try {
          current!.sent = commit;
          // The error listener stays until the answer: a connection destroyed meanwhile (abandon) emits
          // 'error', which without a listener would kill this thread.
          await client.query(commit ? 'COMMIT' : 'ROLLBACK');
        } catch (e) {
          client.off('error', onTxError);
          client.release(e as Error);
          throw e;
        }
        client.off('error', onTxError);
        client.release(txBroken ? true : undefined);
        if (req.op === 'commit' && !commit) throw abandonedError();
        return { id, ok: true, rows: [], changes: 0 };
      }
      case 'close':
        // Asynchronous transactions still open (their caller is going away) end with their connections.
        for (const c of asyncTxs.values()) destroy(c);
        await Promise.all([pool.end(), asyncPool.end()]);
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
    // A lost connection leaves the outcome of a committing statement it had sent unknown.
    return { id, ok: false, message: err.message, code: err.code, unavailable: unavailable || err.code === '57014', outcomeUnknown: unavailable && current!.sent };
  }
}

// A replacement for a worker that died starts with DOWN set: find out whether the database answers.
if (Atomics.load(state, DOWN) === 1) void probe();

// Requests are handled strictly in order (the main thread waits for each, but a request it gave up
// on may still be running when the next arrives).
let chain: Promise<void> = Promise.resolve();
port.on('message', (req: Request) => {
  if (req.op === 'abandon') {
    const sent = inFlight.get(req.id)?.sent === true;
    abandon(req.id);
    port.postMessage({ id: req.id, abandonAck: true, sent } satisfies AbandonAck);
    Atomics.notify(state, READY);
    return;
  }
  chain = chain.then(async () => {
    current = { id: req.id, chain: true, client: null, sent: false };
    inFlight.set(req.id, current);
    const reply = await handle(req);
    inFlight.delete(req.id);
    current = null;
    port.postMessage(reply);
    Atomics.store(state, READY, req.id);
    Atomics.notify(state, READY);
  });
});

/** The open asynchronous transactions' clients, by the main thread's transaction number. */
const asyncTxs = new Map<number, pg.PoolClient>();
const onAsyncClientError = () => markDown();

/** The last step answered of each open asynchronous transaction, by transaction number. */
const lastStepOf = new Map<number, number>();

/** Ends asynchronous transaction `tx`'s use of `client`: back to the pool, or destroyed with `err`. Once only. */
function endAsync(tx: number, client: pg.PoolClient, err?: Error): void {
  // An abandoned step and a rollback that followed it may both end the same transaction.
  if (asyncTxs.get(tx) !== client) return;
  asyncTxs.delete(tx);
  lastStepOf.delete(tx);
  client.off('error', onAsyncClientError);
  client.release(err);
}

/**
 * Ends the open transaction whose last answered step is `id`: its caller gave up after the worker had
 * answered (the answer unread), so no further step, commit or rollback will come for it. Its
 * connection is closed; the server rolls the transaction back.
 */
function endAnswered(id: number): void {
  for (const [tx, step] of lastStepOf) {
    if (step !== id) continue;
    const client = asyncTxs.get(tx);
    if (client) {
      client.on('error', () => undefined);
      endAsync(tx, client, new Error('the caller gave up after this step was answered'));
    }
    lastStepOf.delete(tx);
  }
}

/** A step that is a whole transaction of one statement (run without BEGIN/COMMIT). */
const single = (req: AsyncRequest & { op: 'step' }) => req.begin && req.end === 'commit' && req.queries.length === 1;

/** Runs one step of an asynchronous transaction (see {@link AsyncRequest}). */
async function handleStep(req: AsyncRequest & { op: 'step' }, self: InFlight): Promise<AsyncReply> {
  const { id, tx } = req;
  let client = asyncTxs.get(tx) ?? null;
  try {
    if (!client) {
      if (!req.begin) {
        if (req.end === 'rollback') return { id, ok: true, results: [] };
        throw new Error('the asynchronous transaction is gone (rolled back after an error or abandoned)');
      }
      if (isAbandoned(self)) throw abandonedError();
      client = await asyncPool.connect();
      self.client = client;
      // A pinned client losing its server between two steps must not kill the thread.
      client.on('error', onAsyncClientError);
      asyncTxs.set(tx, client);
      if (isAbandoned(self)) throw abandonedError();
      // One statement that is the whole transaction is atomic by itself: no BEGIN/COMMIT round trips.
      if (!single(req)) await client.query('BEGIN');
    } else self.client = client;
    const results: Array<{ rows: Record<string, unknown>[]; changes: number }> = [];
    for (const q of req.queries) {
      if (isAbandoned(self)) throw abandonedError();
      // Checked and set in one turn of this loop: an `abandon` handled later knows it was sent.
      self.sent = single(req);
      const r = await client.query({ name: nameOf(q.text), text: q.text, values: toBuffers(q.values) });
      if (q.expectChanges !== undefined && r.rowCount !== q.expectChanges) throw Object.assign(new Error('the rows changed since they were read'), { code: CONFLICT });
      results.push({ rows: r.rows, changes: r.rowCount ?? 0 });
    }
    if (req.end) {
      // A commit its caller gave up on must not save anything later (as the chain's).
      if (isAbandoned(self)) throw abandonedError();
      self.sent = req.end === 'commit';
      if (!single(req)) await client.query(req.end === 'commit' ? 'COMMIT' : 'ROLLBACK');
      endAsync(tx, client);
    }
    // The database answered: the synchronous calls need not wait for the probe's next try (up to 5 s)
    // to stop failing fast.
    if (Atomics.load(state, DOWN) === 1) Atomics.store(state, DOWN, 0);
    return { id, ok: true, results };
  } catch (e) {
    // Any error ends the transaction. A statement's error (a conflict, a constraint): ROLLBACK and the
    // client goes back to the pool; otherwise its connection is dropped, so the server rolls back.
    if (client) {
      const healthy = !isConnectionError(e) && !isAbandoned(self) && asyncTxs.get(tx) === client;
      if (healthy && !single(req)) await client.query('ROLLBACK').then(() => endAsync(tx, client!), () => endAsync(tx, client!, e as Error));
      else endAsync(tx, client, healthy ? undefined : (e as Error));
    }
    // The connection a caller's giving up destroyed says nothing about the database.
    const unavailable = isConnectionError(e);
    if (unavailable && !isAbandoned(self)) markDown();
    const err = e as Error & { code?: string };
    // A lost connection leaves the outcome of a committing statement it had sent unknown.
    return { id, ok: false, message: err.message, code: err.code, unavailable: unavailable || err.code === '57014', outcomeUnknown: unavailable && self.sent };
  }
}

init.asyncPort.on('message', (req: AsyncRequest) => {
  if (req.op === 'abandon') {
    const sent = inFlight.get(req.id)?.sent === true;
    abandon(req.id, true);
    endAnswered(req.id);
    init.asyncPort.postMessage({ id: req.id, abandonAck: true, sent } satisfies AbandonAck);
    if (req.timedOut) markDown();
    return;
  }
  const self: InFlight = { id: req.id, chain: false, client: null, sent: false };
  inFlight.set(req.id, self);
  void handleStep(req, self).then((reply) => {
    inFlight.delete(req.id);
    abandonedOnes.delete(req.id);
    if (reply.ok && asyncTxs.has(req.tx)) lastStepOf.set(req.tx, req.id);
    init.asyncPort.postMessage(reply);
  });
});
