import { receiveMessageOnPort, workerData } from 'node:worker_threads';
import { AppError } from '../lib/errors.ts';
import { procedureNamed } from './async.ts';
import { revive, toWire, type HostInit, type HostReply, type HostRequest } from './host-protocol.ts';
import { createStore, type Store } from './index.ts';
import { openPostgresDb } from './pg/driver.ts';

/**
 * The store host thread's loop (issue 31; started by store/host-client.ts through src/store-host.ts,
 * which imports the modules that define procedures first). It opens its own PostgreSQL driver (its
 * own worker and pool; migrations are the main thread's business) and answers each request in turn
 * by calling the synchronous store: this thread waits on the database so the main thread's event loop
 * never does. A request the main thread gave up on is skipped when its turn comes, or abandoned while
 * it waits (the driver's `cancelled`, woken through the shared state).
 */
export function serveStoreHost(): void {
  const init = workerData as HostInit;
  /** Ids the main thread gave up on and that have not been reached yet. */
  const cancelled = new Set<number>();
  let current = 0;
  const drainControl = () => {
    for (let m = receiveMessageOnPort(init.control); m; m = receiveMessageOnPort(init.control)) cancelled.add((m.message as { cancel: number }).cancel);
  };
  const db = openPostgresDb({
    url: init.url,
    poolSize: init.poolSize,
    statementTimeoutMs: init.statementTimeoutMs,
    state: init.state,
    workerCode: init.pgWorkerCode,
    cancelled: () => {
      drainControl();
      return cancelled.has(current);
    },
  });
  const store: Store = createStore(db);
  const modules = store as unknown as Record<string, Record<string, (...a: unknown[]) => unknown>>;
  const run = (req: HostRequest): unknown => {
    if (req.kind === 'call') {
      const m = modules[req.module];
      const fn = m?.[req.fn];
      if (typeof fn !== 'function') throw new Error(`store host: no store function ${req.module}.${req.fn}`);
      return fn.apply(m, revive(req.args) as unknown[]);
    }
    const p = procedureNamed(req.name);
    if (!p) throw new Error(`store host: no procedure named ${req.name} (is its module imported by src/store-host.ts?)`);
    const args = revive(req.args);
    return store.tx((tx) => p.run(tx, args));
  };
  init.port.on('message', (req: HostRequest) => {
    drainControl();
    // Requests are served in the order sent: one given up on before this one can be forgotten.
    for (const id of cancelled) if (id < req.id) cancelled.delete(id);
    current = req.id;
    let reply: HostReply;
    try {
      if (cancelled.has(req.id)) throw new AppError(503, 'store.unavailable', 'the caller gave up');
      reply = { id: req.id, ok: true, value: run(req) };
    } catch (e) {
      reply = { id: req.id, ok: false, error: toWire(e) };
    }
    cancelled.delete(req.id);
    current = 0;
    try {
      init.port.postMessage(reply);
    } catch (e) {
      // A value that cannot be cloned (a function, an iterator): a programming error, answered as such.
      init.port.postMessage({ id: req.id, ok: false, error: toWire(new Error(`store host: the answer of ${req.kind === 'call' ? `${req.module}.${req.fn}` : req.name} cannot cross threads: ${(e as Error).message}`)) } satisfies HostReply);
    }
  });
}
