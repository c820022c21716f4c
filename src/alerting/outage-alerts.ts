import type { Clock, TimerHandle } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Store } from '../store/index.ts';
import { timedPolicy, type TimedPolicy } from '../core/escalation.ts';
import { escalationOfSend, renderAlert } from '../domain/alert.ts';
import { sendChannels, sendDueAt } from '../domain/escalation.ts';
import { outageSubject } from '../domain/outage.ts';
import type { DecidedChange, DirectAlert } from '../core/checks-outage.ts';
import { sendDirect, type AlertMetrics, type ChannelLookup } from './dispatcher.ts';

/** How often the policies kept for database outages are read again, ms. */
export const POLICY_MEMORY_REFRESH_MS = 30_000;

/**
 * The escalation policies as last read from the database, for the alerts the leader sends while it
 * cannot read it (issue 31 point 5 with issue 32's stored policies): read when started and every
 * {@link POLICY_MEMORY_REFRESH_MS} after (one asynchronous read, never two at once); a failed read keeps
 * what was read before. A policy changed less than that long before a database outage may be used as
 * it was. With `warm`, each read also has a sender built for every integration the policies target
 * (`ChannelLookup.get`, which keeps the last one built): during the outage it is the sender used.
 */
export function policyMemory(deps: { store: Pick<Store, 'async'>; clock: Clock; logger: Logger; warm?: (channel: string) => unknown }) {
  let byUuid = new Map<string, TimedPolicy>();
  let timer: TimerHandle | null = null;
  let reading: Promise<void> | null = null;
  const read = () =>
    (reading ??= deps.store.async.escalationPolicies
      .list()
      .then(
        async (list) => {
          byUuid = new Map(list.map((p) => [p.uuid, timedPolicy(p)]));
          if (!deps.warm) return;
          for (const uuid of new Set([...byUuid.values()].flatMap((p) => p.steps.flatMap((s) => s.channels)))) {
            try {
              await deps.warm(uuid);
            } catch (e) {
              deps.logger.debug(`no sender kept for integration ${uuid} for database outages`, { error: (e as Error).message });
            }
          }
        },
        (e: unknown) => deps.logger.debug('escalation policies not re-read for database outages; the last ones read are kept', { error: (e as Error).message }),
      )
      .finally(() => (reading = null)));
  const tick = () => {
    void read();
    timer = deps.clock.setTimer(POLICY_MEMORY_REFRESH_MS, tick);
  };
  return {
    /** Reads now, then on its interval. */
    start(): void {
      if (!timer) tick();
    },
    /** Stops reading; resolves once the read in flight (if any) has ended. */
    async stop(): Promise<void> {
      timer?.cancel();
      timer = null;
      await reading;
    },
    /** The policy `uuid` as last read, or undefined. */
    get: (uuid: string): TimedPolicy | undefined => byUuid.get(uuid),
  };
}

/** The policies {@link policyMemory} keeps. */
export type PolicyMemory = ReturnType<typeof policyMemory>;

/**
 * The alerts of state changes the leader decides during a confirmed database outage (issue 31 point 5),
 * sent "with what it knows": the first step of the monitor's escalation policy when that step is due at
 * once (no `alerts_wait`, `after_minutes` 0), to its channels, under the outage uuid the stored outage
 * will keep; a recovery to the channels its alert reached. The incident number is not known yet (the
 * database gives it) and the text says the message was sent during a database outage. Maintenance
 * windows and the flood guard live in the database and are not consulted; later steps, escalations
 * and everything else wait for the database. The policy comes from {@link policyMemory} (the database
 * cannot be read); its integrations are reached through the senders last built for them.
 * @param deps.confirmed true while the outage is confirmed (`Leadership.outageConfirmed`)
 */
export function directAlerts(deps: {
  publicUrl: string;
  policy: (uuid: string) => TimedPolicy | undefined;
  channels: ChannelLookup;
  logger: Logger;
  metrics: AlertMetrics;
  now: () => number;
  confirmed: () => boolean;
}): DirectAlert {
  const base = deps.publicUrl.replace(/\/+$/, '');
  return (c: DecidedChange) => {
    if (!deps.confirmed()) return null;
    const now = deps.now();
    const { monitor } = c;
    const source = {
      uuid: c.outageUuid,
      incidentNumber: 0,
      description: c.description,
      severity: 'minor' as const,
      startAt: c.startAt,
      endAt: c.endAt,
      monitor: outageSubject({ monitor: { uuid: monitor.uuid, name: monitor.name, url: monitor.url, protocol: monitor.protocol }, healthcheck: null }, () => ''),
    };
    let names: readonly string[];
    let escalation = null;
    if (c.kind === 'recovery') names = c.channels ?? [];
    else {
      const policy = monitor.escalationPolicyUuid ? deps.policy(monitor.escalationPolicyUuid) : undefined;
      // Anything but an alert due at once needs the schedule the database keeps.
      if (!policy || monitor.alertsWaitMinutes !== 0 || (sendDueAt(policy, c.startAt, 0) ?? Infinity) > c.startAt) return Promise.resolve([]);
      names = sendChannels(policy, 0);
      escalation = escalationOfSend({ uuid: policy.uuid, name: policy.name, totalSteps: policy.steps.length }, 0);
    }
    if (names.length === 0) return Promise.resolve([]);
    const message = renderAlert(c.kind, source, escalation, `${base}/outages/${c.outageUuid}`, now);
    message.text = `${message.text.replace('INC-0', 'incident number pending')} Sent during a database outage by the leader, from its memory: the outage is stored when the database is back.`;
    return sendDirect(deps, names, message);
  };
}
