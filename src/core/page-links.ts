import { randomBase62 } from '../domain/ids.ts';
import type { OutageRecord } from '../domain/outage.ts';
import type { Principal } from '../domain/user.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import type { Logger } from '../lib/logger.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import type { OutagesService } from './outages.ts';
import { providerFor } from './people-pages.ts';
import { parseTelegramCallback, telegramCallbackData, telegramKeys, telegramMacOk } from './page-links-telegram.ts';

/** How long a page's acknowledge / resolve link works, ms (30 minutes). */
export const PAGE_LINK_TTL_MS = 30 * 60_000;

/** What a page link does. */
export type PageAction = 'ack' | 'resolve';

/** What a link's token carries (sealed: nobody can read or forge it without the instance's secret key). */
interface LinkClaims {
  /** outage uuid */
  o: string;
  /** the person paged (user uuid) */
  u: string;
  a: PageAction;
  /** expiry, epoch ms */
  e: number;
  /** a random id: the timeline entry of its use names it, so a second use is refused */
  n: string;
}

/** A link as its confirmation page shows it. */
export interface PageLinkView {
  action: PageAction;
  outage: OutageRecord;
  person: { uuid: string; name: string };
  expiresAt: number;
}

const marker = (n: string) => `(page link ${n})`;

/** The outage, the person and whether the link's id was used, read together. */
const readLink = procedure('pageLinks.read', (tx: Store, a: { outageUuid: string; userUuid: string; nonce: string }) => {
  const outage = tx.outages.get(a.outageUuid);
  const person = tx.people.member(a.userUuid);
  const used = outage ? tx.outages.events(a.outageUuid).some((e) => e.message?.includes(marker(a.nonce)) === true) : false;
  return { outage, person: person && person.disabledAt === null ? { uuid: person.uuid, name: person.name || person.email } : undefined, used };
});

/** The person with a verified SMS number `phone`, and the outage numbered `incident`. */
const readSmsReply = procedure('pageLinks.smsReply', (tx: Store, a: { incident: number }) => {
  const { items } = tx.outages.list({ status: 'all', type: 'all', search: `INC-${a.incident}` }, 5, 0);
  return items.find((o) => o.incidentNumber === a.incident);
});

const incidentOf = procedure('pageLinks.incidentOf', (tx: Store, a: { outageUuid: string }) => tx.outages.get(a.outageUuid)?.incidentNumber ?? null);

/**
 * Acknowledge and resolve from the page itself (issue 34 point 4). Every person-directed page carries
 * two links, `<public_url>/ack/<token>` and `<public_url>/resolve/<token>`: the token is the claims
 * (outage, person, action, expiry 30 min, random id) sealed with the instance's SecretBox (AES-256-GCM:
 * authenticated, so it cannot be forged or altered, and it says nothing to who reads it). A link acts
 * once: its use is recorded in the outage's timeline naming the link's id, and a second use is refused
 * (as is any use after it expired). The acting person is the one paged (no sign-in). SMS replies
 * "ACK <n>" / "RESOLVE <n>" (Twilio's inbound webhook, http/hooks) act as the person whose verified
 * SMS method has the sender's number.
 */
