import { MessageChannel, Worker, type MessagePort, type Transferable } from 'node:worker_threads';
import { bundledFile, isSea } from '../lib/sea.ts';
import { asyncStoreOver, type AsyncCallOptions, type AsyncStore } from './async.ts';
import { fromWire, revive, type HostInit, type HostReply, type HostRequest } from './host-protocol.ts';
import type { StoreModules } from './index.ts';
import { outcomeUnknown, unavailable } from './pg/driver.ts';
import { READY, STATE_BYTES } from './pg/protocol.ts';

/** How the store host reaches PostgreSQL (the main store's settings). */
export interface HostOptions {
  url: string;
  /** Clients of the host's pool (it runs one request at a time: 2 is plenty). */
  poolSize: number;
  /** Server-side statement_timeout, ms; a call is given up 6 s after it unless told otherwise. */
  statementTimeoutMs: number;
}

/** The host's thread and the counters tests and metrics read. */
export interface StoreHost {
  /** The asynchronous store over the host for the modules of `shape`. */
  asyncStore(shape: StoreModules): AsyncStore;
  /** Requests answered since start (tests: proof that calls went through the host). */
  readonly answered: number;
  /** Ends the thread; calls waiting get 503. */
  close(): void;
  /** Test-only: terminates the thread as a crash would (calls waiting get 503; the next call starts a new one). */
  terminateForTests(): Promise<void>;
}

const hosts = new WeakMap<object, StoreHost>();

/** Remembers that `store`'s asynchronous calls go through `host` (store/open.ts), for {@link storeHostForTests}. */
export function registerHost(store: object, host: StoreHost): void {
  hosts.set(store, host);
}

/** Test-only: the store host of a PostgreSQL store opened by store/open.ts (undefined for SQLite). */
export function storeHostForTests(store: object): StoreHost | undefined {
  return hosts.get(store);
}

/** Starts the thread of src/store-host.ts (the SEA asset store-host.cjs inside the single executable). */
function startThread(init: HostInit): Worker {
  const transfer = [init.port, init.control] as unknown as Transferable[];
  if (isSea()) return new Worker(bundledFile('store-host.cjs', '').toString('utf8'), { eval: true, workerData: init, transferList: transfer });
  // From source: the host loads all of core, whose TypeScript is more than Node's type stripping takes
  // (parameter properties), so the thread gets tsx's loader by absolute path (not the parent's
  // `--import tsx`, which resolves against the working directory).
  return new Worker(new URL('../store-host.ts', import.meta.url), { workerData: init, transferList: transfer, execArgv: ['--import', import.meta.resolve('tsx')] });
}

/** How long a call given up on waits for the host's answer to its cancellation, ms (see `send`). */
const HOST_VERDICT_MS = 1500;

/**
 * The main thread's side of the store host (issue 31; see store/async.ts). The thread starts at the
 * first call, runs requests one at a time in the order sent, and is replaced at the next call if it
 * died (calls waiting on it get 503 `store.unavailable`). A call is given up at its deadline
 * (statement timeout + 6 s, or `timeoutMs`) or when its AbortSignal fires: the host is told on its
 * control port and woken, its driver abandons what runs for that call, and the caller gets the host's
 * answer (503 `store.unavailable`, or `store.outcome_unknown` for a commit already sent) within
 * {@link HOST_VERDICT_MS} — or `store.outcome_unknown` after it.
 */
export function storeHost(opts: HostOptions): StoreHost {
  let worker: Worker | undefined;
  let port: MessagePort | undefined;
  let control: MessagePort | undefined;
  let state: Int32Array | undefined;
  let nextId = 0;
  let answered = 0;
  let closed = false;
  const pending = new Map<number, (reply: HostReply) => void>();
  let lastError = '';
  /** Settles every waiting call: the host exited (what it was running may have committed: outcome unknown) or the store closed. */
  const failPending = (exited: boolean) => {
    const error = exited
      ? { message: `the store host thread exited while this call waited${lastError ? ` (${lastError})` : ''}: the change may or may not have been saved; check before trying again`, status: 503, code: 'store.outcome_unknown' }
      : { message: 'the database is unavailable: the store is closing', status: 503, code: 'store.unavailable' };
    for (const settle of pending.values()) settle({ id: 0, ok: false, error });
    pending.clear();
  };
  const start = () => {
    const channel = new MessageChannel();
    const ctl = new MessageChannel();
    const shared = new SharedArrayBuffer(STATE_BYTES);
    const w = startThread({
      url: opts.url,
      poolSize: opts.poolSize,
      statementTimeoutMs: opts.statementTimeoutMs,
      state: shared,
      port: channel.port2,
      control: ctl.port2,
      pgWorkerCode: isSea() ? bundledFile('pg-worker.cjs', '').toString('utf8') : undefined,
    });
    worker = w;
    port = channel.port1;
    control = ctl.port1;
    state = new Int32Array(shared);
    port.on('message', (reply: HostReply) => {
      answered++;
      pending.get(reply.id)?.(reply);
    });
    port.unref();
    w.unref();
    // Without a listener the thread's uncaught error would end the process; it is named in the 503s.
    w.on('error', (e) => void (lastError = (e as Error).message));
    w.once('exit', () => {
      if (w !== worker) return;
      worker = undefined;
      port?.close();
      control?.close();
      failPending(true);
    });
  };
  const send = (req: HostRequest extends infer R ? (R extends HostRequest ? Omit<R, 'id'> : never) : never, o: AsyncCallOptions): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (closed) return reject(new Error('the store is closed'));
      if (o.signal?.aborted) return reject(unavailable());
      if (!worker) start();
      const id = ++nextId;
      const done = () => {
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', giveUp);
        pending.delete(id);
        if (pending.size === 0) port?.unref();
      };
      const giveUp = () => {
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', giveUp);
        control?.postMessage({ cancel: id });
        // Wakes the host's driver if it waits on the database for this request (pg/driver.ts `cancelled`).
        if (state) Atomics.notify(state, READY);
        // The host answers a cancelled call at once: not started ("the caller gave up"), or its driver's
        // verdict (a commit already sent: `store.outcome_unknown`). A host still busy with an earlier
        // call past HOST_VERDICT_MS: unknown, as the call may be running.
        timer = setTimeout(() => {
          done();
          reject(outcomeUnknown());
        }, HOST_VERDICT_MS);
      };
      let timer = setTimeout(giveUp, o.timeoutMs ?? opts.statementTimeoutMs + 6000);
      o.signal?.addEventListener('abort', giveUp, { once: true });
      pending.set(id, (reply) => {
        done();
        if (reply.ok) resolve(revive(reply.value));
        else reject(fromWire(reply.error));
      });
      port!.ref();
      port!.postMessage({ ...req, id } as HostRequest);
    });
  return {
    asyncStore: (shape) =>
      asyncStoreOver(
        shape,
        (module, fn, args, o) => send({ kind: 'call', module, fn, args }, o),
        (name, args, o) => send({ kind: 'tx', name, args }, o),
      ),
    get answered() {
      return answered;
    },
    async terminateForTests() {
      const w = worker;
      if (!w) return;
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      await w.terminate();
      await exited;
    },
    close() {
      closed = true;
      failPending(false);
      const w = worker;
      worker = undefined;
      port?.close();
      control?.close();
      void w?.terminate();
    },
  };
}
