import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';

/** What {@link headersOnly} answers: the final response's status and headers, and when they came. */
export interface HeadersOnlyResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** `performance.now()` when the final response's headers arrived (ms). */
  headersAt: number;
  /** Set when the body failed after the headers came (reset, or `signal` aborted: its reason). */
  bodyError?: unknown;
}

/**
 * One request through `dispatcher` whose response body is read and dropped — at most `limit` bytes,
 * then the rest is abandoned (as undici's `body.dump({ limit })`) — for checks that need no body.
 * Unlike undici's `request()` no body stream, request handler or stream events are built per check
 * (issue 21: allocation per check at 1,000 checks/s on distinct origins).
 * Rejects with undici's error (or `signal`'s reason once it aborts) when no response came, as
 * `request()` would; an error while reading the body resolves with `bodyError` set.
 * @param limit bytes of body read before the response is abandoned (resolved all the same)
 */
export function headersOnly(dispatcher: Dispatcher, url: URL, opts: { method: Dispatcher.HttpMethod; headers: Record<string, string>; body?: string; signal: AbortSignal }, limit: number): Promise<HeadersOnlyResponse> {
  return new Promise((resolve, reject) => {
    const handler = new DiscardingHandler(resolve, reject, opts.signal, limit);
    dispatcher.dispatch({ origin: url.origin, path: url.pathname + url.search, method: opts.method, headers: opts.headers, body: opts.body ?? null }, handler);
  });
}

/** The handler of {@link headersOnly} (undici's dispatch handler API). */
class DiscardingHandler implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | null = null;
  #response: HeadersOnlyResponse | null = null;
  #bytes = 0;
  #settled = false;
  readonly #onAbort = () => this.#controller?.abort(this.signal.reason);

  constructor(
    private readonly resolve: (r: HeadersOnlyResponse) => void,
    private readonly reject: (e: unknown) => void,
    private readonly signal: AbortSignal,
    private readonly limit: number,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.signal.aborted) controller.abort(this.signal.reason);
    else this.signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode >= 200) this.#response = { statusCode, headers, headersAt: performance.now() };
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#bytes += chunk.length;
    if (this.#bytes > this.limit && this.#response) {
      this.#settle();
      this.resolve(this.#response);
      controller.abort(new Error('response body over the read limit: abandoned'));
    }
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settle();
    if (this.#response) this.resolve(this.#response);
    else this.reject(new Error('response ended without a final status'));
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#settled) return;
    this.#settle();
    if (this.#response) this.resolve({ ...this.#response, bodyError: error });
    else this.reject(error);
  }

  #settle(): void {
    this.#settled = true;
    this.signal.removeEventListener('abort', this.#onAbort);
  }
}
