import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, invalid } from '../lib/errors.ts';
import { rateLimitKey } from '../lib/ip-ranges.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import type { AlertMessage } from '../domain/alert.ts';
import type { Incident } from '../domain/incident.ts';
import type { MaintenanceWindow } from '../domain/maintenance.ts';
import { confirmNotice, incidentNotice, maintenanceNotice, smsCodeNotice, welcomeNotice, type IncidentChange } from '../domain/page-notice.ts';
import type { Statuspage } from '../domain/statuspage.ts';
import { webhookTargetProblem } from '../domain/subscriber-target.ts';
import { smsNumberAllowed } from '../domain/subscriber-caps.ts';
import type { Store } from '../store/index.ts';
import type { Subscriber, SubscriberChannel } from '../domain/subscriber.ts';
import type { EventBus } from './events.ts';
import type { PageAccessService } from './page-access.ts';
import { subscriberCaps } from './subscriber-caps.ts';

/** Outbox channel name of a subscriber: the dispatcher resolves it (alerting/subscriber-channels.ts). */
export const SUBSCRIBER_CHANNEL_PREFIX = 'subscriber:';

const Email = z.email();
/** E.164 after removing spaces, dashes, dots and parentheses. */
const E164 = /^\+[1-9]\d{6,14}$/;
/** How long an SMS code is valid, and how many wrong tries end the pending subscription. */
const CODE_TTL_MS = 15 * 60_000;
const CODE_MAX_ATTEMPTS = 5;
const codeHash = (uuid: string, code: string) => createHash('sha256').update(`${uuid}:${code}`).digest('hex');
const DAY_MS = 86_400_000;
const HOUR_S = 3600;

/** What a subscribe request did. */
export interface SubscribeResult {
  subscriber: Subscriber;
  /**
   * `confirm`: a confirmation mail was queued; `code`: an SMS code was queued (or one sent less
   * than 15 minutes ago is still valid) and must be entered; `subscribed`: active at once
   * (webhooks); `already`: nothing to do.
   */
  outcome: 'confirm' | 'code' | 'subscribed' | 'already';
}

/**
 * Status-page subscriptions (issue "Status pages", docs/api.md "Subscriptions"): email with double
 * opt-in (a confirm link; an unsubscribe link in every mail), Slack and Teams incoming webhooks
 * (active at once, greeted with a first message), SMS through the twilio channel (a 6-digit code
 * texted to the number must be entered on the page before anything else is sent). Messages go through the alert outbox (channel
 * `subscriber:<uuid>`) in the same transaction as the write that caused them, so they survive
 * restarts and are retried like alerts.
 */
