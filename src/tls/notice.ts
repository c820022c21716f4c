import type { Config } from '../config/schema.ts';
import type { Core } from '../core/index.ts';
import type { AlertMessage } from '../domain/alert.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';

/** Operator notices of certificate failures, queued in one transaction (src/store-host.ts imports this module). */
const queueTlsNotice = procedure('tls.notice', (tx: Store, rows: Array<Parameters<Store['alerts']['insert']>[0]>): void => {
  for (const row of rows) tx.alerts.insert(row);
});

/**
 * Queues an operator notice "certificate for <host> failed" to the flood guard's channels (every
 * channel when it names none), keyed `tls:failed:<host>`, like a failed backup's (src/backup-schedule.ts);
 * `error` null: the notice that resolves it (a certificate obtained after a failure).
 * Nothing is queued when no channel is configured.
 */
export function tlsNotifier(deps: { store: Store; core: Pick<Core, 'bus'>; config: Pick<Config, 'alerting' | 'channels'> }) {
  return async (host: string, error: string | null, now: number): Promise<void> => {
    const named = deps.config.alerting.flood_guard.channels;
    const channels = named.length > 0 ? named : deps.config.channels.map((c) => c.name);
    if (channels.length === 0) return;
    const message: AlertMessage = {
      kind: 'notice',
      title: error === null ? `Pharos obtained a certificate for ${host} again` : `Pharos could not obtain a certificate for ${host}`,
      text: error ?? `The certificate for ${host} was obtained after earlier failures.`,
      outage: null,
      escalation: null,
      link: null,
      createdAt: new Date(now).toISOString(),
      subject: { key: `tls:failed:${host}`, resolve: error === null },
    };
    const rows = channels.map((channel) => ({ outageUuid: null, channel, kind: 'notice' as const, step: null, message: JSON.stringify(message), createdAt: now, dueAt: now }));
    await deps.store.async.tx(queueTlsNotice, rows);
    deps.core.bus.emit('notices.queued', { count: rows.length });
  };
}
