import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import { Agent, Client, interceptors, type Dispatcher, type buildConnector } from 'undici';

/** The undici dispatchers of the HTTP probe. */
export interface CheckDispatchers {
  /** Does not follow redirects. */
  direct: Dispatcher;
  /** Follows up to 10 redirects (throws past that). */
  following: Dispatcher;
  close(): Promise<void>;
}

/**
 * The HTTP probe's dispatchers: every request (every redirect hop) gets its own undici `Client` —
 * one connection, made with the given connector, sent with `reset` (`connection: close`) and destroyed
 * once the response has ended or failed — so no socket outlives its check and checks never queue behind one
 * another on a shared connection.
 *
 * Why not an `Agent`: an Agent keeps a `Pool` per origin and drops it when its last socket closes,
 * so with a fresh connection per check it built and tore down a Pool (with a 2,048-slot request
 * queue, ~16 KiB), its event listeners and a closed-client error for nearly every check — most of
 * the ~56 KiB allocated per check in a sampling heap profile (bench/alloc.ts). The Agent here only
 * lends `compose` (interceptors) and is never dispatched to.
 * @param connect the connector (the probe's: source address, certificate capture, timing)
 */
export function checkDispatchers(connect: buildConnector.connector): CheckDispatchers {
  const clients = new Set<Client>();
  const oneShot: Dispatcher.DispatcherComposeInterceptor = () => (opts, handler) => {
    const client = new Client(opts.origin!, { connect });
    clients.add(client);
    const done = () => {
      if (!clients.delete(client)) return;
      // After undici's own bookkeeping of this response (a microtask later); with an error of our
      // own, so destroy() does not build (and the socket format) a ClientDestroyedError's stack.
      queueMicrotask(() => void client.destroy(stacklessError('check done')).catch(() => undefined));
    };
    return client.dispatch({ ...opts, reset: true }, new OneShotHandler(handler, done));
  };
  const base = new Agent({ connect });
  const direct = base.compose(oneShot);
  const following = base.compose(oneShot, interceptors.redirect({ maxRedirections: 10, throwOnMaxRedirect: true }));
  return {
    direct,
    following,
    async close() {
      await Promise.all([...clients].map((c) => c.close().catch(() => undefined)));
      clients.clear();
      await base.close();
    },
  };
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
    private readonly done: () => void,
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
      this.done();
    }
  }
  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    try {
      this.inner.onResponseError?.(controller, error);
    } finally {
      this.done();
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
