import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { notFound } from '../lib/errors.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { monitorDefaults, resolveMonitorSettings, type Monitor, type MonitorBodyInput } from '../domain/monitor.ts';
import { keepSecrets } from '../protocols/secrets.ts';
import type { Store } from '../store/index.ts';
import { certExpiryDeleted, certExpirySettingsChanged } from './cert-expiry.ts';
import type { EventBus } from './events.ts';

/** Monitor use cases (API.md §4.1). Every write is one transaction, and events go out after the commit. */
export function monitorsService(deps: { store: Store; clock: Clock; bus: EventBus; config: Pick<Config, 'probe' | 'escalation_policies' | 'channels' | 'public_url'> }) {
  const { store, clock, bus, config } = deps;
  const knownPolicy = (uuid: string) => config.escalation_policies.some((p) => p.uuid === uuid);
  const mustGet = (uuid: string): Monitor => {
    const m = store.monitors.get(uuid);
    if (!m) throw notFound('monitors', 'Monitor');
    return m;
  };

  return {
    list: (): Monitor[] => store.monitors.list(),
    /** @throws AppError 404 `monitors.not_found` */
    get: mustGet,
    /**
     * Creates a monitor from a validated body; defaults per API.md §2.2, `status` starts `up`.
     * @throws AppError 400 for a broken cross-field rule, or a secret given as `***` (nothing to keep)
     */
    create(body: MonitorBodyInput): Monitor {
      const settings = resolveMonitorSettings(keepSecrets(body, null), monitorDefaults(config.probe.region), knownPolicy);
      const monitor = store.tx((tx) => tx.monitors.insert(newId(ID_PREFIX.monitor), settings, clock.now()));
      bus.emit('monitor.created', { monitor });
      return monitor;
    },
    /**
     * Partial update: the fields given are merged into the stored monitor, fields left out keep their
     * values, and the merged settings are checked as a whole; nothing is stored when they break a rule
     * (CONTRACT.md "Errors and validation"). A secret given as `***` keeps its stored value
     * (src/protocols/secrets.ts `keepSecrets`: same target only).
     * @throws AppError 404 / 400
     */
    update(uuid: string, body: Partial<MonitorBodyInput>): Monitor {
      let queued = 0;
      const monitor = store.tx((tx) => {
        const current = mustGet(uuid);
        // `***` sent back (a client writing what it read, the console's form) keeps the stored secret.
        const given = keepSecrets(body, current);
        const settings = resolveMonitorSettings({ ...given, name: given.name ?? current.name, url: given.url ?? current.url }, current, knownPolicy);
        const updated = tx.monitors.update(uuid, settings, clock.now())!;
        queued = certExpirySettingsChanged(tx, config, updated, clock.now());
        return updated;
      });
      bus.emit('monitor.updated', { monitor });
      if (queued > 0) bus.emit('notices.queued', { count: queued });
      return monitor;
    },
    /**
     * Deletes a monitor with its history and outages (CONTRACT.md "Monitors"); its open certificate
     * expiry notice is resolved at PagerDuty and Opsgenie (cert-expiry.ts).
     * @throws AppError 404
     */
    delete(uuid: string): void {
      let queued = 0;
      const monitor = store.tx((tx) => {
        const m = mustGet(uuid);
        queued = certExpiryDeleted(tx, config, m, clock.now());
        tx.monitors.delete(uuid);
        return m;
      });
      bus.emit('monitor.deleted', { monitorId: monitor.id, uuid });
      if (queued > 0) bus.emit('notices.queued', { count: queued });
    },
  };
}

/** The monitors service's interface. */
export type MonitorsService = ReturnType<typeof monitorsService>;
