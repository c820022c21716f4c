/**
 * The parts of undici Pharos uses — its dispatchers (`Agent`, `Client`, `ProxyAgent`), the redirect
 * interceptor, `buildConnector` and `request` — loaded from undici's own modules without the rest of
 * the package (issue 38 point 1, idle footprint). undici's index also loads and initialises fetch,
 * WebSocket, EventSource, the cache stores and the mock agents at import: about 3 MB of heap and
 * 0.6 MB of bundle source in every process, none of it used (Node's own fetch is Node's copy).
 *
 * Everything here is undici's code; the only lines of our own are the ones undici's index.js runs
 * itself: `Object.assign(Dispatcher.prototype, api)` (so every dispatcher has `.request`) and
 * `request(url, opts)`, undici's `makeDispatcher(api.request)` (index.js) for the two forms Pharos
 * calls: a URL string or URL with options, the dispatcher in `opts.dispatcher` or undici's global one.
 * Types are undici's (`import type` from the package index). Tested by every HTTP check and
 * channel test, and from the built binary by test/build/binary.test.ts.
 */
import type * as Undici from 'undici';
// @ts-expect-error undici declares types for its index only; these are the modules the index re-exports
import AgentImpl from 'undici/lib/dispatcher/agent.js';
// @ts-expect-error see above
import ClientImpl from 'undici/lib/dispatcher/client.js';
// @ts-expect-error see above
import ProxyAgentImpl from 'undici/lib/dispatcher/proxy-agent.js';
// @ts-expect-error see above
import DispatcherImpl from 'undici/lib/dispatcher/dispatcher.js';
// @ts-expect-error see above
import api from 'undici/lib/api/index.js';
// @ts-expect-error see above
import connect from 'undici/lib/core/connect.js';
// @ts-expect-error see above
import redirect from 'undici/lib/interceptor/redirect.js';
// @ts-expect-error see above
import globalDispatcher from 'undici/lib/global.js';
// @ts-expect-error see above
import util from 'undici/lib/core/util.js';

// What undici's index.js does at load: every dispatcher gets request/stream/pipeline/upgrade/connect.
Object.assign((DispatcherImpl as { prototype: object }).prototype, api);

/** undici's Agent (lib/dispatcher/agent.js). */
export const Agent = AgentImpl as typeof Undici.Agent;
export type Agent = Undici.Agent;
/** undici's Client (lib/dispatcher/client.js). */
export const Client = ClientImpl as typeof Undici.Client;
export type Client = Undici.Client;
/** undici's ProxyAgent (lib/dispatcher/proxy-agent.js). */
export const ProxyAgent = ProxyAgentImpl as typeof Undici.ProxyAgent;
/** undici's buildConnector (lib/core/connect.js). */
export const buildConnector = connect as typeof Undici.buildConnector;
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace buildConnector {
  export type connector = Undici.buildConnector.connector;
  export type BuildOptions = Undici.buildConnector.BuildOptions;
  export type Options = Undici.buildConnector.Options;
  export type Callback = Undici.buildConnector.Callback;
}
/** The interceptors Pharos composes (undici's `interceptors.redirect`). */
export const interceptors = { redirect: redirect as typeof Undici.interceptors.redirect };

const { getGlobalDispatcher } = globalDispatcher as { getGlobalDispatcher: () => Undici.Dispatcher };
const { parseURL } = util as { parseURL: (url: string | URL) => URL };

/**
 * undici's `request(url, opts)` (index.js `makeDispatcher(api.request)`), for a URL without
 * `opts.path`: the request goes to `opts.dispatcher`, else undici's global dispatcher; the method
 * defaults to GET (PUT with a body), as undici's does. Errors: undici's (invalid URL, the request's own).
 */
export function request(url: string | URL, opts: { dispatcher?: Undici.Dispatcher } & Omit<Undici.Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & Partial<Pick<Undici.Dispatcher.RequestOptions, 'method'>> = {}): Promise<Undici.Dispatcher.ResponseData> {
  const u = parseURL(url);
  const { dispatcher = getGlobalDispatcher(), ...rest } = opts;
  return dispatcher.request({ ...rest, origin: u.origin, path: u.search ? `${u.pathname}${u.search}` : u.pathname, method: opts.method ?? (opts.body ? 'PUT' : 'GET') });
}
