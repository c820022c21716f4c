import { X509Certificate, randomBytes } from 'node:crypto';
import type { Config, IdentityProviderConfig } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, conflict, invalid, notFound } from '../lib/errors.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import type { AuditActor } from '../domain/audit.ts';
import { ssoConnectionAuditDiff } from '../domain/audit-views.ts';
import { emailAllowed, type SsoConnection, type SsoConnectionBodyInput, type SsoConnectionFields } from '../domain/sso-connection.ts';
import type { Statuspage } from '../domain/statuspage.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import { recordAudit } from './audit-log.ts';
import { attemptThrottle } from './sign-in-throttle.ts';

/** How long a sign-in may take from the start to the identity provider's answer, ms. */
export const SIGN_IN_TTL_MS = 10 * 60_000;
/** Sign-ins pending at once; beyond it the oldest is dropped (anonymous visitors start them). */
const MAX_PENDING = 10_000;

/** Where a sign-in goes once the identity provider has answered: a status page, or the console (issue 16). */
export type SignInPurpose =
  | {
      kind: 'page';
      pageUuid: string;
      /** The page's absolute base URL as the visitor reached it (`https://status.acme.com`, `<public_url>/status/acme`). */
      returnBase: string;
      /** Path inside the page to land on. */
      next: string;
    }
  | { kind: 'console'; next: string };

/** The door used: an OIDC provider from config, or a SAML connection. */
export type SignInMethod = { type: 'oidc'; provider: string } | { type: 'saml'; connection: string };

/** One sign-in in flight (kept in memory: a restart only makes visitors start again). */
export interface SignInTransaction {
  /** Random 256-bit id: the OIDC `state`, the SAML `RelayState`. */
  id: string;
  purpose: SignInPurpose;
  method: SignInMethod;
  /** Random value also set in the visitor's browser (cookie), checked on the OIDC callback (login CSRF). */
  binding: string;
  expiresAt: number;
  /** Protocol data the adapter keeps between the redirect and the answer (PKCE verifier, nonce, AuthnRequest id). */
  protocol: Record<string, string>;
}

/** Who the identity provider says signed in. */
export interface VerifiedIdentity {
  method: SignInMethod;
  /** OIDC `sub` or SAML NameID. */
  subject: string;
  email: string | undefined;
  /** OIDC `email_verified`; SAML: true (the IdP vouches for its own users). */
  emailVerified: boolean;
}

/** The fields of a connection: `body` over `current` (fields left out keep their values). @throws AppError 400 naming a missing or broken field */
function fields(body: SsoConnectionBodyInput, current: SsoConnection | null): SsoConnectionFields {
  const f = {
    name: body.name ?? current?.name,
    provider: body.provider ?? current?.provider ?? 'generic',
    entryPoint: body.entry_point ?? current?.entryPoint,
    issuer: body.issuer ?? current?.issuer,
    idpCertificate: body.idp_certificate === undefined ? current?.idpCertificate : pem(body.idp_certificate),
  };
  for (const [k, key] of [['name', 'name'], ['entryPoint', 'entry_point'], ['issuer', 'issuer'], ['idpCertificate', 'idp_certificate']] as const) {
    if (f[k] === undefined) throw invalid(key, 'is required');
  }
  return f as SsoConnectionFields;
}

/** The SSO connection `uuid`. @throws AppError 404 `sso_connections.not_found` */
function mustGetIn(tx: Store, uuid: string): SsoConnection {
  const c = tx.ssoConnections.get(uuid);
  if (!c) throw notFound('sso_connections', 'SSO connection');
  return c;
}

/**
 * Creates a connection, with its audit entry (resource type `settings`, named by the connection).
 * @throws AppError 400 naming a missing or broken field
 */
const createConnectionProc = procedure('identity.createConnection', (tx: Store, a: { uuid: string; body: SsoConnectionBodyInput; now: number; actor: AuditActor }): SsoConnection => {
  const c = tx.ssoConnections.insert(a.uuid, fields(a.body, null), a.now);
  recordAudit(tx, a, { action: 'create', resourceType: 'settings', resourceUuid: c.uuid, resourceName: c.name, diff: ssoConnectionAuditDiff(null, c) });
  return c;
});

