import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { iso } from '../../domain/time.ts';
import type { Statuspage } from '../../domain/statuspage.ts';
import { AddSubscriberBody, type Subscriber } from '../../core/subscribers.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { BODY_ERRORS, COMMON_ERRORS, MessageSchema, NOT_FOUND, UuidParam, json, jsonBody } from './common.ts';

/** A subscriber as the API shows it (the hosted service's `StatusPageSubscriber`, docs/api.md "Clients"). */
export const SubscriberSchema = z
  .object({
    id: z.number().int(),
    uuid: z.string(),
    type: z.enum(['email', 'slack', 'teams', 'sms']),
    value: z.string().openapi({ description: 'the email address or phone number; for webhooks only the origin (the URL is a secret)' }),
    language: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    slack_channel: z.string().nullable(),
    teams_webhook_url: z.string().nullable().openapi({ description: 'a Teams subscriber\'s webhook, shown as its origin only (a credential, like `value`); null for other types' }),
    confirmed: z.boolean(),
    created_at: z.string(),
  })
  .openapi('Subscriber');

/** Stored subscriber → API shape. A webhook URL is a credential: only its origin is shown. */
export function toSubscriberJson(s: Subscriber, page: Statuspage): z.infer<typeof SubscriberSchema> {
  const origin = (() => {
    try {
      return `${new URL(s.target).origin}/…`;
    } catch {
      return '…';
    }
  })();
  return {
    id: s.id,
    uuid: s.uuid,
    type: s.channel,
    value: s.channel === 'email' || s.channel === 'sms' ? s.target : origin,
    language: s.language ?? page.settings.languages[0] ?? 'en',
    email: s.channel === 'email' ? s.target : null,
    phone: s.channel === 'sms' ? s.target : null,
    slack_channel: null,
    teams_webhook_url: s.channel === 'teams' ? origin : null,
    confirmed: s.confirmedAt !== null,
    created_at: iso(s.createdAt),
  };
}

const ListQuery = z.object({
  page: z.coerce.number({ error: 'must be a whole number ≥ 0' }).int('must be a whole number ≥ 0').min(0, 'must be a whole number ≥ 0').max(1_000_000).default(0),
  type: z.enum(['all', 'email', 'slack', 'teams', 'sms'], { error: 'must be one of all, email, slack, teams, sms' }).default('all'),
});
const Params = UuidParam.extend({ id: z.string().min(1).max(100).openapi({ param: { name: 'id', in: 'path' } }) });
const tags = ['Status pages'];
/** Add answer: the subscriber's fields (the Python SDK reads them) and the same under `subscriber` (the Go client). */
const Added = SubscriberSchema.extend({ message: z.string(), subscriber: SubscriberSchema });

/** /v2/statuspages/{uuid}/subscribers (the hosted service's subscriber API): list, add (confirmed), delete. */
export function subscribersRouter(deps: Pick<HttpDeps, 'core'>) {
  const { core } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.openapi(
    createRoute({
      method: 'get',
      path: '/{uuid}/subscribers',
      tags,
      summary: 'List a status page\'s subscribers, 20 per page, oldest first (?type= filters)',
      request: { params: UuidParam, query: ListQuery },
      responses: { 200: json(z.object({ subscribers: z.array(SubscriberSchema), hasNextPage: z.boolean(), total: z.number(), page: z.number(), resultsPerPage: z.number() }), 'A page'), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const r = await core.subscribers.list(c.req.valid('param').uuid, q.page, q.type === 'all' ? null : q.type);
      return c.json({ subscribers: r.subscribers.map((s) => toSubscriberJson(s, r.page)), hasNextPage: r.hasNextPage, total: r.total, page: r.pageNumber, resultsPerPage: r.resultsPerPage }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/{uuid}/subscribers',
      tags,
      summary: 'Add a subscriber (email, slack or teams); added by an operator, it is confirmed at once',
      request: { params: UuidParam, ...jsonBody(AddSubscriberBody) },
      responses: { 201: json(Added, 'Added'), 200: json(Added, 'Already subscribed (now confirmed)'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const r = await core.subscribers.add(c.req.valid('param').uuid, c.req.valid('json'));
      const s = toSubscriberJson(r.subscriber, r.page);
      const body = { ...s, message: r.created ? 'Subscriber added' : 'Already subscribed', subscriber: s };
      return r.created ? c.json(body, 201) : c.json(body, 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'delete',
      path: '/{uuid}/subscribers/{id}',
      tags,
      summary: 'Remove a subscriber (by its integer id or sub_ uuid)',
      request: { params: Params },
      responses: { 200: json(MessageSchema, 'Removed'), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const { uuid, id } = c.req.valid('param');
      await core.subscribers.remove(uuid, id);
      return c.json({ message: 'Subscriber removed' }, 200);
    },
  );
  return app;
}
