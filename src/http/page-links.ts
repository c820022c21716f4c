import { createHmac, timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { RateLimiterMemory, RateLimiterRes } from '../lib/rate-limiter.ts';
import type { PageAction } from '../core/page-links.ts';
import { telegramKeys } from '../core/page-links-telegram.ts';
import { AppError } from '../lib/errors.ts';
import { rateLimitKey } from '../lib/ip-ranges.ts';
import type { AppEnv, HttpDeps } from './context.ts';
import { clientAddress } from './pages/client.ts';

/** Requests per client address per minute on the anonymous page-link and Twilio routes. */
export const PAGE_LINKS_PER_MINUTE = 30;

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
const VERB: Record<PageAction, string> = { ack: 'Acknowledge', resolve: 'Resolve' };

/** A small page of its own (no console session, no script): a heading, a sentence, maybe a form. */
function html(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${esc(title)} · Pharos</title><link rel="stylesheet" href="/_pharos/status.css"></head><body><main class="wrap"><h1>${esc(title)}</h1>${body}</main></body></html>`;
}

/**
 * X-Twilio-Signature as Twilio computes it (https://www.twilio.com/docs/usage/webhooks/webhooks-security,
 * "Validating signatures from Twilio"): the full URL Twilio requested, then each POST parameter's
 * name and value appended, sorted by name; HMAC-SHA1 with the account's auth token; base64. Written
 * here rather than bundling the `twilio` package (its SDK pulls in axios and more for one function).
 */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = url + Object.keys(params).sort().map((k) => k + params[k]).join('');
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

const twiml = (text: string) => `<?xml version="1.0" encoding="UTF-8"?><Response><Message>${esc(text)}</Message></Response>`;

/**
 * The anonymous doors of paging (issue 34 point 4):
 * - `GET /ack/<token>`, `GET /resolve/<token>`: a confirmation page with one button (GET never acts:
 *   mail and chat link scanners fetch links); `POST` the same path acts as the person paged. A used,
 *   expired or invalid link answers 410 / 404 with a page saying so.
 * - `POST /hooks/twilio/sms`: Twilio's inbound SMS webhook (form-encoded). The X-Twilio-Signature is
 *   checked over `public_url` + the path (+ query) and the form with the auth token of the Twilio
 *   integration that texts pages (403 otherwise); "ACK <n>" / "RESOLVE <n>" from a verified SMS method
 *   acts on outage #n as its owner; the answer is TwiML with one message.
 * - `POST /hooks/telegram/<secret>`: Telegram's webhook (setWebhook with `secret_token` = the same
 *   secret; core/page-links-telegram.ts `telegramKeys`, derived from the bot token). The path secret
 *   and X-Telegram-Bot-Api-Secret-Token must both match (403 otherwise); a `callback_query` of a
 *   page's inline button acts as the owner of the chat's verified Telegram method, then Pharos calls
 *   answerCallbackQuery and editMessageText ("Acknowledged by Ann"). Other updates are answered 200.
 * All are limited to {@link PAGE_LINKS_PER_MINUTE} requests per client address per minute (429).
 */
export function pageLinksRouter(deps: Pick<HttpDeps, 'core' | 'logger'>) {
  const { core, logger } = deps;
  const perAddress = new RateLimiterMemory({ keyPrefix: 'page-links-addr', points: PAGE_LINKS_PER_MINUTE, duration: 60 });
  const app = new Hono<AppEnv>();

  // Per route, not `app.use('*')`: this router is mounted at `/`, where a wildcard would limit every path.
  const limit = async (c: Context<AppEnv>, next: () => Promise<void>) => {
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cache-Control', 'no-store');
    try {
      await perAddress.consume(rateLimitKey(clientAddress(c, core.config.status_pages.trust_proxy)));
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      c.header('Retry-After', String(Math.ceil(e.msBeforeNext / 1000)));
      return c.html(html('Too many requests', '<p>Too many requests from this address; try again in a minute.</p>'), 429);
    }
    await next();
  };
  for (const path of ['/ack/:token', '/resolve/:token', '/hooks/twilio/sms', '/hooks/telegram/:secret']) app.use(path, limit);

  const refused = (c: Context<AppEnv>, e: unknown) => {
    if (!(e instanceof AppError) || e.status >= 500) throw e;
    const title = e.code === 'page_links.used' ? 'Link already used' : e.code === 'page_links.expired' ? 'Link expired' : e.status === 409 ? 'Nothing to do' : 'Link not valid';
    return c.html(html(title, `<p role="alert">${esc(e.message)}</p>`), e.status as 404 | 409 | 410);
  };

  for (const action of ['ack', 'resolve'] as const) {
    app.get(`/${action}/:token`, async (c) => {
      try {
        const v = await core.pageLinks.inspect(c.req.param('token'), action);
        const o = v.outage;
        const state = o.endAt !== null ? 'It is resolved.' : o.acknowledgedAt !== null ? 'It is acknowledged.' : 'It is ongoing and not acknowledged.';
        const body =
          `<p>Outage #${o.incidentNumber}: ${esc(o.monitor?.name ?? o.healthcheck?.name ?? o.description)}. ${esc(state)}</p>` +
          `<p>${VERB[action]} it as ${esc(v.person.name)}? This link works once, until ${esc(new Date(v.expiresAt).toISOString().replace('T', ' ').slice(0, 16))} UTC.</p>` +
          `<form method="post"><button type="submit">${VERB[action]} outage #${o.incidentNumber}</button></form>`;
        return c.html(html(`${VERB[action]} outage #${o.incidentNumber}`, body));
      } catch (e) {
        return refused(c, e);
      }
    });
    app.post(`/${action}/:token`, async (c) => {
      try {
        const o = await core.pageLinks.redeem(c.req.param('token'), action);
        return c.html(html(`Outage #${o.incidentNumber} ${action === 'ack' ? 'acknowledged' : 'resolved'}`, `<p>Done. ${action === 'ack' ? 'Nobody else is paged for it.' : 'Everyone alerted gets the recovery.'}</p>`));
      } catch (e) {
        return refused(c, e);
      }
    });
  }

  app.post('/hooks/twilio/sms', async (c) => {
    const token = await core.pageLinks.twilioAuthToken();
    const form = await c.req.parseBody();
    const params = Object.fromEntries(Object.entries(form).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const url = core.config.public_url.replace(/\/+$/, '') + c.req.path + (new URL(c.req.url).search ?? '');
    const given = Buffer.from(c.req.header('x-twilio-signature') ?? '');
    const want = token ? Buffer.from(twilioSignature(token, url, params)) : null;
    if (!want || given.length !== want.length || !timingSafeEqual(given, want)) {
      return c.text('the X-Twilio-Signature does not match this request (or no Twilio integration is set up)', 403);
    }
    const answer = await core.pageLinks.smsReply(params.From ?? '', params.Body ?? '');
    return c.body(twiml(answer), 200, { 'Content-Type': 'text/xml; charset=utf-8' });
  });
  app.post('/hooks/telegram/:secret', async (c) => {
    const bot = await core.pageLinks.telegramBot();
    const want = bot ? Buffer.from(telegramKeys(bot.token).webhook) : null;
    const same = (v: string | undefined) => { const b = Buffer.from(v ?? ''); return want !== null && b.length === want.length && timingSafeEqual(b, want); };
    if (!same(c.req.param('secret')) || !same(c.req.header('x-telegram-bot-api-secret-token'))) return c.text('the webhook secret does not match (or no Telegram integration is set up)', 403);
    const update = (await c.req.json().catch(() => null)) as { callback_query?: { id?: string; data?: string; message?: { message_id?: number; chat?: { id?: number | string } } } } | null;
    const q = update?.callback_query;
    if (!q || typeof q.id !== 'string' || typeof q.data !== 'string' || q.message?.chat?.id === undefined) return c.json({ ok: true });
    const chatId = String(q.message.chat.id);
    const r = await core.pageLinks.telegramCallback(chatId, q.data);
    const call = (method: string, body: unknown) => fetch(`${bot!.apiUrl.replace(/\/+$/, '')}/bot${bot!.token}/${method}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) })
      .then((res) => { if (!res.ok) logger.warn(`telegram ${method} answered ${res.status}`); })
      .catch((e: unknown) => logger.warn(`telegram ${method} failed: ${(e as Error).message}`));
    await call('answerCallbackQuery', { callback_query_id: q.id, text: r.answer });
    if (r.edit && q.message.message_id !== undefined) await call('editMessageText', { chat_id: chatId, message_id: q.message.message_id, text: r.edit });
    return c.json({ ok: true });
  });
  return app;
}
