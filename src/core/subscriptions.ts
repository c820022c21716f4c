import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { RateLimiterMemory, RateLimiterRes } from '../lib/rate-limiter.ts';
import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, invalid } from '../lib/errors.ts';
import { rateLimitKey } from '../lib/ip-ranges.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import type { AlertMessage } from '../domain/alert.ts';
import { confirmNotice, smsCodeNotice, welcomeNotice } from '../domain/page-notice.ts';
import type { Statuspage } from '../domain/statuspage.ts';
import { webhookTargetProblem } from '../domain/subscriber-target.ts';
import { smsNumberAllowed } from '../domain/subscriber-caps.ts';
import type { Store } from '../store/index.ts';
import { procedure } from '../store/async.ts';
import type { Subscriber, SubscriberChannel } from '../domain/subscriber.ts';
import type { EventBus } from './events.ts';
import type { PageAccessService } from './page-access.ts';
import { capLimitsOf, codeTypedBack, takeCode, takeConfirmMail, takeNotice, type CapLimits } from './subscriber-caps.ts';

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

/** Status pages' public base: `public_url` without trailing slashes. */
const baseOf = (publicUrl: string) => publicUrl.replace(/\/+$/, '');
const pageUrlOf = (publicUrl: string, page: Statuspage) => `${baseOf(publicUrl)}/status/${page.subdomain}`;

/** Queues `message` for a subscriber in the outbox, in the transaction `tx`. */
const queue = (tx: Store, subscriberUuid: string, message: AlertMessage, now: number) =>
  tx.alerts.insert({ outageUuid: null, channel: SUBSCRIBER_CHANNEL_PREFIX + subscriberUuid, kind: 'notice', step: null, message: JSON.stringify(message), createdAt: now, dueAt: now });

/** An AppError as a procedure hands it back when the transaction must still commit. */
type Refusal = { refused: { status: number; code: string; message: string } };
const refusal = (status: number, code: string, message: string): Refusal => ({ refused: { status, code, message } });

/**
 * One subscribe request's write (see {@link SubscriptionsService.subscribe}): the lookup, the page's
 * cap, the caps of issue 30, the row and its first message, all or none. An email's confirmation
 * link is signed outside (page-access's key) for `expect` (the subscriber read before) or `newUuid`:
 * when the row found now is another, `retry` (the caller reads and signs again).
 */
const subscribeWrite = procedure(
  'subscriptions.subscribe',
  (
    tx: Store,
    a: { pageId: number; ch: SubscriberChannel; target: string; now: number; limits: CapLimits; maxPerPage: number; expect: string | null; newUuid: string; code: string; message: AlertMessage },
  ): (SubscribeResult & { queued: boolean }) | { retry: true } => {
    const { ch, target: t, now } = a;
    const found = tx.subscribers.find(a.pageId, ch, ch === 'email' ? t.toLowerCase() : t);
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
    if (ch === 'email' && (found?.uuid ?? null) !== a.expect) return { retry: true };
    // Anything past here adds one to the count (a new row, or a pending one whose day ran out).
    if (tx.subscribers.countActive(a.pageId, now - DAY_MS) >= a.maxPerPage) {
      throw new AppError(409, 'subscriptions.full', 'this page takes no more subscribers');
    }
    if (ch === 'sms') {
      // Throws (rolling the transaction back) when the number still waits for a code or a cap is full.
      takeCode(tx, a.limits, t, now);
      const s = found ?? tx.subscribers.insert(a.newUuid, a.pageId, ch, t, null, now);
      tx.subscribers.setCode(s.uuid, codeHash(s.uuid, a.code), now + CODE_TTL_MS);
      tx.subscribers.markConfirmSent(s.uuid, now);
      queue(tx, s.uuid, a.message, now);
      return { subscriber: s, outcome: 'code', queued: true };
    }
    if (ch === 'email') {
      takeConfirmMail(tx, a.limits, t, now);
      const s = found ?? tx.subscribers.insert(a.newUuid, a.pageId, ch, t.toLowerCase(), null, now);
      tx.subscribers.markConfirmSent(s.uuid, now);
      queue(tx, s.uuid, a.message, now);
      return { subscriber: s, outcome: 'confirm', queued: true };
    }
    const s = tx.subscribers.insert(a.newUuid, a.pageId, ch, t, now, now);
    queue(tx, s.uuid, a.message, now);
    return { subscriber: s, outcome: 'subscribed', queued: true };
  },
);

