import type { Config } from '../config/schema.ts';
import { noticeKey, type AlertMessage } from '../domain/alert.ts';
import { followsAcknowledgements } from '../domain/channels/index.ts';
import { sendChannels } from '../domain/escalation.ts';
import type { Monitor } from '../domain/monitor.ts';
import { crossedThreshold } from '../protocols/expiry.ts';
import { maskUrl } from '../protocols/target.ts';
import type { Store } from '../store/index.ts';
import { integrationOf, policyIn } from './escalation.ts';

/**
 * What certificate expiry notices read of the config: `public_url` (policies and integrations are
 * read from the store in the caller's transaction, issue 32; the other keys are no longer read).
 */
export type CertExpiryConfig = Pick<Config, 'escalation_policies' | 'channels' | 'public_url'>;

/**
 * Certificate expiry alerts (issue 17): when a monitor with `tls_expiry_days` (tls monitors by
 * default, https monitors when set) reports a certificate with fewer days left than a threshold,
 * one notice goes to the first step of its escalation policy, once per threshold (30, 14, 7, 1 by
 * default): the smallest threshold alerted is kept on the monitor, and reset once a renewed
 * certificate is above every threshold. Called inside the results transaction (house rule 3).
 *
 * Each notice is about `cert:<monitor uuid>:<threshold>` (issue #30), so PagerDuty and Opsgenie
 * open one alert under that key, and it is closed when it is over:
 * - a lower threshold replaces it: the new notice opens under its own key and the old key is
 *   resolved at the channels that track alerts (chat channels get only the new notice);
 * - the certificate is renewed (above every threshold): every channel of the step gets
 *   `Certificate renewed: …`, which resolves the key at PagerDuty and Opsgenie;
 * - expiry alerts are switched off on the monitor (`tls_expiry_days: null`): resolved at the
 *   tracking channels ({@link certExpirySettingsChanged} at once, or here at the next reading).
 *   Deleting the monitor: {@link certExpiryDeleted}.
 * The channels are the integrations of the monitor's policy as stored now (a policy changed in between
 * gets the resolve).
 * @returns how many outbox rows were queued
 */
export function certExpiryNotice(store: Store, config: CertExpiryConfig, m: Monitor, daysLeft: number | null, now: number): number {
  if (daysLeft === null) return 0;
  const thresholds = m.settings.tls_expiry_days as number[] | null | undefined;
  const alerted = store.monitors.tlsAlertedDays(m.id);
  const crossed = thresholds ? crossedThreshold(daysLeft, thresholds) : null;
  if (crossed === null) {
    if (alerted === null) return 0;
    store.monitors.setTlsAlertedDays(m.id, null);
    return thresholds ? certNoticeEnded(store, config, m, alerted, 'renewed', daysLeft, now) : certNoticeEnded(store, config, m, alerted, 'off', daysLeft, now);
  }
  if (alerted !== null && crossed >= alerted) return 0;
  store.monitors.setTlsAlertedDays(m.id, crossed);
  const to = recipients(store, m);
  if (!to) return 0;
  const when = daysLeft < 0 ? `expired ${-daysLeft} day${daysLeft === -1 ? '' : 's'} ago` : daysLeft === 0 ? 'expires today' : `expires in ${daysLeft} day${daysLeft === 1 ? '' : 's'}`;
  const message: AlertMessage = {
    kind: 'notice',
    title: `Certificate ${when}: ${m.name} (${maskUrl(m.url)})`,
    text: `The TLS certificate served for ${m.name} (${maskUrl(m.url)}) ${when}. Pharos alerts once at each of ${thresholds!.join(', ')} days before expiry.`,
    outage: null,
    escalation: to.escalation,
    link: `${config.public_url.replace(/\/+$/, '')}/monitors/${m.uuid}`,
    createdAt: new Date(now).toISOString(),
    subject: { key: noticeKey.cert(m.uuid, crossed), resolve: false },
  };
  queue(store, to.all, message, now);
  return to.all.length + (alerted === null ? 0 : certNoticeEnded(store, config, m, alerted, 'replaced', daysLeft, now));
}