/** Updates a connection (fields left out keep their values), with its audit entry. @throws AppError 404 / 400 */
const updateConnectionProc = procedure('identity.updateConnection', (tx: Store, a: { uuid: string; body: SsoConnectionBodyInput; now: number; actor: AuditActor }): SsoConnection => {
  const before = mustGetIn(tx, a.uuid);
  const c = tx.ssoConnections.update(a.uuid, fields(a.body, before), a.now);
  recordAudit(tx, a, { action: 'update', resourceType: 'settings', resourceUuid: c.uuid, resourceName: c.name, diff: ssoConnectionAuditDiff(before, c) });
  return c;
});

/** Deletes a connection no status page names, with its audit entry. @throws AppError 404, 409 `sso_connections.in_use` */
const deleteConnectionProc = procedure('identity.deleteConnection', (tx: Store, a: { uuid: string; now: number; actor: AuditActor }): void => {
  const before = mustGetIn(tx, a.uuid);
  const pages = tx.ssoConnections.pagesUsing(a.uuid);
  if (pages.length > 0) throw conflict('sso_connections.in_use', `SSO connection is used by status page(s) ${pages.map((p) => `"${p}"`).join(', ')}; change their authentication first`);
  tx.ssoConnections.delete(a.uuid);
  recordAudit(tx, a, { action: 'delete', resourceType: 'settings', resourceUuid: before.uuid, resourceName: before.name, diff: ssoConnectionAuditDiff(before, null) });
});

/**
 * Identity (issue 19, docs/api.md "Single sign-on"): SAML SSO connections (`/v1/sso-connections`),
 * the OIDC identity providers of config.yaml, the sign-ins in flight and the rules deciding who may
 * see a page. Protocol work (openid-client, node-saml) stays in `src/http/sso/`; this module never
 * parses a token or an assertion.
 */
