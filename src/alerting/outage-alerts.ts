import type { Config } from '../config/schema.ts';
import type { Logger } from '../lib/logger.ts';
import { escalationOfSend, renderAlert } from '../domain/alert.ts';
import { sendChannels, sendDueAt } from '../domain/escalation.ts';
import { outageSubject } from '../domain/outage.ts';
import type { DecidedChange, DirectAlert } from '../core/checks-outage.ts';
import { sendDirect, type AlertMetrics, type ChannelLookup } from './dispatcher.ts';

/**
 * The alerts of state changes the leader decides during a confirmed database outage (issue 31 point 5),
 * sent "with what it knows": the first step of the monitor's escalation policy when that step is due at
 * once (no `alerts_wait`, `after_minutes` 0), to its channels, under the outage uuid the stored outage
 * will keep; a recovery to the channels its alert reached. The incident number is not known yet (the
 * database gives it) and the text says the message was sent during a database outage. Maintenance
 * windows and the flood guard live in the database and are not consulted; later steps, escalations
 * and everything else wait for the database.
 * @param deps.confirmed true while the outage is confirmed (`Leadership.outageConfirmed`)
 */
export function directAlerts(deps: {
  config: Pick<Config, 'escalation_policies' | 'public_url'>;
  channels: ChannelLookup;
  logger: Logger;
  metrics: AlertMetrics;
  now: () => number;
  confirmed: () => boolean;
}): DirectAlert {
  const base = deps.config.public_url.replace(/\/+$/, '');
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
      const policy = deps.config.escalation_policies.find((p) => p.uuid === monitor.escalationPolicyUuid);
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