/** An SMS code typed back: confirmed, or a wrong/expired code counted (committed) and refused. */
const confirmCodeWrite = procedure('subscriptions.confirmCode', (tx: Store, a: { pageId: number; uuid: string; code: string; now: number }): Subscriber | Refusal => {
  const s = tx.subscribers.get(a.uuid);
  const pending = s && tx.subscribers.code(s.uuid);
  if (!s || s.statuspageId !== a.pageId || s.channel !== 'sms' || s.confirmedAt !== null || !pending?.hash || pending.expiresAt === null) {
    return refusal(404, 'subscriptions.invalid_link', 'this subscription is not waiting for a code (subscribe again)');
  }
  if (pending.expiresAt <= a.now) {
    tx.subscribers.delete(s.uuid);
    return refusal(400, 'subscriptions.code_expired', 'code: has expired; subscribe again for a new one');
  }
  const given = Buffer.from(codeHash(s.uuid, a.code.trim()));
  if (!timingSafeEqual(given, Buffer.from(pending.hash))) {
    const left = CODE_MAX_ATTEMPTS - pending.attempts - 1;
    if (left <= 0) tx.subscribers.delete(s.uuid);
    else tx.subscribers.failCode(s.uuid);
    return refusal(400, 'subscriptions.wrong_code', left > 0 ? `code: is not the one we sent (${left} tries left)` : 'code: is not the one we sent; subscribe again for a new one');
  }
  tx.subscribers.confirm(s.uuid, a.now);
  tx.subscribers.clearCode(s.uuid);
  codeTypedBack(tx, s.target);
  return tx.subscribers.get(s.uuid)!;
});

const invalidLink = () => new AppError(404, 'subscriptions.invalid_link', 'this link is not valid (already used to unsubscribe, or mistyped)');
/** The subscriber `uuid` of page `pageId` in `tx`. @throws AppError 404 `subscriptions.invalid_link` */
const mustBeOf = (tx: Store, pageId: number, uuid: string): Subscriber => {
  const s = tx.subscribers.get(uuid);
  if (!s || s.statuspageId !== pageId) throw invalidLink();
  return s;
};
/** A confirm link used (its token checked before). */
const confirmWrite = procedure('subscriptions.confirm', (tx: Store, a: { pageId: number; uuid: string; now: number }): Subscriber => {
  mustBeOf(tx, a.pageId, a.uuid);
  tx.subscribers.confirm(a.uuid, a.now);
  return tx.subscribers.get(a.uuid)!;
});
/** An unsubscribe link used (its token checked before). */
const unsubscribeWrite = procedure('subscriptions.unsubscribe', (tx: Store, a: { pageId: number; uuid: string }): null => {
  mustBeOf(tx, a.pageId, a.uuid);
  tx.subscribers.delete(a.uuid);
  return null;
});

/**
 * Status-page subscriptions (issue "Status pages", docs/api.md "Subscriptions"): email with double
 * opt-in (a confirm link; an unsubscribe link in every mail), Slack and Teams incoming webhooks
 * (active at once, greeted with a first message), SMS through the twilio channel (a 6-digit code
 * texted to the number must be entered on the page before anything else is sent). Messages go through the alert outbox (channel
 * `subscriber:<uuid>`) in the same transaction as the write that caused them, so they survive
 * restarts and are retried like alerts. Each write is one procedure (issue 31).
 */
