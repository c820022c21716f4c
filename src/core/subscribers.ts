import { z } from 'zod';
import type { Clock } from '../lib/clock.ts';
import { AppError, invalid, notFound } from '../lib/errors.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { PAGE_LANGUAGES, type Statuspage } from '../domain/statuspage.ts';
import type { Store } from '../store/index.ts';
import { procedure } from '../store/async.ts';
import type { Subscriber, SubscriberChannel } from '../domain/subscriber.ts';

export type { Subscriber } from '../domain/subscriber.ts';

/** Subscribers per list page (like the status page list). */
export const SUBSCRIBERS_PER_PAGE = 20;

/** Subscriber types of the hosted service's API; adding `sms` is refused (a texted code typed back on the page proves a number). */
export const SUBSCRIBER_TYPES = ['email', 'slack', 'teams', 'sms'] as const;

const oneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;
const webhookUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) incoming-webhook URL' }).max(2048, 'must be at most 2048 characters');

/**
 * Body of POST /v2/statuspages/{uuid}/subscribers (the hosted service's `AddSubscriberRequest`):
 * `type` (default `email`), the target field of that type, optional `language`.
 */
export const AddSubscriberBody = z.object({
  type: z.enum(SUBSCRIBER_TYPES, { error: oneOf(SUBSCRIBER_TYPES) }).optional(),
  email: z.email({ error: 'must be an email address' }).max(254, 'must be at most 254 characters').optional(),
  teams_webhook_url: webhookUrl.optional(),
  slack_webhook_url: webhookUrl.optional(),
  phone: z.string({ error: 'must be a string' }).max(50).optional(),
  language: z.enum(PAGE_LANGUAGES, { error: oneOf(PAGE_LANGUAGES) }).optional(),
});
export type AddSubscriberInput = z.infer<typeof AddSubscriberBody>;

const mustPageIn = (tx: Store, uuid: string): Statuspage => {
  const p = tx.statuspages.get(uuid);
  if (!p) throw notFound('statuspages', 'Status page');
  return p;
};

/** Adds a confirmed subscriber, or confirms the one with the same target (see {@link subscribersService}). */
const addWrite = procedure(
  'subscribers.add',
  (tx: Store, a: { pageUuid: string; type: SubscriberChannel; target: string; language: string | undefined; now: number }): { page: Statuspage; subscriber: Subscriber; created: boolean } => {
    const sp = mustPageIn(tx, a.pageUuid);
    const found = tx.subscribers.find(sp.id, a.type, a.target);
    if (found) {
      if (found.confirmedAt === null) tx.subscribers.confirm(found.uuid, a.now);
      if (a.language) tx.subscribers.setLanguage(found.uuid, a.language);
      return { page: sp, subscriber: tx.subscribers.get(found.uuid)!, created: false };
    }
    const s = tx.subscribers.insert(newId(ID_PREFIX.subscriber), sp.id, a.type, a.target, a.now, a.now);
    if (a.language) tx.subscribers.setLanguage(s.uuid, a.language);
    return { page: sp, subscriber: tx.subscribers.get(s.uuid)!, created: true };
  },
);

/** Removes a subscriber of the page by integer id or `sub_…` uuid. */
const removeWrite = procedure('subscribers.remove', (tx: Store, a: { pageUuid: string; id: string }): null => {
  const sp = mustPageIn(tx, a.pageUuid);
  const s = /^\d{1,15}$/.test(a.id) ? tx.subscribers.getById(Number(a.id)) : tx.subscribers.get(a.id);
  if (!s || s.statuspageId !== sp.id) throw new AppError(404, 'subscribers.not_found', 'Subscriber not found');
  tx.subscribers.delete(s.uuid);
  return null;
});

/**
 * Subscribers managed by an operator through the API (issue 15; docs/api.md "Clients"): listed per
 * page, added already confirmed (an operator vouches for the address: no confirmation mail), and
 * removed by their integer `id` or `sub_…` uuid. Visitors subscribe on the page itself (core/subscriptions.ts).
 * Every store call is asynchronous (issue 31); each write is one procedure.
 */
export function subscribersService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  return {
    /** One page (0-indexed) of a status page's subscribers, optionally of one type. @throws AppError 404 */
    async list(pageUuid: string, page: number, type: SubscriberChannel | null) {
      const sp = await store.async.statuspages.get(pageUuid);
      if (!sp) throw notFound('statuspages', 'Status page');
      const { items, total } = await store.async.subscribers.pageOf(sp.id, type, SUBSCRIBERS_PER_PAGE, page * SUBSCRIBERS_PER_PAGE);
      return { page: sp, subscribers: items, hasNextPage: (page + 1) * SUBSCRIBERS_PER_PAGE < total, total, pageNumber: page, resultsPerPage: SUBSCRIBERS_PER_PAGE };
    },
    /**
     * Adds a confirmed subscriber; an existing one with the same target is confirmed and returned.
     * @returns the subscriber and whether it was created
     * @throws AppError 404 unknown page; 400 naming the field (missing target, `sms`)
     */
    async add(pageUuid: string, body: AddSubscriberInput): Promise<{ page: Statuspage; subscriber: Subscriber; created: boolean }> {
      const type = body.type ?? 'email';
      // Every text costs the operator and goes only to numbers that proved themselves (issue 30).
      if (type === 'sms') throw invalid('type', 'sms subscribers subscribe on the status page themselves: a texted code typed back proves the number (use email, slack or teams here)');
      const target = type === 'email' ? body.email?.toLowerCase() : type === 'teams' ? body.teams_webhook_url : body.slack_webhook_url;
      const field = type === 'email' ? 'email' : `${type}_webhook_url`;
      if (!target) throw invalid(field, `is required when type is "${type}"`);
      return store.async.tx(addWrite, { pageUuid, type, target, language: body.language, now: clock.now() });
    },
    /** Removes a subscriber of the page by integer id or `sub_…` uuid. @throws AppError 404 */
    async remove(pageUuid: string, id: string): Promise<void> {
      await store.async.tx(removeWrite, { pageUuid, id });
    },
  };
}

/** The subscribers service's interface. */
export type SubscribersService = ReturnType<typeof subscribersService>;
