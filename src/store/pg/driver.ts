import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort, type Transferable } from 'node:worker_threads';
import { AppError } from '../../lib/errors.ts';
import { bundledFile, isSea } from '../../lib/sea.ts';
import { conflict, type AsyncOptions, type Db, type Query, type QueryResult, type RunResult, type Statement, type Step, type TxSteps } from '../driver.ts';
import { CONFLICT, DOWN, EXITED, READY, STATE_BYTES, mayWrite, type AbandonAck, type AsyncReply, type AsyncRequest, type Reply, type Request, type WireQuery, type WorkerInit } from './protocol.ts';
import { toPostgres, type Translated } from './translate.ts';
import { traceSyncCall } from '../sync-trace.ts';
import { outcomeUnknown, unavailable } from './errors.ts';

export { outcomeUnknown, redactUrl, unavailable } from './errors.ts';

/** How to reach PostgreSQL (config `storage.postgres_*`). */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/db`; the password is never logged nor put in an error. */
  url: string;
  poolSize: number;
  /** Server-side statement_timeout, ms; the main thread gives up waiting 5 s after it. */
  statementTimeoutMs: number;
  /**
   * The shared state (≥ {@link STATE_BYTES} bytes) when the caller must be able to wake a waiting call
   * from another thread (the store host, store/host-client.ts: `Atomics.notify` on slot READY).
   */
  state?: SharedArrayBuffer | undefined;
  /**
   * Asked whenever a synchronous call waits or starts (not for a rollback): true when the caller of
   * the work under way gave up on it (the store host's request was cancelled). The call then abandons
   * its request (nothing of it runs later, see pg/worker.ts) and throws AppError 503 `store.unavailable`.
   */
  cancelled?: (() => boolean) | undefined;
  /** The worker's bundled code (inside the single executable, when the caller is not the main thread). */
  workerCode?: string | undefined;
}

/** How long a caller that gave up on a committing request waits for the worker to say whether it was sent, ms. */
const ABANDON_ACK_MS = 1000;

/**
 * Starts the worker thread. From source it runs src/store/pg/worker.ts (Node's own type stripping);
 * inside the single executable it runs the bundled copy stored as the
 * SEA asset `pg-worker.cjs` (build.sh) with `eval: true`.
 */
function startWorker(init: WorkerInit, code?: string): Worker {
  const transfer = [init.port as unknown as Transferable, init.asyncPort as unknown as Transferable];
  if (code !== undefined) return new Worker(code, { eval: true, workerData: init, transferList: transfer });
  if (isSea()) return new Worker(bundledFile('pg-worker.cjs', '').toString('utf8'), { eval: true, workerData: init, transferList: transfer });
  // Node 24 strips the types itself; no loader flags are passed on (a `--import tsx` of the parent
  // resolves against the working directory, which need not hold node_modules).
  return new Worker(new URL('./worker.ts', import.meta.url), { workerData: init, transferList: transfer, execArgv: [] });
}

/** Rows as SQLite returns them: Buffers, not the Uint8Arrays structured cloning turns them into. */
function fixRows(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  for (const r of rows) for (const k in r) if (r[k] instanceof Uint8Array) r[k] = Buffer.from(r[k].buffer, r[k].byteOffset, r[k].byteLength);
  return rows;
}

/** The error of a failed answer: 503 when the database cannot be reached or is full, else the server's error with its SQLSTATE `code`. */
function replyError(reply: { message: string; code: string | undefined; unavailable: boolean; outcomeUnknown?: boolean | undefined }): Error {
  if (reply.outcomeUnknown) return outcomeUnknown();
  if (reply.unavailable) return unavailable();
  // disk_full: as SQLITE_FULL, the write was rolled back and the client may try again later.
  if (reply.code === '53100') return new AppError(503, 'store.full', 'storage full: the change was not saved, try again later');
  if (reply.code === CONFLICT) return conflict();
  const err = new Error(reply.message) as Error & { code?: string };
  err.code = reply.code;
  return err;
}

/** A {@link Query} as the worker runs it: translated once per text, `@name` parameters in order. */
function wire(cache: Map<string, Translated>, q: Query): WireQuery {
  let t = cache.get(q.sql);
  if (!t) cache.set(q.sql, (t = toPostgres(q.sql)));
  const values = t.names ? t.names.map((n) => (q.params[0] as Record<string, unknown>)[n] ?? null) : q.params;
  return q.expectChanges === undefined ? { text: t.text, values } : { text: t.text, values, expectChanges: q.expectChanges };
}

/**
 * Opens a PostgreSQL {@link Db}: the synchronous store interface answered by a worker thread that
 * owns a `pg` pool (issue 22 design). Each call posts one request and blocks on Atomics.wait until
 * the worker answers (~0.1–0.3 ms on loopback). While the worker knows the database is down, calls
 * throw {@link unavailable} at once; they work again by themselves once it answers.
 * Migrations are not applied here (see pg/migrate.ts).
 */
export function openPostgresDb(opts: PostgresOptions): Db {
  const state = opts.state ?? new SharedArrayBuffer(STATE_BYTES);
  const flags = new Int32Array(state);
  let port1: MessagePort;
  let asyncPort: MessagePort;
  let worker: Worker;
  /** Asynchronous requests waiting for their answer, by id. */
  const pending = new Map<number, (reply: AsyncReply | AbandonAck) => void>();
  /** Fails every asynchronous request waiting on a worker that is gone. */
  const failPending = () => {
    for (const settle of pending.values()) settle({ id: 0, ok: false, message: 'the store worker exited', code: undefined, unavailable: true });
    pending.clear();
  };
  // A worker that died (a bug, never a database outage: those are answered) is replaced at the next
  // call; meanwhile DOWN is set, so calls fail fast with 503 until the new worker reaches the database.
  // A call waiting when it dies is woken by the worker's exit hook (EXITED) and fails with 503 at once.
  // EXITED is also set here on the worker's 'exit' event (a terminate() may end it without its hook).
  const start = () => {
    Atomics.store(flags, EXITED, 0);
    const channel = new MessageChannel();
    const asyncChannel = new MessageChannel();
    port1 = channel.port1 as MessagePort;
    asyncPort = asyncChannel.port1 as MessagePort;
    asyncPort.on('message', (reply: AsyncReply | AbandonAck) => pending.get(reply.id)?.(reply));
    // The port keeps the process alive only while an answer is awaited (see sendAsync).
    asyncPort.unref();
    const w = startWorker({
      url: opts.url,
      poolSize: opts.poolSize,
      statementTimeoutMs: opts.statementTimeoutMs,
      state,
      port: channel.port2 as MessagePort,
      asyncPort: asyncChannel.port2 as MessagePort,
    }, opts.workerCode);
    worker = w;
    w.unref();
    // Without a listener an uncaught error in the worker would be rethrown here and end the process.
    w.on('error', () => {});
    w.once('exit', () => {
      if (closed || w !== worker) return;
      Atomics.store(flags, DOWN, 1);
      Atomics.store(flags, EXITED, 1);
      failPending();
    });
  };
  /** Replaces a worker that died (see above). */
  const ensureWorker = () => {
    if (Atomics.load(flags, EXITED) === 1) {
      port1.close();
      asyncPort.close();
      failPending();
      start();
    }
  };
  start();
  let nextId = 0;
  let depth = 0;
  let closed = false;
  const waitMs = opts.statementTimeoutMs + 5000;

  type Body = Request extends infer R ? (R extends Request ? Omit<R, 'id'> : never) : never;
  const call = (req: Body, failFast = true): Reply & { ok: true } => {
    if (closed) throw new Error('the PostgreSQL store is closed');
    // Closing the pool at shutdown is no statement (and the loop serves no one by then).
    if (req.op !== 'close') traceSyncCall('text' in req ? req.text : req.op);
    ensureWorker();
    if (failFast && Atomics.load(flags, DOWN) === 1) throw unavailable();
    const cancelled = failFast ? opts.cancelled : undefined;
    if (cancelled?.()) throw unavailable();
    const id = ++nextId;
    port1.postMessage({ ...req, id });
    // A request that may commit (COMMIT, a write outside a transaction), given up on once posted, may
    // be running at the server: the worker's answer to `abandon` tells whether it was sent.
    const commits = req.op === 'commit' || ((req.op === 'query' || req.op === 'exec') && depth === 0 && mayWrite(req.text));
    let until = Date.now() + waitMs;
    let abandoned = false;
    for (;;) {
      const m = receiveMessageOnPort(port1);
      if (m) {
        const reply = m.message as Reply | AbandonAck;
        if (reply.id !== id) continue; // the answer to a call given up on earlier
        if ('abandonAck' in reply) throw reply.sent ? outcomeUnknown() : unavailable();
        // The answer came before the worker saw the `abandon`: it is what happened.
        if (reply.ok) return reply;
        throw replyError(reply);
      }
      const seen = Atomics.load(flags, READY);
      if (seen === id) continue;
      if (Atomics.load(flags, EXITED) === 1) throw commits ? outcomeUnknown() : unavailable();
      const left = until - Date.now();
      if (abandoned && left <= 0) throw outcomeUnknown(); // the worker did not answer the `abandon`
      if (!abandoned && (left <= 0 || cancelled?.())) {
        // Nothing may run after its caller gave up (pg/worker.ts): a late BEGIN would stay open for good.
        port1.postMessage({ op: 'abandon', id });
        if (!commits) throw unavailable();
        abandoned = true;
        until = Date.now() + ABANDON_ACK_MS;
        continue;
      }
      // A caller that can give up is asked again every 50 ms: its wake-up (host-client.ts) may come
      // between the question above and this wait, and would otherwise be missed until the answer.
      Atomics.wait(flags, READY, seen, cancelled || abandoned ? Math.min(left, 50) : left);
    }
  };

  type StepBody = Omit<AsyncRequest & { op: 'step' }, 'id'>;
  /**
   * Posts one asynchronous step; resolves with its results. A caller that gives up (the deadline,
   * `signal`) gets 503 at once and the worker abandons the request: the same `abandon` as the
   * synchronous calls', for this request only (its connection destroyed: nothing of it runs later).
   */
  const sendAsync = (req: StepBody, deadline: number, signal?: AbortSignal): Promise<QueryResult[]> =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(unavailable());
      const id = ++nextId;
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        pending.delete(id);
        if (pending.size === 0) asyncPort.unref();
      };
      const giveUp = (timedOut: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        asyncPort.postMessage({ op: 'abandon', id, timedOut } satisfies AsyncRequest);
        if (req.end !== 'commit') {
          done();
          return reject(unavailable());
        }
        // A committing step may be running at the server: the worker's answer to `abandon` (or the
        // step's own, when it came first) decides; none within ABANDON_ACK_MS: unknown.
        timer = setTimeout(() => {
          done();
          reject(outcomeUnknown());
        }, ABANDON_ACK_MS);
      };
      const aborted = () => giveUp(false);
      let timer = setTimeout(() => giveUp(true), Math.max(0, deadline - Date.now()));
      signal?.addEventListener('abort', aborted, { once: true });
      pending.set(id, (reply) => {
        done();
        if ('abandonAck' in reply) reject(reply.sent ? outcomeUnknown() : unavailable());
        else if (reply.ok) resolve(reply.results.map((r) => ({ rows: fixRows(r.rows), changes: r.changes })));
        // A worker gone mid-step (failPending) leaves a committing step's outcome unknown.
        else reject(replyError(reply.id === 0 && req.end === 'commit' ? { ...reply, outcomeUnknown: true } : reply));
      });
      asyncPort.ref();
      asyncPort.postMessage({ ...req, id } satisfies AsyncRequest);
    });
  const translated = new Map<string, Translated>();
  let nextTx = 0;
  const txAsync = async <T>(steps: () => TxSteps<T>, o: AsyncOptions = {}): Promise<T> => {
    if (closed) throw new Error('the PostgreSQL store is closed');
    ensureWorker();
    if (Atomics.load(flags, DOWN) === 1) throw unavailable();
    const tx = ++nextTx;
    const deadline = Date.now() + (o.timeoutMs ?? waitMs);
    const it = steps();
    /** The worker holds a client with the transaction open. */
    let open = false;
    let committed = false;
    let results = undefined as unknown as QueryResult[];
    for (;;) {
      let r: IteratorResult<Step, T>;
      try {
        r = it.next(results);
        if (!r.done && committed) throw new Error('txAsync: a step after the committing one');
      } catch (e) {
        // The body threw: roll back what the worker holds (nobody waits for the answer).
        if (open) sendAsync({ op: 'step', tx, begin: false, queries: [], end: 'rollback' }, Date.now() + waitMs).catch(() => undefined);
        throw e;
      }
      if (r.done) {
        if (open) await sendAsync({ op: 'step', tx, begin: false, queries: [], end: 'commit' }, deadline, o.signal);
        return r.value;
      }
      const step = r.value;
      const begin = !open;
      if (o.signal?.aborted) {
        // The caller gave up between two steps: the worker holds the transaction open for a step that
        // will never come; end it (nobody waits for the answer).
        if (open) sendAsync({ op: 'step', tx, begin: false, queries: [], end: 'rollback' }, Date.now() + waitMs).catch(() => undefined);
        throw unavailable();
      }
      // Whatever the answer, the worker ends the transaction on an error or with `commit`.
      open = !step.commit;
      committed = step.commit === true;
      try {
        results = await sendAsync({ op: 'step', tx, begin, queries: step.queries.map((q) => wire(translated, q)), end: step.commit ? 'commit' : null }, deadline, o.signal);
      } catch (e) {
        open = false;
        throw e;
      }
    }
  };

  const statement = (sql: string): Statement => {
    let t: ReturnType<typeof toPostgres> | undefined;
    const query = (params: unknown[]) => {
      t ??= toPostgres(sql);
      const values = t.names ? t.names.map((n) => (params[0] as Record<string, unknown>)[n] ?? null) : params;
      return call({ op: 'query', text: t.text, values });
    };
    return {
      run: (...params: unknown[]): RunResult => ({ changes: query(params).changes, lastInsertRowid: 0 }),
      get: (...params: unknown[]) => fixRows(query(params).rows)[0],
      all: (...params: unknown[]) => fixRows(query(params).rows),
      iterate: (...params: unknown[]) => fixRows(query(params).rows)[Symbol.iterator](),
    };
  };

  const db: Db = {
    dialect: 'postgres',
    prepare: statement as Db['prepare'],
    exec: (sql) => void call({ op: 'exec', text: sql }),
    tx<T>(fn: () => T): T {
      if (depth > 0) {
        const sp = `sp${depth}`;
        call({ op: 'exec', text: `SAVEPOINT ${sp}` });
        depth++;
        try {
          const r = fn();
          call({ op: 'exec', text: `RELEASE SAVEPOINT ${sp}` });
          return r;
        } catch (e) {
          call({ op: 'exec', text: `ROLLBACK TO SAVEPOINT ${sp}` }, false);
          throw e;
        } finally {
          depth--;
        }
      }
      call({ op: 'begin' });
      depth = 1;
      try {
        const r = fn();
        call({ op: 'commit' });
        return r;
      } catch (e) {
        try {
          call({ op: 'rollback' }, false);
        } catch {
          // the connection is gone: the server rolled back; the worker dropped the client
        }
        throw e;
      } finally {
        depth = 0;
      }
    },
    txAsync,
    get inTransaction() {
      return depth > 0;
    },
    available: () => Atomics.load(flags, DOWN) === 0,
    checkpoint: () => {},
    close() {
      if (closed) return;
      try {
        call({ op: 'close' }, false);
      } catch {
        // ending a pool whose server is gone
      }
      closed = true;
      failPending();
      port1.close();
      asyncPort.close();
      void worker.terminate();
    },
  };
  hooks.set(db, {
    crash: () => void call({ op: 'crash' }, false),
    terminate: async () => {
      const w = worker;
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      await w.terminate();
      await exited;
    },
  });
  return db;
}

/** What tests may do to the worker of a PostgreSQL {@link Db} (see {@link workerHooksForTests}). */
export interface WorkerHooks {
  /** Makes the worker throw an uncaught error while the main thread waits for its answer; throws what that call throws (AppError 503 `store.unavailable`). */
  crash(): void;
  /** Terminates the worker from the main thread between two calls; resolves once it has exited. */
  terminate(): Promise<void>;
}

const hooks = new WeakMap<Db, WorkerHooks>();

/**
 * Test-only: ways to kill the worker thread of `db`, to prove a dead worker is replaced, the calls in
 * between fail with 503 `store.unavailable` rather than hang, and the next calls work (issue 22).
 * @returns undefined for a handle that is not a PostgreSQL one
 */
export function workerHooksForTests(db: Db): WorkerHooks | undefined {
  return hooks.get(db);
}
