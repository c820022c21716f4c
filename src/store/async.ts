import type { Store, StoreModules } from './index.ts';

/**
 * The store's asynchronous interface (issue 31: "no network round trip ever blocks the event loop").
 *
 * `store.async` has the shape of the store's modules, every function returning a Promise of what the
 * synchronous one returns, plus `tx(procedure, args)`, which runs a registered transaction body.
 *
 * - **SQLite**: each call runs the synchronous function at once and returns a settled Promise (a
 *   local file, no network; the cost is one Promise).
 * - **PostgreSQL**: each call is a message to the *store host* thread (store/host-client.ts), which
 *   runs the same synchronous store code against its own connections and answers; the event loop of
 *   the main thread never waits on the database. A caller that gives up (deadline: statement timeout
 *   + 6 s; or its AbortSignal) gets AppError 503 `store.unavailable` at once, and the host abandons
 *   the request: a queued one never runs, one in flight has its connection destroyed (the server rolls
 *   back), see pg/driver.ts `cancelled`.
 *
 * Arguments and results cross a thread boundary on PostgreSQL, so they must be structured-cloneable
 * (plain objects, arrays, strings, numbers, Dates, Maps, Buffers — returned as Buffers); functions,
 * iterators and class instances are not.
 */

/** `F` with its result wrapped in a Promise. */
export type Promised<F> = F extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;

/** A store module whose functions answer asynchronously. */
export type AsyncModule<M> = { readonly [K in keyof M]: Promised<M[K]> };

/** How long an asynchronous store call may take and how its caller gives up on it. */
export interface AsyncCallOptions {
  /** Gives up when aborted (AppError 503 `store.unavailable`; the host abandons the request). */
  signal?: AbortSignal | undefined;
  /** Gives up after this many ms (default: statement timeout + 6 s). */
  timeoutMs?: number | undefined;
}

/**
 * A transaction body that can run wherever the store runs: on the main thread (SQLite) or on the
 * store host thread (PostgreSQL). It gets the transaction-scoped store and its arguments only — no
 * closure over the caller's state (clock, events, config): pass `now` and the like in `args`, and do
 * side effects (events, logs, outbound requests) after the returned Promise settles.
 * Made with {@link procedure} at a module's top level.
 */
export interface Procedure<A, R> {
  readonly name: string;
  readonly run: (tx: Store, args: A) => R;
}

/** Every procedure made so far, by name. */
const registry = new Map<string, Procedure<unknown, unknown>>();

/**
 * Defines and registers a transaction body under a unique `name` (`'<module>.<verb>'`). Call it at a
 * module's top level: the store host thread knows a procedure only if its module was imported there
 * (src/store-host.ts imports the modules that define them; test/unit/store-async.test.ts checks every
 * `procedure('…'` of src/ is known to the host).
 * @throws Error when `name` is already taken by another function
 */
export function procedure<A, R>(name: string, run: (tx: Store, args: A) => R): Procedure<A, R> {
  const had = registry.get(name);
  if (had && had.run !== run) throw new Error(`store: a procedure named ${name} already exists`);
  const p: Procedure<A, R> = { name, run };
  registry.set(name, p as Procedure<unknown, unknown>);
  return p;
}

/** The procedure registered as `name`, or undefined. */
export function procedureNamed(name: string): Procedure<unknown, unknown> | undefined {
  return registry.get(name);
}

/** Names of every registered procedure (tests). */
export function procedureNames(): string[] {
  return [...registry.keys()];
}

/** The asynchronous store: every module of {@link StoreModules} promised, and transactions by procedure. */
export type AsyncStore = { readonly [K in keyof StoreModules]: AsyncModule<StoreModules[K]> } & {
  /**
   * Runs `proc.run(tx, args)` in one transaction and resolves with its result; rejects with what it
   * threw (rolled back). SQLite: at once, on this thread. PostgreSQL: on the store host thread.
   * @throws (rejects) AppError 503 `store.unavailable` when the database cannot be reached or the caller gave up
   */
  tx<A, R>(proc: Procedure<A, R>, args: A, opts?: AsyncCallOptions): Promise<Awaited<R>>;
  /**
   * The same module calls with a deadline or AbortSignal of their own:
   * `store.async.with({ signal }).monitors.list()`.
   */
  with(opts: AsyncCallOptions): AsyncStore;
};

/** How a module call is carried out: `module.fn(...args)` with `opts`. */
export type AsyncCaller = (module: string, fn: string, args: unknown[], opts: AsyncCallOptions) => Promise<unknown>;
/** How a procedure is carried out. */
export type AsyncTxRunner = (name: string, args: unknown, opts: AsyncCallOptions) => Promise<unknown>;

/**
 * Builds an {@link AsyncStore} of the modules of `shape` (only their keys and function names are
 * read) over a call function and a procedure runner.
 */
export function asyncStoreOver(shape: StoreModules, call: AsyncCaller, runTx: AsyncTxRunner, opts: AsyncCallOptions = {}): AsyncStore {
  const out: Record<string, unknown> = {};
  for (const [mod, fns] of Object.entries(shape)) {
    const m: Record<string, unknown> = {};
    for (const [fn, v] of Object.entries(fns as Record<string, unknown>)) {
      if (typeof v === 'function') m[fn] = (...args: unknown[]) => call(mod, fn, args, opts);
    }
    out[mod] = Object.freeze(m);
  }
  out.tx = (proc: Procedure<unknown, unknown>, args: unknown, o?: AsyncCallOptions) => runTx(proc.name, args, { ...opts, ...o });
  out.with = (o: AsyncCallOptions) => asyncStoreOver(shape, call, runTx, { ...opts, ...o });
  return Object.freeze(out) as unknown as AsyncStore;
}

/**
 * The asynchronous store of a store whose calls never wait on a network (SQLite, and the store host
 * thread itself): each call runs at once and returns a settled Promise; a procedure runs in
 * `store.tx`. Options are accepted and ignored (nothing to give up on).
 */
export function directAsyncStore(store: Store, modules: StoreModules): AsyncStore {
  const call: AsyncCaller = (mod, fn, args) => {
    try {
      const m = (modules as unknown as Record<string, Record<string, (...a: unknown[]) => unknown>>)[mod]!;
      return Promise.resolve(m[fn]!.apply(m, args));
    } catch (e) {
      return Promise.reject(e as Error);
    }
  };
  const runTx: AsyncTxRunner = (name, args) => {
    try {
      const p = procedureNamed(name);
      if (!p) throw new Error(`store: no procedure named ${name}`);
      return Promise.resolve(store.tx((tx) => p.run(tx, args)));
    } catch (e) {
      return Promise.reject(e as Error);
    }
  };
  return asyncStoreOver(modules, call, runTx);
}
