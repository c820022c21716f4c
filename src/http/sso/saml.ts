import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import type { SsoConnection } from '../../domain/sso-connection.ts';
import { SIGN_IN_TTL_MS, type SignInTransaction } from '../../core/identity.ts';
import { spUrls } from './sp-urls.ts';

/** Clock skew accepted on assertion times (NotBefore, NotOnOrAfter), ms: at most 2 minutes (issue 19). */
export const SAML_SKEW_MS = 120_000;
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const EMAIL_CLAIM = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress';

/** What a valid SAML response says. */
export interface SamlIdentity {
  subject: string;
  email: string | undefined;
  /** The assertion's ID and how long it stays valid (epoch ms): replay is refused until then. */
  assertionId: string;
  validUntil: number;
}

/** The SP's URLs of one connection (src/http/sso/sp-urls.ts). */
export { spUrls };

/**
 * The SAML 2.0 service-provider side (issue 19) with `@node-saml/node-saml`: AuthnRequests by
 * HTTP-Redirect, responses by HTTP-POST to the connection's ACS. node-saml checks the XML signature
 * against the connection's certificate (the response's or the assertion's must be valid — an
 * unsigned one is refused — and more than one assertion is refused, which stops signature
 * wrapping), the audience (the SP entity id), NotBefore/NotOnOrAfter with {@link SAML_SKEW_MS} of
 * skew (node-saml reads the system clock), and `InResponseTo` against the
 * AuthnRequest id kept in the pending sign-in (so an answer belongs to the request that started
 * it). This adapter adds the `Recipient` and assertion `Issuer` checks (node-saml does neither on
 * sign-in responses) and reports the assertion id for the replay check.
 */
export function samlAdapter(deps: { publicUrl: string }) {
  const saml = (conn: SsoConnection, t: SignInTransaction) => {
    const urls = spUrls(deps.publicUrl, conn.uuid);
    // InResponseTo is bound to this sign-in: the cache holds exactly its AuthnRequest id.
    const cache: CacheProvider = {
      saveAsync: async (key, value) => {
        t.protocol.requestId = key;
        t.protocol.requestAt = value;
        return { value, createdAt: Date.now() };
      },
      getAsync: async (key) => (key && key === t.protocol.requestId ? (t.protocol.requestAt ?? null) : null),
      removeAsync: async (key) => {
        if (!key || key !== t.protocol.requestId) return null;
        delete t.protocol.requestId;
        return key;
      },
    };
    return {
      urls,
      sp: new SAML({
        issuer: urls.entityId,
        audience: urls.entityId,
        callbackUrl: urls.acs,
        entryPoint: conn.entryPoint,
        idpCert: conn.idpCertificate,
        idpIssuer: conn.issuer,
        wantAssertionsSigned: false,
        wantAuthnResponseSigned: false,
        acceptedClockSkewMs: SAML_SKEW_MS,
        validateInResponseTo: ValidateInResponseTo.always,
        requestIdExpirationPeriodMs: SIGN_IN_TTL_MS,
        cacheProvider: cache,
        disableRequestedAuthnContext: true,
      }),
    };
  };

  return {
    /** The IdP URL (AuthnRequest by HTTP-Redirect, `RelayState` = the sign-in id) for a pending sign-in. */
    async authorizeUrl(conn: SsoConnection, t: SignInTransaction): Promise<string> {
      return saml(conn, t).sp.getAuthorizeUrlAsync(t.id, undefined, {});
    },
    /**
     * Validates a POSTed `SAMLResponse` (base64) for the pending sign-in `t` (already taken).
     * @throws Error naming the rule broken (signature, audience, recipient, time, InResponseTo…)
     */
    async validate(conn: SsoConnection, t: SignInTransaction, samlResponse: string): Promise<SamlIdentity> {
      const { sp, urls } = saml(conn, t);
      const { profile } = await sp.validatePostResponseAsync({ SAMLResponse: samlResponse });
      if (!profile) throw new Error('not a sign-in response');
      // node-saml checks `idpIssuer` on logout messages only: the signed assertion's Issuer is checked here.
      if (profile.issuer !== conn.issuer) throw new Error(`assertion issuer ${JSON.stringify(profile.issuer)} is not the connection's ${JSON.stringify(conn.issuer)}`);
      const assertion = (profile.getAssertion?.() as { Assertion?: AssertionJs } | undefined)?.Assertion;
      if (!assertion) throw new Error('no assertion');
      const confirmations = assertion.Subject?.[0]?.SubjectConfirmation ?? [];
      const data = confirmations.flatMap((s) => s.SubjectConfirmationData ?? []).map((d) => d.$ ?? {});
      if (!data.some((d) => d.Recipient === urls.acs)) throw new Error(`SubjectConfirmationData Recipient is not ${urls.acs}`);
      const id = assertion.$?.ID;
      if (!id) throw new Error('assertion has no ID');
      const untils = [...data.map((d) => d.NotOnOrAfter), assertion.Conditions?.[0]?.$?.NotOnOrAfter].filter((v): v is string => typeof v === 'string').map((v) => Date.parse(v));
      return { subject: profile.nameID, email: emailOf(profile), assertionId: id, validUntil: Math.max(0, ...untils.filter(Number.isFinite)) + SAML_SKEW_MS };
    },
    /** The SP metadata XML of a connection (entity id, ACS URL with the HTTP-POST binding). */
    metadata(conn: SsoConnection): string {
      const t = { id: '', protocol: {} } as unknown as SignInTransaction;
      return saml(conn, t).sp.generateServiceProviderMetadata(null, null);
    },
  };
}

interface AssertionJs {
  $?: { ID?: string };
  Subject?: Array<{ SubjectConfirmation?: Array<{ SubjectConfirmationData?: Array<{ $?: { Recipient?: string; NotOnOrAfter?: string } }> }> }>;
  Conditions?: Array<{ $?: { NotOnOrAfter?: string } }>;
}

/** The email of a SAML profile: the `email`/`mail` attribute (node-saml maps the usual OIDs), the claims URI, or an email-format NameID. */
function emailOf(p: Profile): string | undefined {
  const v = p.email ?? p.mail ?? p[EMAIL_CLAIM];
  const one = Array.isArray(v) ? v[0] : v;
  if (typeof one === 'string' && one.includes('@')) return one;
  return p.nameIDFormat === EMAIL_FORMAT && p.nameID.includes('@') ? p.nameID : undefined;
}

/** The SAML adapter's interface. */
export type SamlAdapter = ReturnType<typeof samlAdapter>;
