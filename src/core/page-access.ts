import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import { verifyPassword } from '../lib/password.ts';
import type { Statuspage } from '../domain/statuspage.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import type { IdentityService } from './identity.ts';
import { attemptThrottle } from './sign-in-throttle.ts';

const DAY_MS = 86_400_000;
/** Window of the wrong-password counter, ms. */
const ATTEMPT_WINDOW_MS = 15 * 60_000;

/**
 * How a page may be seen: open; behind the password wall; behind single sign-on (the wall offers the
 * page's working SSO doors, and the password too when one is set); or closed (SSO switched on but
 * no working identity provider or connection, and no password: fail closed).
 */
export type PageGate = 'open' | 'password' | 'sso' | 'closed';

/** How long the hand-over ticket from an identity provider's answer to the page lives, ms. */
const TICKET_MS = 60_000;

/** The install's page key (base64url), stored as `fresh` on first use (the first writer wins). */
const pageKeyProc = procedure('pageAccess.key', (tx: Store, a: { fresh: string }): string => tx.subscribers.secret('page-key', () => a.fresh));

/**
 * Access to public status pages (issue "Status pages", docs/api.md "Status pages"): the password
 * wall's signed cookies and wrong-password rate limit, and the signed tokens of subscription links.
 * Everything is signed with HMAC-SHA256 under one random 256-bit install key kept in the store
 * (`app_secrets`, created on first use), so sessions and links survive restarts.
 */
export function pageAccessService(deps: { store: Store; clock: Clock; config: Readonly<Config>; identity: Pick<IdentityService, 'pageMethods'> }) {
  const { store, clock, config, identity } = deps;
  const usedTickets = new Map<string, number>();
  let key: Buffer | null = null;
  // Loaded once by ready() (pharos serve awaits it before listening); a CLI or test that skips it
  // reads it synchronously on first use. It never changes once made.
  const secret = () => (key ??= Buffer.from(store.subscribers.secret('page-key', () => randomBytes(32).toString('base64url')), 'base64url'));
  const sign = (data: string) => createHmac('sha256', secret()).update(data).digest('base64url');
  const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
  // The cookie names the page's authentication (password hash and every authentication setting) by
  // a digest: a new password, or any change to SSO, allowed domains or the connection, makes every
  // old cookie invalid.
  const passwordTag = (page: Statuspage) =>
    createHash('sha256')
      .update(JSON.stringify([page.passwordHash ?? '', page.settings.authentication]))
      .digest('base64url')
      .slice(0, 16);
  const throttle = attemptThrottle({ clock, windowMs: ATTEMPT_WINDOW_MS, tooMany: (s) => new AppError(429, 'statuspages.too_many_attempts', `too many wrong passwords; try again in ${s} s`) });

  return {
    /** Loads the install key (made on first use) so that signing never reads the store afterwards. */
    async ready(): Promise<void> {
      if (key) return;
      const value = await store.async.tx(pageKeyProc, { fresh: randomBytes(32).toString('base64url') });
      key ??= Buffer.from(value, 'base64url');
    },
    /** See {@link PageGate}. */
    async gate(page: Statuspage): Promise<PageGate> {
      const a = page.settings.authentication;
      const password = a.password_protection && page.passwordHash !== null;
      if (a.google_sso || a.saml_sso) {
        const m = await identity.pageMethods(page);
        return m.oidc || m.saml || password ? 'sso' : 'closed';
      }
      return password ? 'password' : 'open';
    },
    /** True when the wall of `page` takes its password (password protection on with a password set). */
    acceptsPassword: (page: Statuspage): boolean => page.settings.authentication.password_protection && page.passwordHash !== null,
    /**
     * A one-use ticket `<expiry>.<id>.<signature>` (60 s) handing a sign-in that an identity provider
     * confirmed over to the page's own origin, which turns it into the session cookie.
     */
    issueTicket(page: Statuspage): string {
      const exp = clock.now() + TICKET_MS;
      const id = randomBytes(16).toString('base64url');
      return `${exp}.${id}.${sign(`ticket:${page.uuid}:${exp}:${id}:${passwordTag(page)}`)}`;
    },
    /** True (once) for a ticket {@link issueTicket} made for this page, unexpired, while its authentication is unchanged. */
    redeemTicket(page: Statuspage, ticket: string): boolean {
      const m = /^(\d{1,16})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/.exec(ticket);
      const now = clock.now();
      if (!m || Number(m[1]) <= now || usedTickets.has(m[2]!)) return false;
      if (!same(m[3]!, sign(`ticket:${page.uuid}:${m[1]}:${m[2]}:${passwordTag(page)}`))) return false;
      for (const [k, exp] of usedTickets) if (exp <= now) usedTickets.delete(k);
      usedTickets.set(m[2]!, Number(m[1]));
      return true;
    },
    /** Session length, ms. */
    sessionMs: (): number => config.status_pages.session_days * DAY_MS,
    /** A cookie value `<expiry ms>.<signature>` opening `page` until now + session_days. */
    issueSession(page: Statuspage): string {
      const exp = clock.now() + config.status_pages.session_days * DAY_MS;
      return `${exp}.${sign(`session:${page.uuid}:${exp}:${passwordTag(page)}`)}`;
    },
    /** True when `value` was issued for this page, has not expired and its authentication (password, SSO settings) has not changed since. */
    validSession(page: Statuspage, value: string | undefined): boolean {
      const m = value ? /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(value) : null;
      if (!m || Number(m[1]) <= clock.now()) return false;
      return same(m[2]!, sign(`session:${page.uuid}:${m[1]}:${passwordTag(page)}`));
    },
    /**
     * Checks a password entered on the wall. `client` is the caller's address: each try is counted
     * before the password is hashed (so concurrent tries cannot all pass), given back when right;
     * after `password_attempts` wrong passwords from it for this page within 15 minutes, further
     * tries are refused without checking until the window ends.
     * @throws AppError 429 `statuspages.too_many_attempts` (the seconds to wait in the message)
     */
    async checkPassword(page: Statuspage, password: string, client: string): Promise<boolean> {
      const key = JSON.stringify([page.uuid, client]);
      const hash = page.passwordHash;
      return throttle.check([{ key, limit: config.status_pages.password_attempts }], async () => hash !== null && (await verifyPassword(password, hash)));
    },
    /** A token for a subscription link (`confirm` or `unsubscribe`) of one subscriber. */
    linkToken: (purpose: 'confirm' | 'unsubscribe', subscriberUuid: string): string => sign(`${purpose}:${subscriberUuid}`),
    /** True when `token` is {@link linkToken}'s for this purpose and subscriber. */
    validLinkToken: (purpose: 'confirm' | 'unsubscribe', subscriberUuid: string, token: string): boolean => same(token, sign(`${purpose}:${subscriberUuid}`)),
  };
}

/** The page access service's interface. */
export type PageAccessService = ReturnType<typeof pageAccessService>;
