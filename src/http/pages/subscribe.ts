import type { Hono } from 'hono';
import { AppError } from '../../lib/errors.ts';
import type { HttpDeps } from '../context.ts';
import { LinkActionPage, MessagePage, SmsCodePage, SubscribePage } from '../../../views/forms.tsx';
import type { PageContext, PageEnv } from './context.ts';
import { clientAddress } from './client.ts';
import { send } from './router.ts';

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * Subscription routes of a page (docs/api.md "Subscriptions"): the form (`GET|POST /subscribe`),
 * and the links sent by mail (`/subscribe/confirm`, `/subscribe/unsubscribe`): a GET shows a
 * button, the POST acts, so mail scanners that open links change nothing. A page without
 * subscriptions answers 404 on all of them.
 */
export function subscribeRoutes(app: Hono<PageEnv>, deps: HttpDeps): void {
  const { core } = deps;
  const offered = (c: PageContext) => core.subscriptions.channels(c.var.page);
  const message = (c: PageContext, status: 200 | 400 | 404, title: string, text: string) => {
    c.status(status);
    return send(c, MessagePage({ c: c.var.chrome, title, message: text, error: status !== 200, back: true }));
  };

  const off = (c: PageContext) => message(c, 404, c.var.chrome.t.not_found, c.var.chrome.t.not_found);
  app.get('/subscribe', (c) => {
    if (offered(c).length === 0) return off(c);
    return send(c, SubscribePage({ c: c.var.chrome, channels: offered(c) }));
  });
  app.post('/subscribe', async (c) => {
    const channels = offered(c);
    if (channels.length === 0) return off(c);
    const { t } = c.var.chrome;
    const form = await c.req.parseBody();
    try {
      const client = clientAddress(c, core.config.status_pages.trust_proxy);
      const r = await core.subscriptions.subscribe(c.var.page, str(form.channel) || channels[0]!, str(form.target), client);
      if (r.outcome === 'code') return send(c, SmsCodePage({ c: c.var.chrome, subscriber: r.subscriber.uuid }));
      const text = r.outcome === 'confirm' ? t.check_your_inbox : r.outcome === 'subscribed' ? t.subscribed_webhook : t.already_subscribed;
      return message(c, 200, t.subscribe, text);
    } catch (e) {
      // 400 a broken rule, 409 the page is full, 429 a rate limit: the form again, with the reason.
      if (!(e instanceof AppError) || ![400, 409, 429].includes(e.status)) throw e;
      c.status(e.status as 400 | 409 | 429);
      return send(c, SubscribePage({ c: c.var.chrome, channels, error: e.message }));
    }
  });

  // The code texted to a new SMS subscriber: right → confirmed; wrong → the form again with the
  // tries left; expired, too many tries or not pending → a message to subscribe again.
  app.post('/subscribe/verify', async (c) => {
    if (!offered(c).includes('sms')) return off(c);
    const { t } = c.var.chrome;
    const form = await c.req.parseBody();
    const s = str(form.s);
    try {
      await core.subscriptions.confirmCode(c.var.page, s, str(form.code));
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      if (e.status === 404) return message(c, 404, t.invalid_link, e.message);
      c.status(400);
      return e.code === 'subscriptions.wrong_code' && !e.message.includes('subscribe again') ? send(c, SmsCodePage({ c: c.var.chrome, subscriber: s, error: e.message })) : message(c, 400, t.sms_code_title, e.message);
    }
    return message(c, 200, t.confirm_title, t.confirmed);
  });

  for (const purpose of ['confirm', 'unsubscribe'] as const) {
    app.get(`/subscribe/${purpose}`, async (c) => {
      const { t } = c.var.chrome;
      const s = c.req.query('s') ?? '';
      const token = c.req.query('t') ?? '';
      try {
        await core.subscriptions.checkLink(c.var.page, purpose, s, token);
      } catch (e) {
        if (e instanceof AppError && e.status === 404) return message(c, 404, t.invalid_link, t.invalid_link);
        throw e;
      }
      return send(c, LinkActionPage({ c: c.var.chrome, purpose, subscriber: s, token }));
    });
    app.post(`/subscribe/${purpose}`, async (c) => {
      const { t } = c.var.chrome;
      const form = await c.req.parseBody();
      // RFC 8058 one-click unsubscribe posts to the link itself: its s and t are in the query.
      const s = str(form.s) || (c.req.query('s') ?? '');
      const token = str(form.t) || (c.req.query('t') ?? '');
      try {
        if (purpose === 'confirm') await core.subscriptions.confirm(c.var.page, s, token);
        else await core.subscriptions.unsubscribe(c.var.page, s, token);
      } catch (e) {
        if (e instanceof AppError && e.status === 404) return message(c, 404, t.invalid_link, t.invalid_link);
        throw e;
      }
      return purpose === 'confirm' ? message(c, 200, t.confirm_title, t.confirmed) : message(c, 200, t.unsubscribe_title, t.unsubscribed);
    });
  }
}