/**
 * Resolves the open certificate notice of a monitor being deleted (if any) at the channels of its
 * policy that track alerts (PagerDuty, Opsgenie). Call inside the deleting transaction, before the
 * monitor's row goes. @returns how many outbox rows were queued
 */
export function certExpiryDeleted(store: Store, config: CertExpiryConfig, m: Monitor, now: number): number {
  const alerted = store.monitors.tlsAlertedDays(m.id);
  return alerted === null ? 0 : certNoticeEnded(store, config, m, alerted, 'deleted', null, now);
}

/**
 * After a monitor's settings changed: when expiry alerts are now off (`tls_expiry_days: null`)
 * and a notice is open, resolves it at the tracking channels and forgets the threshold. Call inside
 * the updating transaction. @returns how many outbox rows were queued
 */
export function certExpirySettingsChanged(store: Store, config: CertExpiryConfig, m: Monitor, now: number): number {
  if (m.settings.tls_expiry_days) return 0;
  const alerted = store.monitors.tlsAlertedDays(m.id);
  if (alerted === null) return 0;
  store.monitors.setTlsAlertedDays(m.id, null);
  return certNoticeEnded(store, config, m, alerted, 'off', null, now);
}

/** Why a certificate notice ends; only `renewed` is news for people on chat channels. */
type Ending = 'renewed' | 'replaced' | 'off' | 'deleted';

/** Queues the resolve of `cert:<monitor>:<threshold>`. @returns rows queued */
function certNoticeEnded(store: Store, config: CertExpiryConfig, m: Monitor, threshold: number, why: Ending, daysLeft: number | null, now: number): number {
  const to = recipients(store, m);
  if (!to) return 0;
  const what = `${m.name} (${maskUrl(m.url)})`;
  const [title, text] =
    why === 'renewed'
      ? [`Certificate renewed: ${what}`, `The TLS certificate served for ${what} now expires in ${daysLeft} days, above every alert threshold.`]
      : why === 'replaced'
        ? [`Certificate notice replaced: ${what}`, `The ${threshold}-day notice is replaced by the notice of a nearer threshold.`]
        : why === 'off'
          ? [`Certificate alerts off: ${what}`, `Certificate expiry alerts were switched off for ${what}.`]
          : [`Monitor deleted: ${what}`, `The monitor ${what} was deleted; its certificate expiry notice is closed.`];
  const message: AlertMessage = {
    kind: 'notice',
    title,
    text,
    outage: null,
    escalation: to.escalation,
    link: why === 'deleted' ? null : `${config.public_url.replace(/\/+$/, '')}/monitors/${m.uuid}`,
    createdAt: new Date(now).toISOString(),
    subject: { key: noticeKey.cert(m.uuid, threshold), resolve: true },
  };
  const channels = why === 'renewed' ? to.all : to.tracking;
  queue(store, channels, message, now);
  return channels.length;
}

/**
 * The first step of the monitor's policy as stored now (read in the caller's transaction): all its
 * integrations and those whose kind follows alerts' lifecycle, and the escalation context of a
 * notice to them; null without a policy. Also used by domain expiry notices (core/domain-expiry.ts).
 */
export function recipients(store: Store, m: Monitor): { all: readonly string[]; tracking: readonly string[]; escalation: AlertMessage['escalation'] } | null {
  const policy = policyIn(store, m.escalationPolicyUuid);
  if (!policy) return null;
  const all = sendChannels(policy, 0);
  return {
    all,
    tracking: all.filter((c) => {
      const i = integrationOf(store, c);
      return i !== undefined && followsAcknowledgements(i.kind);
    }),
    escalation: { policyUuid: policy.uuid, policyName: policy.name, step: 1, totalSteps: policy.steps.length, repeat: 0 },
  };
}

/** Queues `message` as a notice row due at `now` (epoch ms) to each of `channels`, inside the caller's transaction. */
export function queue(store: Store, channels: readonly string[], message: AlertMessage, now: number): void {
  const json = JSON.stringify(message);
  for (const channel of channels) store.alerts.insert({ outageUuid: null, channel, kind: 'notice', step: null, message: json, createdAt: now, dueAt: now });
}
