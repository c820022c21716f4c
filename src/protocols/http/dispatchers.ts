import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import { Agent, Client, interceptors, type buildConnector } from '../../lib/undici.ts';

/** The undici dispatchers of the HTTP probe. */
export interface CheckDispatchers {
  /** Does not follow redirects. */
  direct: Dispatcher;
  /** Follows up to 10 redirects (throws past that). */
  following: Dispatcher;
  close(): Promise<void>;
}

/**
 * When the HTTP probe keeps a connection open for the next check of its origin (issue 38 point 2:
 * "where one origin takes many checks, a small bounded keep-alive pool, without giving back the
 * descriptor bound"). An origin is **busy** when its previous check started at most `busyWithinMs`
 * before this one (50 monitors of one API every 10 s: a check every 200 ms); only a busy origin's
 * request asks for keep-alive, and its connection is kept after the response when fewer than
 * `maxIdle` connections are idle in all. Everything else is as without it: a fresh connection per
 * check, `connection: close`. So distinct origins checked every 10 s keep nothing, and the idle
 * sockets never exceed `maxIdle` (the descriptor bound of checks in flight stays).
 */
export interface KeepAlivePolicy {
  /** At most this many idle connections in all (default 32). */
  maxIdle: number;
  /** An origin is busy when its previous check started at most this long before (ms, default 4,000). Also how long an idle connection is kept (undici's `keepAliveTimeout`; a server's shorter `Keep-Alive: timeout` wins). */
  busyWithinMs: number;
  /** A connection is used for new checks at most this long after it was made (ms, default 10 minutes): a renewed certificate or a moved DNS name is seen within it. */
  maxAgeMs: number;
  /** Monotonic ms now (tests; default `performance.now`). */
  now?: () => number;
}

/** The probe's default {@link KeepAlivePolicy}. */
export const KEEP_ALIVE: KeepAlivePolicy = { maxIdle: 32, busyWithinMs: 4_000, maxAgeMs: 10 * 60_000 };

/** Origins whose last check start is remembered for {@link KeepAlivePolicy} (least recently checked dropped). */
const MAX_ORIGINS_TRACKED = 4_096;

/**
 * The HTTP probe's dispatchers: every request (every redirect hop) gets its own undici `Client` —
 * one connection, made with the given connector, sent with `reset` (`connection: close`) and destroyed
 * once the response has ended or failed — so no socket outlives its check and checks never queue behind one
 * another on a shared connection. With `keepAlive`, a busy origin's connection may instead wait idle
 * for that origin's next check (see {@link KeepAlivePolicy}); an idle connection is only ever lent
 * to one check at a time, so checks still never queue behind one another.
 *
 * Why not an `Agent`: an Agent keeps a `Pool` per origin and drops it when its last socket closes,
 * so with a fresh connection per check it built and tore down a Pool (with a 2,048-slot request
 * queue, ~16 KiB), its event listeners and a closed-client error for nearly every check — most of
 * the ~56 KiB allocated per check in a sampling heap profile (bench/alloc.ts). The Agent here only
 * lends `compose` (interceptors) and is never dispatched to.
 * @param connect the connector (the probe's: source address, certificate capture, timing)
 * @param keepAlive when to keep a connection for the next check (the shared probe's: {@link KEEP_ALIVE}); none by default
 */
export function checkDispatchers(connect: buildConnector.connector, keepAlive: KeepAlivePolicy | null = null): CheckDispatchers {
  const clients = new Set<Client>();
  const idle = new IdleConnections(keepAlive);
  const oneShot: Dispatcher.DispatcherComposeInterceptor = () => (opts, handler) => {
    const origin = String(opts.origin);
    const busy = idle.busy(origin);
    const client = idle.take(origin) ?? idle.made(new Client(origin, { connect, ...(keepAlive ? { keepAliveTimeout: keepAlive.busyWithinMs, keepAliveMaxTimeout: keepAlive.busyWithinMs } : {}) }));
    clients.add(client);
    const done = (ended: boolean) => {
      if (!clients.delete(client)) return;
      if (ended && busy && idle.keep(origin, client)) return;
      // After undici's own bookkeeping of this response (a microtask later); with an error of our
      // own, so destroy() does not build (and the socket format) a ClientDestroyedError's stack.
      queueMicrotask(() => void client.destroy(stacklessError('check done')).catch(() => undefined));
    };
    return client.dispatch({ ...opts, reset: !busy }, new OneShotHandler(handler, done));
  };
  const base = new Agent({ connect });
  const direct = base.compose(oneShot);
  const following = base.compose(oneShot, interceptors.redirect({ maxRedirections: 10, throwOnMaxRedirect: true }));
  return {
    direct,
    following,
    async close() {
      await Promise.all([...clients, ...idle.drain()].map((c) => c.close().catch(() => undefined)));
      clients.clear();
      await base.close();
    },
  };
}

