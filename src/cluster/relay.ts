import type { Logger } from '../lib/logger.ts';
import type { ClusterChange } from '../domain/cluster.ts';
import type { Healthcheck } from '../domain/healthcheck.ts';
import type { Core } from '../core/index.ts';
import type { Cluster } from './types.ts';

/**
 * Carries the core's committed changes between instances (issue 22): each change announced on this
 * instance's bus is published to the others; each change another instance published is re-read
 * from the store and announced on this bus, as if it had been made here. So a ping taken by a follower
 * moves the leader's deadline at once, a monitor created on a follower gets its checks on the
 * leader's scheduler, an outage acknowledged on a follower stops the leader's escalation timer, and
 * every instance's page cache and console live view follow every change. Changes re-announced here are
 * not published again. Returns the function that stops relaying.
 *
 * Healthchecks (every ping announces one; issue 31 point 4) are re-read without blocking the event
 * loop: the uuids relayed meanwhile are read together in one asynchronous read, one read in flight at
 * a time (a uuid relayed again during it is read again after it), so an instance's cost follows the
 * healthchecks that changed, not the pings other instances took. Before, each relayed change was one
 * synchronous store read on every other instance, and three instances took fewer pings than one.
 */
export function relayChanges(deps: { core: Core; cluster: Cluster; logger: Logger }): () => void {
  const { core, cluster, logger } = deps;
  const { bus } = core;
  /** True while a remote change is re-announced (the bus is synchronous): it must not bounce back. */
  let replaying = false;
  const send = (change: ClusterChange) => {
    if (!replaying) cluster.publish(change);
  };
  const outage = (event: 'opened' | 'resolved' | 'acknowledged' | 'unacknowledged' | 'escalated') =>
    bus.on(`outage.${event}`, ({ outage: o }) => send({ kind: 'outage', uuid: o.uuid, event }));
  /** Re-announces a remote change on this bus (synchronous): it must not bounce back. */
  const replayed = (fn: () => void, what: string) => {
    replaying = true;
    bus.replaying = true;
    try {
      fn();
    } catch (e) {
      // Gone meanwhile (deleted after the change): its own deletion message follows.
      logger.debug('cluster: a change could not be re-read', { change: what, error: (e as Error).message });
    } finally {
      replaying = false;
      bus.replaying = false;
    }
  };
  /** Healthchecks relayed and not re-read yet; those of the read in flight; those deleted during it. */
  let stale = new Set<string>();
  let reading: ReadonlySet<string> = new Set();
  const deletedDuring = new Set<string>();
  let refreshing = false;
  let stopped = false;
  const refresh = async () => {
    while (stale.size > 0 && !stopped) {
      reading = stale;
      stale = new Set();
      let fresh: Healthcheck[] = [];
      try {
        fresh = await core.healthchecks.getManyAsync([...reading]);
      } catch (e) {
        // The database is unreachable: what followers show stays as it was until the next change.
        logger.debug('cluster: relayed healthcheck changes could not be re-read', { count: reading.size, error: (e as Error).message });
      }
      reading = new Set();
      const gone = new Set(deletedDuring);
      deletedDuring.clear();
      if (stopped) break;
      for (const hc of fresh) if (!gone.has(hc.uuid)) replayed(() => bus.emit('healthcheck.changed', { healthcheck: hc }), 'healthcheck');
    }
    refreshing = false;
  };
  const healthcheckChanged = (uuid: string) => {
    stale.add(uuid);
    if (refreshing) return;
    refreshing = true;
    // The changes of the messages read in this turn go into one read.
    setImmediate(() => void refresh());
  };
  const off = [
    bus.on('healthcheck.changed', ({ healthcheck }) => send({ kind: 'healthcheck', uuid: healthcheck.uuid })),
    bus.on('healthcheck.deleted', ({ healthcheckId, uuid }) => send({ kind: 'healthcheck.deleted', id: healthcheckId, uuid })),
    bus.on('monitor.created', ({ monitor }) => send({ kind: 'monitor', uuid: monitor.uuid, created: true })),
    bus.on('monitor.updated', ({ monitor }) => send({ kind: 'monitor', uuid: monitor.uuid, created: false })),
    bus.on('monitor.deleted', ({ monitorId, uuid }) => send({ kind: 'monitor.deleted', id: monitorId, uuid })),
    bus.on('monitor.degraded', ({ monitorId, degraded }) => send({ kind: 'monitor.degraded', id: monitorId, degraded })),
    // In messages of at most 100 uuids (a bulk action takes up to 1,000; a NOTIFY payload stays under 8000 bytes).
    bus.on('monitor.tagged', ({ uuids }) => {
      for (let i = 0; i < uuids.length; i += 100) send({ kind: 'monitor.tagged', uuids: uuids.slice(i, i + 100) });
    }),
    bus.on('maintenance.changed', ({ window }) => send({ kind: 'maintenance', uuid: window.uuid })),
    bus.on('maintenance.deleted', ({ window }) => send({ kind: 'maintenance.deleted', window })),
    outage('opened'),
    outage('resolved'),
    outage('acknowledged'),
    outage('unacknowledged'),
    outage('escalated'),
    bus.on('outage.deleted', ({ uuid, incidentNumber }) => send({ kind: 'outage.deleted', uuid, incidentNumber })),
    bus.on('statuspage.content', ({ kind, uuid }) => send({ kind: 'statuspage.content', what: kind, uuid })),
    bus.on('notices.queued', ({ count }) => send({ kind: 'alerts', count })),
    cluster.onChange((change) => {
      if (change.kind === 'healthcheck') return healthcheckChanged(change.uuid);
      if (change.kind === 'healthcheck.deleted') {
        stale.delete(change.uuid);
        if (reading.has(change.uuid)) deletedDuring.add(change.uuid);
      }
      replayed(() => replay(change), change.kind);
    }),
  ];

  /**
   * Monitor, maintenance and outage changes are re-read asynchronously but announced in the order relayed,
   * deletions included (one chain): a read begun before a deletion never announces after it.
   */
  let ordered: Promise<void> = Promise.resolve();
  const inOrder = (what: string, read: () => Promise<() => void>) => {
    ordered = ordered
      .then(read)
      .then(
        (announce) => {
          if (!stopped) replayed(announce, what);
        },
        (e: unknown) => logger.debug('cluster: a change could not be re-read', { change: what, error: (e as Error).message }),
      );
  };
  const replay = (c: ClusterChange) => {
    switch (c.kind) {
      case 'healthcheck':
        return healthcheckChanged(c.uuid);
      case 'healthcheck.deleted':
        return bus.emit('healthcheck.deleted', { healthcheckId: c.id, uuid: c.uuid });
      case 'monitor':
        return inOrder(c.kind, async () => {
          const monitor = await core.monitors.get(c.uuid);
          return () => bus.emit(c.created ? 'monitor.created' : 'monitor.updated', { monitor });
        });
      case 'monitor.deleted':
        return inOrder(c.kind, async () => () => bus.emit('monitor.deleted', { monitorId: c.id, uuid: c.uuid }));
      case 'monitor.degraded':
        return bus.emit('monitor.degraded', { monitorId: c.id, degraded: c.degraded });
      case 'monitor.tagged':
        // Nothing to re-read: the console's live view reads the rows itself.
        return inOrder(c.kind, async () => () => bus.emit('monitor.tagged', { uuids: c.uuids }));
      case 'maintenance':
        return inOrder(c.kind, async () => {
          const window = await core.maintenance.get(c.uuid);
          return () => bus.emit('maintenance.changed', { window });
        });
      case 'maintenance.deleted':
        return inOrder(c.kind, async () => () => bus.emit('maintenance.deleted', { window: c.window }));
      case 'outage':
        return inOrder(c.kind, async () => {
          const outage = await core.outages.get(c.uuid);
          return () => bus.emit(`outage.${c.event}`, { outage });
        });
      case 'outage.deleted':
        return inOrder(c.kind, async () => () => bus.emit('outage.deleted', { uuid: c.uuid, incidentNumber: c.incidentNumber }));
      case 'statuspage.content':
        return bus.emit('statuspage.content', { kind: c.what, uuid: c.uuid });
      case 'alerts':
        return bus.emit('notices.queued', { count: c.count });
    }
  };
  return () => {
    stopped = true;
    for (const u of off) u();
  };
}
