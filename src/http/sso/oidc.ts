import * as oidc from 'openid-client';
import type { IdentityProviderConfig } from '../../config/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';

/** After a failed discovery, the next sign-in tries again no sooner than this, ms. */
const DISCOVERY_RETRY_MS = 30_000;

/** What the OIDC callback needs back from the redirect: kept in the pending sign-in. */
export interface OidcChecks {
  state: string;
  nonce: string;
  verifier: string;
}

/** The identity an ID token vouches for. */
export interface OidcIdentity {
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
}

/**
 * The OpenID Connect side (issue 19) with `openid-client` 6: discovery from the issuer URL (cached per
 * provider; retried after a failure), the authorization code flow with PKCE (S256), `state` and
 * `nonce`, and ID-token validation by the library (signature against the provider's JWKS — switched
 * on with `enableNonRepudiationChecks`, which openid-client leaves off by default —, `iss`,
 * `aud`, `exp`/`iat` with 30 s tolerance, `nonce`). Time for those checks is the injected clock's
 * (the library's `clockSkew`), so tests drive expiry with the manual clock. `allow_http` maps to the
 * library's documented `allowInsecureRequests` for that provider only.
 */
export function oidcAdapter(deps: { clock: Clock; logger: Logger; redirectUri: string }) {
  const { clock, logger, redirectUri } = deps;
  const discovered = new Map<string, Promise<oidc.Configuration>>();
  const failedAt = new Map<string, number>();

  async function discover(p: IdentityProviderConfig): Promise<oidc.Configuration> {
    let c = discovered.get(p.name);
    const failed = failedAt.get(p.name);
    if (c && failed !== undefined && clock.now() - failed >= DISCOVERY_RETRY_MS) c = undefined;
    if (!c) {
      c = oidc.discovery(new URL(p.issuer), p.client_id, p.client_secret, undefined, p.allow_http ? { execute: [oidc.allowInsecureRequests] } : undefined);
      discovered.set(p.name, c);
      failedAt.delete(p.name);
      c.then(
        () => logger.info(`identity provider ${p.name}: discovered ${p.issuer}`),
        (e: unknown) => {
          failedAt.set(p.name, clock.now());
          logger.warn(`identity provider ${p.name}: discovery of ${p.issuer} failed`, { error: (e as Error).message });
        },
      );
    }
    return c;
  }

  /** A Configuration for one exchange: the discovered metadata, this client, and time from the clock. */
  async function configuration(p: IdentityProviderConfig): Promise<oidc.Configuration> {
    const base = await discover(p);
    const server = base.serverMetadata();
    const methods = server.token_endpoint_auth_methods_supported;
    const auth = !methods || methods.includes('client_secret_basic') ? oidc.ClientSecretBasic(p.client_secret) : oidc.ClientSecretPost(p.client_secret);
    // The library reads time as Date.now() + clockSkew: the skew makes that the injected clock.
    const skewSeconds = Math.round((clock.now() - Date.now()) / 1000);
    const c = new oidc.Configuration(server, p.client_id, { client_secret: p.client_secret, [oidc.clockSkew]: skewSeconds }, auth);
    if (p.allow_http) oidc.allowInsecureRequests(c);
    // openid-client by default trusts an ID token from the token endpoint on TLS alone; the issue
    // (and http:// issuers, where TLS vouches for nothing) want its signature checked against the JWKS.
    oidc.enableNonRepudiationChecks(c);
    const jwks = oidc.getJwksCache(base);
    if (jwks) oidc.setJwksCache(c, jwks);
    return c;
  }

  return {
    /**
     * The provider's authorization URL for a new sign-in whose `state` is `state`, and the checks to
     * keep for the callback. @throws when discovery fails (the caller answers 502)
     */
    async authorizationUrl(p: IdentityProviderConfig, state: string): Promise<{ url: URL; checks: OidcChecks }> {
      const config = await discover(p);
      const verifier = oidc.randomPKCECodeVerifier();
      const nonce = oidc.randomNonce();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        response_type: 'code',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url, checks: { state, nonce, verifier } };
    },
    /**
     * Exchanges the code of the callback URL and validates the ID token.
     * @throws when the answer is an error, the state/nonce/PKCE do not match, or the ID token is
     *   invalid (signature, issuer, audience, expiry)
     */
    async callback(p: IdentityProviderConfig, currentUrl: URL, checks: OidcChecks): Promise<OidcIdentity> {
      const config = await configuration(p);
      const tokens = await oidc.authorizationCodeGrant(config, currentUrl, { pkceCodeVerifier: checks.verifier, expectedState: checks.state, expectedNonce: checks.nonce, idTokenExpected: true });
      const base = await discover(p);
      const jwks = oidc.getJwksCache(config);
      if (jwks) oidc.setJwksCache(base, jwks);
      const claims = tokens.claims();
      if (!claims) throw new Error('no ID token');
      return {
        subject: claims.sub,
        email: typeof claims.email === 'string' ? claims.email : undefined,
        // Only a literal true counts (some providers send "true" as a string: treated as unverified).
        emailVerified: claims.email_verified === true,
      };
    },
  };
}

/** The OIDC adapter's interface. */
export type OidcAdapter = ReturnType<typeof oidcAdapter>;
