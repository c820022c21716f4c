import { noticeKey, type AlertMessage } from '../domain/alert.ts';
import type { Monitor } from '../domain/monitor.ts';
import { crossedThreshold } from '../protocols/expiry.ts';
import { maskUrl } from '../protocols/target.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import { queue, recipients } from './cert-expiry.ts';

const DAY_MS = 86_400_000;

/** What one RDAP reading records (src/domain-expiry.ts reads it, outside any transaction). */
export interface DomainExpiryReading {
  monitorUuid: string;
  /** The registrable domain the date belongs to (`example.co.uk`), for the notice. */
  domain: string;
  /** Its RDAP `expiration` event, epoch ms. */
  expiresAt: number;
  /** Epoch ms of the reading. */
  now: number;
  /** `public_url`, for the notice's link. */
  publicUrl: string;
}

/**
 * Records a domain's expiration on a monitor and sends its warnings (issue 36), in one transaction
 * (house rule 3: commit, then the dispatcher delivers): as certificate expiry notices do
 * (src/core/cert-expiry.ts), one notice goes to the first step of the monitor's escalation policy
 * each time a lower `domain_expiry_days` threshold is crossed (`Domain expires in 12 days:
 * example.com (Shop)`), keyed `domain:<monitor uuid>:<threshold>`; once a renewal puts the date
 * above every threshold, `Domain renewed: …` resolves it. Thresholds switched off: nothing is sent,
 * the open threshold is forgotten. A monitor deleted meanwhile: nothing.
 * @returns how many outbox rows were queued
 */
export const recordDomainExpiry = procedure('domainExpiry.record', (tx: Store, a: DomainExpiryReading): number => {
  const m = tx.monitors.get(a.monitorUuid);
  if (!m) return 0;
  const thresholds = (m.settings.domain_expiry_days as number[] | null | undefined) ?? null;
  const { alertedDays } = tx.monitors.domainExpiry(m.id);
  const daysLeft = Math.floor((a.expiresAt - a.now) / DAY_MS);
  const crossed = thresholds ? crossedThreshold(daysLeft, thresholds) : null;
  const what = `${a.domain} (${m.name})`;
  const link = `${a.publicUrl.replace(/\/+$/, '')}/monitors/${m.uuid}`;
  if (crossed === null) {
    tx.monitors.setDomainExpiry(m.id, a.expiresAt, null);
    if (alertedDays === null || !thresholds) return 0;
    return notify(tx, m, {
      title: `Domain renewed: ${what}`,
      text: `The domain ${a.domain} of ${m.name} (${maskUrl(m.url)}) now expires in ${daysLeft} days, above every alert threshold.`,
      key: noticeKey.domain(m.uuid, alertedDays),
      resolve: true,
      link,
      now: a.now,
    });
  }
  if (alertedDays !== null && crossed >= alertedDays) {
    tx.monitors.setDomainExpiry(m.id, a.expiresAt, alertedDays);
    return 0;
  }
  tx.monitors.setDomainExpiry(m.id, a.expiresAt, crossed);
  const when = daysLeft < 0 ? `expired ${-daysLeft} day${daysLeft === -1 ? '' : 's'} ago` : daysLeft === 0 ? 'expires today' : `expires in ${daysLeft} day${daysLeft === 1 ? '' : 's'}`;
  return notify(tx, m, {
    title: `Domain ${when}: ${what}`,
    text: `The domain ${a.domain} of ${m.name} (${maskUrl(m.url)}) ${when} (${new Date(a.expiresAt).toISOString().slice(0, 10)}, from its registry's RDAP record). Pharos warns once at each of ${thresholds!.join(', ')} days before expiry.`,
    key: noticeKey.domain(m.uuid, crossed),
    resolve: false,
    link,
    now: a.now,
  });
});

/** Queues one notice to every integration of the first step of the monitor's policy (none without a policy). @returns rows queued */
function notify(tx: Store, m: Monitor, n: { title: string; text: string; key: string; resolve: boolean; link: string; now: number }): number {
  const to = recipients(tx, m);
  if (!to) return 0;
  const message: AlertMessage = {
    kind: 'notice',
    title: n.title,
    text: n.text,
    outage: null,
    escalation: to.escalation,
    link: n.link,
    createdAt: new Date(n.now).toISOString(),
    subject: { key: n.key, resolve: n.resolve },
  };
  queue(tx, to.all, message, n.now);
  return to.all.length;
}