/** The idle keep-alive connections of {@link checkDispatchers}, by origin, and when each origin was last checked. */
class IdleConnections {
  private readonly byOrigin = new Map<string, Client[]>();
  private readonly lastStart = new Map<string, number>();
  private readonly madeAt = new WeakMap<Client, number>();
  count = 0;

  private readonly now: () => number;

  constructor(private readonly policy: KeepAlivePolicy | null) {
    this.now = policy?.now ?? (() => performance.now());
  }

  /** Whether `origin` is busy (its previous check started within the policy's window); records this check's start. */
  busy(origin: string): boolean {
    if (!this.policy) return false;
    const now = this.now();
    const previous = this.lastStart.get(origin);
    this.lastStart.delete(origin);
    this.lastStart.set(origin, now);
    if (this.lastStart.size > MAX_ORIGINS_TRACKED) this.lastStart.delete(this.lastStart.keys().next().value!);
    return previous !== undefined && now - previous <= this.policy.busyWithinMs;
  }

  /** Notes when `client` was made (its age bounds its reuse); returns it. */
  made(client: Client): Client {
    this.madeAt.set(client, this.now());
    return client;
  }

  /** An idle connection to `origin`, no longer idle, or undefined. */
  take(origin: string): Client | undefined {
    const list = this.byOrigin.get(origin);
    const client = list?.pop();
    if (client === undefined) return undefined;
    if (list!.length === 0) this.byOrigin.delete(origin);
    this.count--;
    client.removeAllListeners('disconnect');
    return client;
  }

  /** Keeps `client` idle for `origin` when there is room and it is young enough; false when it must go. */
  keep(origin: string, client: Client): boolean {
    const policy = this.policy!;
    if (this.count >= policy.maxIdle || client.closed || client.destroyed) return false;
    if (this.now() - (this.madeAt.get(client) ?? 0) > policy.maxAgeMs) return false;
    const list = this.byOrigin.get(origin) ?? [];
    list.push(client);
    this.byOrigin.set(origin, list);
    this.count++;
    // The server or undici's keep-alive timeout closed it: it holds no socket; forget it.
    client.once('disconnect', () => {
      const at = list.indexOf(client);
      if (at === -1) return;
      list.splice(at, 1);
      if (list.length === 0 && this.byOrigin.get(origin) === list) this.byOrigin.delete(origin);
      this.count--;
      void client.destroy(stacklessError('idle connection closed')).catch(() => undefined);
    });
    return true;
  }

  /** Every idle connection, forgotten (the probe is closing). */
  drain(): Client[] {
    const all = [...this.byOrigin.values()].flat();
    this.byOrigin.clear();
    this.count = 0;
    return all;
  }
}

/**
 * Passes every callback to the request's own handler and calls `done` once the response has ended
 * or failed.
 *
 * When a response ends on a `connection: close` socket, undici destroys the socket with a fresh
 * `InformationalError('reset')` right after `onResponseEnd` returns, and Node's stream `destroy`
 * reads the error's `stack` — capturing and formatting a stack trace on every check (~11 % of the
 * event loop's busy time at 1,000 checks/s on distinct origins, bench/origins.ts). That error is never
 * seen by anyone, so stack traces are off (`Error.stackTraceLimit = 0`) from the end of
 * `onResponseEnd` until the next microtask: only errors undici builds while finishing this
 * response's parse, synchronously, have no stack.
 */
class OneShotHandler implements Dispatcher.DispatchHandler {
  constructor(
    private readonly inner: Dispatcher.DispatchHandler,
    /** Called once: `ended` true when the response ended, false when it failed. */
    private readonly done: (ended: boolean) => void,
  ) {}
  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.inner.onRequestStart?.(controller, context);
  }
  onRequestUpgrade(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders, socket: Duplex): void {
    this.inner.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }
  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders, statusMessage?: string): void {
    this.inner.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }
  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.inner.onResponseData?.(controller, chunk);
  }
  onResponseEnd(controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    try {
      this.inner.onResponseEnd?.(controller, trailers);
    } finally {
      noStacksUntilNextMicrotask();
      this.done(true);
    }
  }
  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    try {
      this.inner.onResponseError?.(controller, error);
    } finally {
      this.done(false);
    }
  }
  onBodySent(chunk: Buffer): void {
    this.inner.onBodySent?.(chunk);
  }
  onRequestSent(): void {
    this.inner.onRequestSent?.();
  }
}

let savedStackTraceLimit: number | undefined;
/** `Error.stackTraceLimit = 0` until the microtask queue next runs (then the previous limit again). */
function noStacksUntilNextMicrotask(): void {
  if (savedStackTraceLimit !== undefined) return;
  savedStackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  queueMicrotask(() => {
    Error.stackTraceLimit = savedStackTraceLimit!;
    savedStackTraceLimit = undefined;
  });
}

/** An Error without a captured stack trace (cheap to build; its `stack` is just the message). */
function stacklessError(message: string): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new Error(message);
  } finally {
    Error.stackTraceLimit = limit;
  }
}
