import { createHmac, timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { PageAction } from '../core/page-links.ts';
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
 * All are limited to {@link PAGE_LINKS_PER_MINUTE} requests per client address per minute (429).
 */
export function pageLinksRouter(deps: Pick<HttpDeps, 'core'>) {
  const { core } = deps;
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
  for (const path of ['/ack/:token', '/resolve/:token', '/hooks/twilio/sms']) app.use(path, limit);

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
  return app;
}