export function identityService(deps: { store: Store; clock: Clock; config: Readonly<Config> }) {
  const { store, clock, config } = deps;
  const pending = new Map<string, SignInTransaction>();
  const seenAssertions = new Map<string, number>();
  const limiter = attemptThrottle({ clock, windowMs: 60_000, tooMany: (s) => new AppError(429, 'sso.too_many_requests', `too many sign-in requests; try again in ${s} s`) });
  const mustGet = async (uuid: string): Promise<SsoConnection> => {
    const c = await store.async.ssoConnections.get(uuid);
    if (!c) throw notFound('sso_connections', 'SSO connection');
    return c;
  };
  // Maps iterate in insertion order. Pending sign-ins all live SIGN_IN_TTL_MS, so the expired ones
  // are at the front (`ordered`); assertion ids expire in any order and are scanned whole. Past
  // MAX_PENDING entries the oldest go.
  const prune = <V>(m: Map<string, V>, expiry: (v: V) => number, ordered: boolean) => {
    const now = clock.now();
    for (const [k, v] of m) {
      if (expiry(v) <= now) m.delete(k);
      else if (ordered) break;
    }
    for (const k of m.keys()) {
      if (m.size <= MAX_PENDING) break;
      m.delete(k);
    }
  };
  const pageMethods = async (page: Statuspage): Promise<{ oidc: string | null; saml: SsoConnection | null }> => {
    const a = page.settings.authentication;
    const oidc = a.google_sso && config.identity_providers.some((p) => p.name === 'google') ? 'google' : null;
    const saml = a.saml_sso && a.sso_connection_uuid ? ((await store.async.ssoConnections.get(a.sso_connection_uuid)) ?? null) : null;
    return { oidc, saml };
  };
  const peek = (id: string): SignInTransaction | undefined => {
    const t = pending.get(id);
    return t && t.expiresAt > clock.now() ? t : undefined;
  };

  return {
    /** OIDC identity providers from config.yaml. */
    providers: (): readonly IdentityProviderConfig[] => config.identity_providers,
    /** The OIDC provider named `name`, or undefined. */
    provider: (name: string): IdentityProviderConfig | undefined => config.identity_providers.find((p) => p.name === name),

    connections: {
      /** Every connection. */
      list: (): Promise<SsoConnection[]> => store.async.ssoConnections.list(),
      /** @throws AppError 404 `sso_connections.not_found` */
      get: mustGet,
      /** Undefined for an unknown uuid. */
      find: (uuid: string): Promise<SsoConnection | undefined> => store.async.ssoConnections.get(uuid),
      /** `actor` is recorded in the audit log. @throws AppError 400 naming a missing or broken field */
      create(body: SsoConnectionBodyInput, actor: AuditActor): Promise<SsoConnection> {
        fields(body, null); // 400 before a transaction is spent on it
        return store.async.tx(createConnectionProc, { uuid: newId(ID_PREFIX.sso), body, now: clock.now(), actor });
      },
      /** Fields left out keep their values; `actor` is recorded in the audit log. @throws AppError 404 / 400 */
      update: (uuid: string, body: SsoConnectionBodyInput, actor: AuditActor): Promise<SsoConnection> => store.async.tx(updateConnectionProc, { uuid, body, now: clock.now(), actor }),
      /** `actor` is recorded in the audit log. @throws AppError 404, 409 `sso_connections.in_use` while a status page names it */
      delete: (uuid: string, actor: AuditActor): Promise<void> => store.async.tx(deleteConnectionProc, { uuid, now: clock.now(), actor }),
    },

    /**
     * The sign-in doors a page offers now: `oidc` = the `google` provider when `google_sso` is on and
     * that provider is configured; `saml` = the page's connection when `saml_sso` is on and it exists.
     * A door switched on but not working is simply absent (the page fails closed without it).
     */
    pageMethods,

    /**
     * Whether a signed-in identity may see `page` (docs/api.md "Single sign-on"): through its OIDC door,
     * only a verified email whose domain is in `google_allowed_domains` (empty = any verified email);
     * through its SAML connection, whoever that IdP signed in (the IdP decides who has an account).
     */
    async admits(page: Statuspage, who: VerifiedIdentity): Promise<boolean> {
      const m = await pageMethods(page);
      if (who.method.type === 'oidc') return m.oidc === who.method.provider && emailAllowed(who.email, who.emailVerified, page.settings.authentication.google_allowed_domains);
      return m.saml !== null && m.saml.uuid === who.method.connection;
    },

    /**
     * Counts one anonymous sign-in request (a start, an identity provider's answer) from `client`.
     * @throws AppError 429 `sso.too_many_requests` beyond `status_pages.sign_in_per_minute` a minute
     */
    async throttle(client: string): Promise<void> {
      // Every request counts (nothing is given back): it is the request that is limited, not a guess.
      limiter.reserve([{ key: client, limit: config.status_pages.sign_in_per_minute }]);
    },
    /** Records a new sign-in (expires after {@link SIGN_IN_TTL_MS}). */
    begin(purpose: SignInPurpose, method: SignInMethod): SignInTransaction {
      prune(pending, (t) => t.expiresAt, true);
      const t: SignInTransaction = { id: randomBytes(32).toString('base64url'), purpose, method, binding: randomBytes(32).toString('base64url'), expiresAt: clock.now() + SIGN_IN_TTL_MS, protocol: {} };
      pending.set(t.id, t);
      return t;
    },
    /** The pending sign-in `id` (not consumed), or undefined when unknown or expired. */
    peek,
    /** Removes and returns the pending sign-in `id`: each answer is used once. */
    take(id: string): SignInTransaction | undefined {
      const t = peek(id);
      pending.delete(id);
      return t;
    },
    /**
     * Records a SAML assertion id as used until `untilMs` (its NotOnOrAfter); false when it was
     * already seen (a replay).
     */
    firstUse(assertionId: string, untilMs: number): boolean {
      prune(seenAssertions, (until) => until, false);
      if (seenAssertions.has(assertionId)) return false;
      seenAssertions.set(assertionId, Math.max(untilMs, clock.now() + SIGN_IN_TTL_MS));
      return true;
    },
  };
}

/** A certificate given as PEM or bare base64 DER → normalised PEM. @throws AppError 400 `idp_certificate` */
function pem(text: string): string {
  const body = text.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  try {
    const cert = new X509Certificate(Buffer.from(body, 'base64'));
    return cert.toString().trim();
  } catch {
    throw invalid('idp_certificate', 'must be an X.509 certificate (PEM or base64 DER)');
  }
}

/** The identity service's interface. */
export type IdentityService = ReturnType<typeof identityService>;