export function subscriptionsService(deps: { store: Store; clock: Clock; config: Readonly<Config>; access: PageAccessService; bus: EventBus }) {
  const { store, clock, config, access, bus } = deps;
  const base = config.public_url.replace(/\/+$/, '');
  const pageUrl = (page: Statuspage) => `${base}/status/${page.subdomain}`;
  const queue = (subscriber: Subscriber, message: AlertMessage, now: number) =>
    store.alerts.insert({ outageUuid: null, channel: SUBSCRIBER_CHANNEL_PREFIX + subscriber.uuid, kind: 'notice', step: null, message: JSON.stringify(message), createdAt: now, dueAt: now });
  const enabled = (page: Statuspage) => page.settings.subscribe.enabled;
  const limits = config.status_pages.subscriptions;
  const perAddress = new RateLimiterMemory({ keyPrefix: 'sub-addr', points: limits.per_address_per_hour, duration: HOUR_S });
  const perPage = new RateLimiterMemory({ keyPrefix: 'sub-page', points: limits.per_page_per_hour, duration: HOUR_S });
  const policy = { allowedHosts: limits.allowed_webhook_hosts, allowPrivateTargets: limits.allow_private_targets };
  const caps = subscriberCaps({ config });

  /** The twilio channel SMS subscribers are texted through, or undefined. */
  const smsChannel = () => config.channels.find((c) => c.type === 'twilio' && (config.status_pages.sms_channel === undefined || c.name === config.status_pages.sms_channel));

  /** The email channel subscriber mails go through, or undefined. */
  const emailChannel = () =>
    config.channels.find((c) => c.type === 'email' && (config.status_pages.email_channel === undefined || c.name === config.status_pages.email_channel));

  const toPages = (uuids: readonly string[]) => uuids.map((u) => store.statuspages.get(u)).filter((p): p is Statuspage => p !== undefined && enabled(p));

  const service = {
    /** Channels a visitor may choose on this page (email only with an email channel configured). */
    channels(page: Statuspage): SubscriberChannel[] {
      const s = page.settings.subscribe;
      if (!s.enabled) return [];
      const out: SubscriberChannel[] = [];
      if (s.email && emailChannel()) out.push('email');
      if (s.slack) out.push('slack');
      if (s.teams) out.push('teams');
      // SMS costs the operator money: off until an admin names the countries it may text (issue 30).
      if (s.sms && smsChannel() && limits.sms_countries.length > 0) out.push('sms');
      return out;
    },
    /** Absolute confirm and unsubscribe links of a subscriber. */
    links(page: Statuspage, subscriberUuid: string) {
      const q = (purpose: 'confirm' | 'unsubscribe') => `${pageUrl(page)}/subscribe/${purpose}?s=${encodeURIComponent(subscriberUuid)}&t=${access.linkToken(purpose, subscriberUuid)}`;
      return { page: pageUrl(page), confirm: q('confirm'), unsubscribe: q('unsubscribe') };
    },
    /**
     * Subscribes `target` (an email address or a webhook URL) on `page` for a visitor at `client`
     * (its address). Abuse limits (docs/api.md "Hardening (security)"): `per_address_per_hour`
     * requests per client address (an IPv6 client by its /64) and `per_page_per_hour` per page, at
     * most one confirmation mail per address, page and day (a repeat answers `confirm` and sends
     * nothing), and `max_per_page` subscribers. Webhook URLs must pass {@link webhookTargetProblem}.
     * SMS numbers must be of an allowed country (`sms_countries`; none: SMS is off); codes and
     * confirmation mails are counted against the caps of core/subscriber-caps.ts (issue 30).
     * @throws AppError 400 naming `channel` (not offered on this page) or `target` (not an address/URL, or not allowed),
     *   429 `subscriptions.too_many` (rate limits, a number block's or a mailbox's caps), `subscriptions.sms_paused`
     *   (the texts of the hour or day are used up), `subscriptions.code_pending` (the number has not typed back its
     *   last code), 409 `subscriptions.full` (the page's cap)
     */
    async subscribe(page: Statuspage, channel: string, target: string, client: string): Promise<SubscribeResult> {
      try {
        await perAddress.consume(rateLimitKey(client));
        await perPage.consume(page.uuid);
      } catch (e) {
        if (!(e instanceof RateLimiterRes)) throw e;
        const s = Math.max(1, Math.ceil(e.msBeforeNext / 1000));
        throw new AppError(429, 'subscriptions.too_many', `too many subscribe requests; try again in ${s} s`);
      }
      if (!(service.channels(page) as string[]).includes(channel)) throw invalid('channel', `must be one of ${service.channels(page).join(', ') || '(none: subscriptions are off)'}`);
      const ch = channel as SubscriberChannel;
      const t = ch === 'sms' ? target.replace(/[\s().-]/g, '') : target.trim();
      if (ch === 'sms') {
        if (!E164.test(t)) throw invalid('target', 'must be a phone number with its country code, such as +44 20 7946 0000');
        if (!smsNumberAllowed(t, limits.sms_countries)) throw invalid('target', `must be a mobile number of an allowed country (${limits.sms_countries.join(', ')})`);
      } else if (ch === 'email') {
        if (!Email.safeParse(t).success || t.length > 254) throw invalid('target', 'must be an email address');
      } else {
        const problem = t.length > 2048 ? 'must be at most 2048 characters' : webhookTargetProblem(ch, t, policy);
        if (problem) throw invalid('target', problem);
      }
      const now = clock.now();
      const r = store.tx((tx): SubscribeResult & { queued: boolean } => {
        const found = tx.subscribers.find(page.id, ch, ch === 'email' ? t.toLowerCase() : t);
        if (found?.confirmedAt) return { subscriber: found, outcome: 'already', queued: false };
        if (ch === 'sms') {
          // One valid code at a time per number and page: asking again within its 15 minutes
          // sends nothing more (a stranger cannot make Pharos text someone over and over).
          const pending = found && tx.subscribers.code(found.uuid);
          if (found && pending?.expiresAt && pending.expiresAt > now) return { subscriber: found, outcome: 'code', queued: false };
        } else if (found && found.confirmSentAt !== null && now - found.confirmSentAt < DAY_MS) {
          // One confirmation mail per address, page and day, however often it is entered (the answer is the same).
          return { subscriber: found, outcome: 'confirm', queued: false };
        }
        // Anything past here adds one to the count (a new row, or a pending one whose day ran out).
        if (tx.subscribers.countActive(page.id, now - DAY_MS) >= limits.max_per_page) {
          throw new AppError(409, 'subscriptions.full', 'this page takes no more subscribers');
        }
        if (ch === 'sms') {
          // Throws (rolling the transaction back) when the number still waits for a code or a cap is full.
          caps.takeCode(tx, t, now);
          const s = found ?? tx.subscribers.insert(newId(ID_PREFIX.subscriber), page.id, ch, t, null, now);
          const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
          tx.subscribers.setCode(s.uuid, codeHash(s.uuid, code), now + CODE_TTL_MS);
          tx.subscribers.markConfirmSent(s.uuid, now);
          queue(s, smsCodeNotice(page.name, code, now), now);
          return { subscriber: s, outcome: 'code', queued: true };
        }
        if (ch === 'email') {
          caps.takeConfirmMail(tx, t, now);
          const s = found ?? tx.subscribers.insert(newId(ID_PREFIX.subscriber), page.id, ch, t.toLowerCase(), null, now);
          tx.subscribers.markConfirmSent(s.uuid, now);
          queue(s, confirmNotice(page.name, service.links(page, s.uuid).confirm, now), now);
          return { subscriber: s, outcome: 'confirm', queued: true };
        }
        const s = tx.subscribers.insert(newId(ID_PREFIX.subscriber), page.id, ch, t, now, now);
        queue(s, welcomeNotice(page.name, pageUrl(page), now), now);
        return { subscriber: s, outcome: 'subscribed', queued: true };
      });
      if (r.queued) bus.emit('notices.queued', { count: 1 });
      return { subscriber: r.subscriber, outcome: r.outcome };
    },
    /**
     * Confirms an SMS subscription with the code texted to it. Five wrong codes, or an expired
     * one, end the pending subscription (subscribe again for a new code).
     * @throws AppError 404 `subscriptions.invalid_link` (unknown, another page's, or not a pending
     *   SMS subscriber); 400 `subscriptions.wrong_code` naming the tries left;
     *   400 `subscriptions.code_expired`
     */
    confirmCode(page: Statuspage, subscriberUuid: string, code: string): Subscriber {
      const now = clock.now();
      const outcome = store.tx((tx): Subscriber | AppError => {
        const s = tx.subscribers.get(subscriberUuid);
        const pending = s && tx.subscribers.code(s.uuid);
        if (!s || s.statuspageId !== page.id || s.channel !== 'sms' || s.confirmedAt !== null || !pending?.hash || pending.expiresAt === null) {
          return new AppError(404, 'subscriptions.invalid_link', 'this subscription is not waiting for a code (subscribe again)');
        }
        if (pending.expiresAt <= now) {
          tx.subscribers.delete(s.uuid);
          return new AppError(400, 'subscriptions.code_expired', 'code: has expired; subscribe again for a new one');
        }
        const given = Buffer.from(codeHash(s.uuid, code.trim()));
        if (!timingSafeEqual(given, Buffer.from(pending.hash))) {
          const left = CODE_MAX_ATTEMPTS - pending.attempts - 1;
          if (left <= 0) tx.subscribers.delete(s.uuid);
          else tx.subscribers.failCode(s.uuid);
          return new AppError(400, 'subscriptions.wrong_code', left > 0 ? `code: is not the one we sent (${left} tries left)` : 'code: is not the one we sent; subscribe again for a new one');
        }
        tx.subscribers.confirm(s.uuid, now);
        tx.subscribers.clearCode(s.uuid);
        caps.codeTypedBack(tx, s.target);
        return tx.subscribers.get(s.uuid)!;
      });
      if (outcome instanceof AppError) throw outcome;
      return outcome;
    },
    /**
     * Confirms an email subscription from its link.
     * @throws AppError 404 `subscriptions.invalid_link` for a wrong token, another page's or a deleted subscriber
     */
    confirm(page: Statuspage, subscriberUuid: string, token: string): Subscriber {
      const s = mustLink(page, 'confirm', subscriberUuid, token);
      store.tx((tx) => tx.subscribers.confirm(s.uuid, clock.now()));
      return store.subscribers.get(s.uuid)!;
    },
    /** Ends a subscription from its link. @throws AppError 404 as {@link confirm} */
    unsubscribe(page: Statuspage, subscriberUuid: string, token: string): void {
      const s = mustLink(page, 'unsubscribe', subscriberUuid, token);
      store.tx((tx) => tx.subscribers.delete(s.uuid));
    },
    /** Checks a link without acting on it (the page that shows the confirm button). */
    checkLink(page: Statuspage, purpose: 'confirm' | 'unsubscribe', subscriberUuid: string, token: string): Subscriber {
      return mustLink(page, purpose, subscriberUuid, token);
    },
    /** Queues an incident's change for the confirmed subscribers of its pages. Call inside the incident's transaction. */
    queueIncident(incident: Incident, change: IncidentChange): number {
      const now = clock.now();
      let n = 0;
      for (const page of toPages(incident.statuspages)) {
        const msg = incidentNotice(page.name, page.settings.languages[0] ?? 'en', incident, change, pageUrl(page), now);
        for (const s of store.subscribers.confirmedOf(page.id)) (queue(s, msg, now), n++);
      }
      return n;
    },
    /**
     * Queues a maintenance notice for the confirmed subscribers of the window's pages, once per
     * window (`notified_at`). Call inside a transaction. @returns messages queued
     */
    queueMaintenance(w: MaintenanceWindow): number {
      const now = clock.now();
      if (!store.maintenance.markNotified(w.uuid, now)) return 0;
      let n = 0;
      for (const page of toPages(w.statuspages)) {
        const msg = maintenanceNotice(page.name, page.settings.languages[0] ?? 'en', w, pageUrl(page), now);
        for (const s of store.subscribers.confirmedOf(page.id)) (queue(s, msg, now), n++);
      }
      return n;
    },
    /**
     * Counts a text to a confirmed SMS subscriber against the global caps when it is sent (the
     * dispatcher, alerting/subscriber-channels.ts). @returns undefined, or why it may not be sent
     */
    takeNoticeText: (): string | undefined => caps.takeNotice(store, clock.now()),
    /** The configured email channel's settings for subscriber mail, or undefined. */
    emailChannel,
    /** The configured twilio channel's settings for SMS subscribers, or undefined. */
    smsChannel,
  };

  function mustLink(page: Statuspage, purpose: 'confirm' | 'unsubscribe', uuid: string, token: string): Subscriber {
    const s = store.subscribers.get(uuid);
    if (!s || s.statuspageId !== page.id || !access.validLinkToken(purpose, uuid, token)) {
      throw new AppError(404, 'subscriptions.invalid_link', 'this link is not valid (already used to unsubscribe, or mistyped)');
    }
    return s;
  }
  return service;
}

/** The subscriptions service's interface. */
export type SubscriptionsService = ReturnType<typeof subscriptionsService>;