export function subscriptionsService(deps: { store: Store; clock: Clock; config: Readonly<Config>; access: PageAccessService; bus: EventBus }) {
  const { store, clock, config, access, bus } = deps;
  const pageUrl = (page: Statuspage) => pageUrlOf(config.public_url, page);
  const limits = config.status_pages.subscriptions;
  const capLimits = capLimitsOf(limits);
  const perAddress = new RateLimiterMemory({ keyPrefix: 'sub-addr', points: limits.per_address_per_hour, duration: HOUR_S });
  const perPage = new RateLimiterMemory({ keyPrefix: 'sub-page', points: limits.per_page_per_hour, duration: HOUR_S });
  const policy = { allowedHosts: limits.allowed_webhook_hosts, allowPrivateTargets: limits.allow_private_targets };

  /** The twilio channel SMS subscribers are texted through, or undefined. */
  const smsChannel = () => config.channels.find((c) => c.type === 'twilio' && (config.status_pages.sms_channel === undefined || c.name === config.status_pages.sms_channel));

  /** The email channel subscriber mails go through, or undefined. */
  const emailChannel = () =>
    config.channels.find((c) => c.type === 'email' && (config.status_pages.email_channel === undefined || c.name === config.status_pages.email_channel));

  /** The link's subscriber on this page. @throws AppError 404 `subscriptions.invalid_link` for a wrong token (checked first, no read) */
  const checkToken = (purpose: 'confirm' | 'unsubscribe', uuid: string, token: string): void => {
    if (!access.validLinkToken(purpose, uuid, token)) throw invalidLink();
  };

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
        if (!(await smsNumberAllowed(t, limits.sms_countries))) throw invalid('target', `must be a mobile number of an allowed country (${limits.sms_countries.join(', ')})`);
      } else if (ch === 'email') {
        if (!Email.safeParse(t).success || t.length > 254) throw invalid('target', 'must be an email address');
      } else {
        const problem = t.length > 2048 ? 'must be at most 2048 characters' : webhookTargetProblem(ch, t, policy);
        if (problem) throw invalid('target', problem);
      }
      const now = clock.now();
      const newUuid = newId(ID_PREFIX.subscriber);
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      const base = { pageId: page.id, ch, target: t, now, limits: capLimits, maxPerPage: limits.max_per_page, newUuid, code };
      // Bounded: a retry means the row was created or removed between the read and the write.
      for (let attempt = 0; ; attempt++) {
        let expect: string | null = null;
        let message: AlertMessage;
        if (ch === 'sms') message = smsCodeNotice(page.name, code, now);
        else if (ch === 'email') {
          expect = (await store.async.subscribers.find(page.id, ch, t.toLowerCase()))?.uuid ?? null;
          message = confirmNotice(page.name, service.links(page, expect ?? newUuid).confirm, now);
        } else message = welcomeNotice(page.name, pageUrl(page), now);
        const r = await store.async.tx(subscribeWrite, { ...base, expect, message });
        if ('retry' in r) {
          if (attempt < 3) continue;
          throw new AppError(409, 'subscriptions.conflict', 'this subscription changed meanwhile; try again');
        }
        if (r.queued) bus.emit('notices.queued', { count: 1 });
        return { subscriber: r.subscriber, outcome: r.outcome };
      }
    },
    /**
     * Confirms an SMS subscription with the code texted to it. Five wrong codes, or an expired
     * one, end the pending subscription (subscribe again for a new code).
     * @throws AppError 404 `subscriptions.invalid_link` (unknown, another page's, or not a pending
     *   SMS subscriber); 400 `subscriptions.wrong_code` naming the tries left;
     *   400 `subscriptions.code_expired`
     */
    async confirmCode(page: Statuspage, subscriberUuid: string, code: string): Promise<Subscriber> {
      const outcome = await store.async.tx(confirmCodeWrite, { pageId: page.id, uuid: subscriberUuid, code, now: clock.now() });
      if ('refused' in outcome) throw new AppError(outcome.refused.status, outcome.refused.code, outcome.refused.message);
      return outcome;
    },
    /**
     * Confirms an email subscription from its link.
     * @throws AppError 404 `subscriptions.invalid_link` for a wrong token, another page's or a deleted subscriber
     */
    async confirm(page: Statuspage, subscriberUuid: string, token: string): Promise<Subscriber> {
      checkToken('confirm', subscriberUuid, token);
      return store.async.tx(confirmWrite, { pageId: page.id, uuid: subscriberUuid, now: clock.now() });
    },
    /** Ends a subscription from its link. @throws AppError 404 as {@link confirm} */
    async unsubscribe(page: Statuspage, subscriberUuid: string, token: string): Promise<void> {
      checkToken('unsubscribe', subscriberUuid, token);
      await store.async.tx(unsubscribeWrite, { pageId: page.id, uuid: subscriberUuid });
    },
    /** Checks a link without acting on it (the page that shows the confirm button). @throws AppError 404 as {@link confirm} */
    async checkLink(page: Statuspage, purpose: 'confirm' | 'unsubscribe', subscriberUuid: string, token: string): Promise<Subscriber> {
      checkToken(purpose, subscriberUuid, token);
      const s = await store.async.subscribers.get(subscriberUuid);
      if (!s || s.statuspageId !== page.id) throw invalidLink();
      return s;
    },
    /**
     * Counts a text to a confirmed SMS subscriber against the global caps when it is sent (the
     * dispatcher, alerting/subscriber-channels.ts). @returns undefined, or why it may not be sent
     */
    takeNoticeText: (): Promise<string | undefined> => takeNotice(store, capLimits, clock.now()),
    /** The configured email channel's settings for subscriber mail, or undefined. */
    emailChannel,
    /** The configured twilio channel's settings for SMS subscribers, or undefined. */
    smsChannel,
  };
  return service;
}

/** The subscriptions service's interface. */
export type SubscriptionsService = ReturnType<typeof subscriptionsService>;
