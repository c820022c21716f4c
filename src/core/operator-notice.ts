import type { Config } from '../config/schema.ts';
import type { AlertMessage } from '../domain/alert.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import type { Core } from './index.ts';

/**
 * Operator notices: messages to the operator's channels that something about Pharos itself failed
 * (the flood guard's connectivity loss `flood:<region>`, a failed backup `backup:failed`, a
 * certificate ACME could not obtain `tls:failed:<host>`), and the notice that says it is over. The
 * `key` is the notice's subject (domain/alert.ts `NoticeSubject`): PagerDuty (`dedup_key`) and
 * Opsgenie (`alias`) open one alert under it and close it with the resolving notice of the same key.
 */

/** What one operator notice says. */
export interface OperatorNotice {
  /** The subject's stable key, the same for the notice that raises and the one that resolves it. */
  key: string;
  /** One line, e.g. `Pharos backup failed`. */
  title: string;
  /** A few sentences for a person. */
  text: string;
}

/** What queueing an operator notice needs: the store, the event bus, and the channels of the config. */
export interface OperatorNoticeDeps {
  store: Store;
  core: Pick<Core, 'bus'>;
  config: Pick<Config, 'alerting' | 'channels'>;
}

type NoticeRow = Parameters<Store['alerts']['insert']>[0];

/** Queues the outbox rows of one operator notice (one a channel) in one transaction. */
const queueNotice = procedure('operatorNotice.queue', (tx: Store, rows: NoticeRow[]): void => {
  for (const row of rows) tx.alerts.insert(row);
});

/**
 * Queues `notice` to the flood guard's channels (`alerting.flood_guard.channels`; every configured
 * channel when it names none), due at once, then emits `notices.queued` (wakes the dispatcher).
 * Resolves with the number of rows queued: 0, and nothing stored, when no channel is configured.
 */
async function queue(deps: OperatorNoticeDeps, notice: OperatorNotice, resolve: boolean, now: number): Promise<number> {
  const named = deps.config.alerting.flood_guard.channels;
  const channels = named.length > 0 ? named : deps.config.channels.map((c) => c.name);
  if (channels.length === 0) return 0;
  const message: AlertMessage = {
    kind: 'notice',
    title: notice.title,
    text: notice.text,
    outage: null,
    escalation: null,
    link: null,
    createdAt: new Date(now).toISOString(),
    subject: { key: notice.key, resolve },
  };
  const rows = channels.map((channel): NoticeRow => ({ outageUuid: null, channel, kind: 'notice', step: null, message: JSON.stringify(message), createdAt: now, dueAt: now }));
  await deps.store.async.tx(queueNotice, rows);
  deps.core.bus.emit('notices.queued', { count: rows.length });
  return rows.length;
}

/**
 * Raises an operator notice: queues `notice` (subject `key`, not resolving) to the flood guard's
 * channels, or to every configured channel when those name none, in one transaction, created and
 * due at `now` (epoch ms); then emits `notices.queued`. Resolves with the number of rows queued (0
 * when no channel is configured: nothing is stored).
 * @throws (rejects) what the store throws (AppError 503 `store.unavailable` on PostgreSQL); nothing was queued then
 */
export function raiseOperatorNotice(deps: OperatorNoticeDeps, notice: OperatorNotice, now: number): Promise<number> {
  return queue(deps, notice, false, now);
}

/**
 * Resolves the operator notice of `notice.key`: the same as {@link raiseOperatorNotice}, with
 * `subject.resolve` true, so PagerDuty and Opsgenie close the alert they opened under that key.
 * @throws (rejects) what the store throws (AppError 503 `store.unavailable` on PostgreSQL); nothing was queued then
 */
export function resolveOperatorNotice(deps: OperatorNoticeDeps, notice: OperatorNotice, now: number): Promise<number> {
  return queue(deps, notice, true, now);
}
