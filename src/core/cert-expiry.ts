import type { Config } from '../config/schema.ts';
import type { AlertMessage } from '../domain/alert.ts';
import { sendChannels } from '../domain/escalation.ts';
import type { Monitor } from '../domain/monitor.ts';
import { crossedThreshold } from '../protocols/expiry.ts';
import type { Store } from '../store/index.ts';

/**
 * Certificate expiry alerts (issue 17): when a monitor with `tls_expiry_days` (tls monitors by
 * default, https monitors when set) reports a certificate with fewer days left than a threshold,
 * one notice goes to the first step of its escalation policy, once per threshold (30, 14, 7, 1 by
 * default): the smallest threshold alerted is kept on the monitor, and reset once a renewed
 * certificate is above every threshold. Called inside the results transaction (house rule 3).
 * @returns how many outbox rows were queued
 */
export function certExpiryNotice(store: Store, policies: Config['escalation_policies'], publicUrl: string, m: Monitor, daysLeft: number | null, now: number): number {
  const thresholds = m.settings.tls_expiry_days as number[] | null | undefined;
  if (!thresholds || daysLeft === null) return 0;
  const crossed = crossedThreshold(daysLeft, thresholds);
  const alerted = store.monitors.tlsAlertedDays(m.id);
  if (crossed === null) {
    if (alerted !== null) store.monitors.setTlsAlertedDays(m.id, null);
    return 0;
  }
  if (alerted !== null && crossed >= alerted) return 0;
  store.monitors.setTlsAlertedDays(m.id, crossed);
  const policy = m.escalationPolicyUuid ? policies.find((p) => p.uuid === m.escalationPolicyUuid) : undefined;
  if (!policy) return 0;
  const when = daysLeft < 0 ? `expired ${-daysLeft} day${daysLeft === -1 ? '' : 's'} ago` : daysLeft === 0 ? 'expires today' : `expires in ${daysLeft} day${daysLeft === 1 ? '' : 's'}`;
  const message: AlertMessage = {
    kind: 'notice',
    title: `Certificate ${when}: ${m.name} (${m.url})`,
    text: `The TLS certificate served for ${m.name} (${m.url}) ${when}. Pharos alerts once at each of ${thresholds.join(', ')} days before expiry.`,
    outage: null,
    escalation: { policyUuid: policy.uuid, policyName: policy.name, step: 1, totalSteps: policy.steps.length, repeat: 0 },
    link: `${publicUrl.replace(/\/+$/, '')}/monitors/${m.uuid}`,
    createdAt: new Date(now).toISOString(),
  };
  const channels = sendChannels(policy, 0);
  for (const channel of channels) store.alerts.insert({ outageUuid: null, channel, kind: 'notice', step: null, message: JSON.stringify(message), createdAt: now, dueAt: now });
  return channels.length;
}
