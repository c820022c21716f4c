import type { Logger } from '../lib/logger.ts';
import type { ClusterChange } from '../domain/cluster.ts';
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
  const off = [
    bus.on('healthcheck.changed', ({ healthcheck }) => send({ kind: 'healthcheck', uuid: healthcheck.uuid })),
    bus.on('healthcheck.deleted', ({ healthcheckId, uuid }) => send({ kind: 'healthcheck.deleted', id: healthcheckId, uuid })),
    bus.on('monitor.created', ({ monitor }) => send({ kind: 'monitor', uuid: monitor.uuid, created: true })),
    bus.on('monitor.updated', ({ monitor }) => send({ kind: 'monitor', uuid: monitor.uuid, created: false })),
    bus.on('monitor.deleted', ({ monitorId, uuid }) => send({ kind: 'monitor.deleted', id: monitorId, uuid })),
    bus.on('monitor.degraded', ({ monitorId, degraded }) => send({ kind: 'monitor.degraded', id: monitorId, degraded })),
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
      replaying = true;
      bus.replaying = true;
      try {
        replay(change);
      } catch (e) {
        // Gone meanwhile (deleted after the change): its own deletion message follows.
        logger.debug('cluster: a change could not be re-read', { change: change.kind, error: (e as Error).message });
      } finally {
        replaying = false;
        bus.replaying = false;
      }
    }),
  ];

  const replay = (c: ClusterChange) => {
    switch (c.kind) {
      case 'healthcheck':
        return bus.emit('healthcheck.changed', { healthcheck: core.healthchecks.get(c.uuid) });
      case 'healthcheck.deleted':
        return bus.emit('healthcheck.deleted', { healthcheckId: c.id, uuid: c.uuid });
      case 'monitor':
        return bus.emit(c.created ? 'monitor.created' : 'monitor.updated', { monitor: core.monitors.get(c.uuid) });
      case 'monitor.deleted':
        return bus.emit('monitor.deleted', { monitorId: c.id, uuid: c.uuid });
      case 'monitor.degraded':
        return bus.emit('monitor.degraded', { monitorId: c.id, degraded: c.degraded });
      case 'maintenance':
        return bus.emit('maintenance.changed', { window: core.maintenance.get(c.uuid) });
      case 'maintenance.deleted':
        return bus.emit('maintenance.deleted', { window: c.window });
      case 'outage':
        return bus.emit(`outage.${c.event}`, { outage: core.outages.get(c.uuid) });
      case 'outage.deleted':
        return bus.emit('outage.deleted', { uuid: c.uuid, incidentNumber: c.incidentNumber });
      case 'statuspage.content':
        return bus.emit('statuspage.content', { kind: c.what, uuid: c.uuid });
      case 'alerts':
        return bus.emit('notices.queued', { count: c.count });
    }
  };
  return () => {
    for (const u of off) u();
  };
}
