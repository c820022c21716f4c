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
 * one connection, made with the given connector, sent with `reset` (`connection: close`) and closed
 * once the response is read — so no socket outlives its check and checks never queue behind one
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
    const accepted = client.dispatch({ ...opts, reset: true }, handler);
    // Graceful: the client closes once this request is done (response read, failed or aborted).
    client.close().then(
      () => clients.delete(client),
      () => clients.delete(client),
    );
    return accepted;
  };
  const base = new Agent({ connect });
  const direct = base.compose(oneShot);
  const following = base.compose(oneShot, interceptors.redirect({ maxRedirections: 10, throwOnMaxRedirect: true }));
  return {
    direct,
    following,
    async close() {
      await Promise.all([...clients].map((c) => c.close().catch(() => undefined)));
      await base.close();
    },
  };
}