export function pageLinksService(deps: { store: Store; clock: Clock; logger: Logger; secrets: SecretBox | undefined; baseUrl: string; outages: OutagesService }) {
  const { store, clock, logger } = deps;

  const open = (token: string): LinkClaims => {
    if (!deps.secrets) throw new AppError(503, 'page_links.unavailable', 'page links need the secret key, which is not loaded here');
    try {
      const c = JSON.parse(deps.secrets.open(token)) as LinkClaims;
      if (typeof c.o === 'string' && typeof c.u === 'string' && (c.a === 'ack' || c.a === 'resolve') && typeof c.e === 'number' && typeof c.n === 'string') return c;
    } catch (e) {
      logger.debug(`page link refused: ${(e as Error).message}`);
    }
    throw new AppError(404, 'page_links.invalid', 'This link is not valid: it was altered, cut short, or made by another Pharos.');
  };

  async function check(token: string, action: PageAction): Promise<PageLinkView & { nonce: string }> {
    const c = open(token);
    if (c.a !== action) throw new AppError(404, 'page_links.invalid', 'This link is not valid for this action.');
    const { outage, person, used } = await store.async.tx(readLink, { outageUuid: c.o, userUuid: c.u, nonce: c.n });
    if (!outage || !person) throw new AppError(404, 'page_links.invalid', 'The outage or the person of this link no longer exists.');
    if (used) throw new AppError(410, 'page_links.used', 'This link was already used: a link acts once. Open the outage in the console to act again.');
    if (c.e <= clock.now()) throw new AppError(410, 'page_links.expired', `This link expired at ${new Date(c.e).toISOString()} (links work for ${PAGE_LINK_TTL_MS / 60_000} minutes). Open the outage in the console instead.`);
    return { action: c.a, outage, person, expiresAt: c.e, nonce: c.n };
  }

  /** Acts on `outageUuid` as `userUuid`, the timeline entry saying how. @throws (rejects) AppError 404 / 409 */
  async function act(action: PageAction, outageUuid: string, userUuid: string, how: string): Promise<OutageRecord> {
    const user = await store.async.users.findUser(userUuid);
    if (!user) throw new AppError(404, 'page_links.invalid', 'The person of this page no longer exists.');
    const by: Principal = { user, scope: 'write', tokenId: 'page' };
    return action === 'ack' ? deps.outages.acknowledge(outageUuid, by, how) : deps.outages.resolve(outageUuid, by, how);
  }

  async function telegramBot(): Promise<{ token: string; apiUrl: string } | null> {
    if (!deps.secrets) return null;
    const box = deps.secrets;
    const s = (await providerFor(store, () => box, 'telegram'))?.settings;
    if (typeof s?.bot_token !== 'string' || s.bot_token.length === 0) return null;
    return { token: s.bot_token, apiUrl: typeof s.api_url === 'string' && s.api_url ? s.api_url : 'https://api.telegram.org' };
  }

  return {
    /** The auth token of the Twilio integration that texts pages (the first enabled one), or null: what signs Twilio's webhooks. */
    async twilioAuthToken(): Promise<string | null> {
      if (!deps.secrets) return null;
      const box = deps.secrets;
      const token = (await providerFor(store, () => box, 'sms'))?.settings.auth_token;
      return typeof token === 'string' && token.length > 0 ? token : null;
    },
    /** The enabled Telegram integration's bot (token, API base URL), or null: what signs the buttons and answers callbacks. */
    telegramBot,
    /**
     * The `ackUrl` and `resolveUrl` of a page to `userUuid` about `outageUuid` (none without a secret key),
     * and with a Telegram integration the inline buttons' callback data `telegramAck` / `telegramResolve`
     * (same expiry, single use; page-links-telegram.ts).
     */
    async linksFor(outageUuid: string, userUuid: string, now: number): Promise<{ ackUrl?: string; resolveUrl?: string; telegramAck?: string; telegramResolve?: string }> {
      if (!deps.secrets) return {};
      const make = (a: PageAction) => deps.secrets!.seal(JSON.stringify({ o: outageUuid, u: userUuid, a, e: now + PAGE_LINK_TTL_MS, n: randomBase62(12) } satisfies LinkClaims));
      const links = { ackUrl: `${deps.baseUrl}/ack/${make('ack')}`, resolveUrl: `${deps.baseUrl}/resolve/${make('resolve')}` };
      const bot = await telegramBot();
      const incident = bot ? await store.async.tx(incidentOf, { outageUuid }) : null;
      if (!bot || incident === null) return links;
      const { mac } = telegramKeys(bot.token);
      const data = (action: PageAction) => telegramCallbackData(mac, { action, incident, expiresAt: Math.floor((now + PAGE_LINK_TTL_MS) / 1000) * 1000, nonce: randomBase62(12) }, outageUuid, userUuid);
      return { ...links, telegramAck: data('ack'), telegramResolve: data('resolve') };
    },
    /**
     * A pressed inline button (`callback_query` from chat `chatId` with `data`): acts as the owner of the
     * chat's verified Telegram method when the data was signed for them, once, before it expires.
     * @returns `answer` (the callback's toast) and `edit` (the message's new text, when it acted)
     */
    async telegramCallback(chatId: string, data: string): Promise<{ answer: string; edit: string | null }> {
      const bot = await telegramBot();
      const c = parseTelegramCallback(data);
      if (!bot || !c) return { answer: 'This button is not valid.', edit: null };
      let person: { uuid: string; name: string } | null = null;
      for (const member of await store.async.people.members()) {
        if (member.disabledAt !== null) continue;
        for (const method of await store.async.people.methods(member.uuid)) {
          if (method.kind !== 'telegram' || method.verifiedAt === null) continue;
          const sealed = await store.async.people.sealedAddress(method.uuid);
          if (sealed && deps.secrets?.open(sealed) === chatId) person = { uuid: member.uuid, name: member.name || member.email };
        }
        if (person) break;
      }
      if (!person) return { answer: 'This chat is not a verified Telegram contact method of anyone here.', edit: null };
      const outage = await store.async.tx(readSmsReply, { incident: c.incident });
      if (!outage || !telegramMacOk(telegramKeys(bot.token).mac, c, outage.uuid, person.uuid)) return { answer: 'This button is not valid for you.', edit: null };
      const { used } = await store.async.tx(readLink, { outageUuid: outage.uuid, userUuid: person.uuid, nonce: c.nonce });
      if (used) return { answer: 'This button was already used: it acts once.', edit: null };
      if (c.expiresAt <= clock.now()) return { answer: `This button expired (buttons work for ${PAGE_LINK_TTL_MS / 60_000} minutes).`, edit: null };
      try {
        await act(c.action, outage.uuid, person.uuid, `by Telegram button, ${person.name} ${marker(c.nonce)}`);
      } catch (e) {
        if (e instanceof AppError) return { answer: `Outage #${c.incident}: ${e.message}`, edit: null };
        throw e;
      }
      const done = `${c.action === 'ack' ? 'Acknowledged' : 'Resolved'} by ${person.name}`;
      return { answer: done, edit: `Outage #${c.incident}: ${done}.` };
    },
    /**
     * What a link would do (its confirmation page: GET never acts, link scanners fetch GETs).
     * @throws (rejects) AppError 404 `page_links.invalid`; 410 `page_links.used` / `page_links.expired`
     */
    inspect: async (token: string, action: PageAction): Promise<PageLinkView> => {
      const { nonce: _n, ...view } = await check(token, action);
      return view;
    },
    /**
     * Acknowledges or resolves the link's outage as the person paged, once.
     * @throws (rejects) AppError 404 `page_links.invalid`; 410 `page_links.used` / `page_links.expired`; 409 when already acknowledged / resolved
     */
    async redeem(token: string, action: PageAction): Promise<OutageRecord> {
      const v = await check(token, action);
      return act(action, v.outage.uuid, v.person.uuid, `from a page link sent to ${v.person.name} ${marker(v.nonce)}`);
    },
    /**
     * An SMS reply "ACK <n>" / "RESOLVE <n>" from `phone` (E.164): acts on outage number n as the
     * person whose verified SMS method has that number.
     * @returns what to answer in the SMS (a sentence)
     */
    async smsReply(phone: string, body: string): Promise<string> {
      const m = /^\s*(ACK|ACKNOWLEDGE|RESOLVE)\s+#?(\d{1,9})\s*$/i.exec(body);
      if (!m) return 'Reply ACK <number> or RESOLVE <number>, the number from the page.';
      const action: PageAction = m[1]!.toUpperCase() === 'RESOLVE' ? 'resolve' : 'ack';
      const incident = Number(m[2]);
      let userUuid: string | null = null;
      for (const member of await store.async.people.members()) {
        if (member.disabledAt !== null) continue;
        for (const method of await store.async.people.methods(member.uuid)) {
          if (method.kind !== 'sms' || method.verifiedAt === null) continue;
          const sealed = await store.async.people.sealedAddress(method.uuid);
          if (sealed && deps.secrets?.open(sealed) === phone) userUuid = member.uuid;
        }
        if (userUuid) break;
      }
      if (!userUuid) return 'This number is not a verified SMS contact method of anyone here.';
      const outage = await store.async.tx(readSmsReply, { incident });
      if (!outage) return `No outage #${incident}.`;
      try {
        await act(action, outage.uuid, userUuid, 'by SMS reply');
        return `Outage #${incident} ${action === 'ack' ? 'acknowledged' : 'resolved'}.`;
      } catch (e) {
        if (e instanceof AppError) return `Outage #${incident}: ${e.message}.`;
        throw e;
      }
    },
  };
}

/** The page links service's interface. */
export type PageLinksService = ReturnType<typeof pageLinksService>;
