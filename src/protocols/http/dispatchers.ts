import { Agent, interceptors, type Dispatcher, type buildConnector } from 'undici';

/** The undici dispatchers of the HTTP probe. */
export interface CheckDispatchers {
  /** Does not follow redirects. */
  direct: Dispatcher;
  /** Follows up to 10 redirects (throws past that). */
  following: Dispatcher;
  close(): Promise<void>;
}

/**
 * The HTTP probe's dispatchers: an undici Agent with the given connector where every request is
 * sent with `reset` (`connection: close`, the socket closed once the response is read), so no
 * socket outlives its check and the Agent drops each origin's pool when its socket closes.
 * @param connect the connector (the probe's: source address, certificate capture, timing)
 */
export function checkDispatchers(connect: buildConnector.connector): CheckDispatchers {
  const agent = new Agent({ connect, keepAliveTimeout: 1_000, keepAliveMaxTimeout: 1_000 });
  const fresh: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => dispatch({ ...opts, reset: true }, handler);
  const direct = agent.compose(fresh);
  const following = agent.compose(fresh, interceptors.redirect({ maxRedirections: 10, throwOnMaxRedirect: true }));
  return { direct, following, close: () => agent.close() };
}
