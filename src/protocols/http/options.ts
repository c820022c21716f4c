import { ProxyAgent, interceptors, request, type buildConnector } from '../../lib/undici.ts';
import type { http } from './index.ts';
import { checkDispatchers, type CheckDispatchers } from './dispatchers.ts';
import type { CheckTlsOptions } from './tls-sessions.ts';

type HttpSettings = typeof http.defaults;

/**
 * The HTTP options of issue 36 that change how a check connects or authenticates: ignore TLS errors,
 * a client certificate (mTLS), an HTTP(S) proxy (undici `ProxyAgent`: CONNECT tunnels for https://
 * targets, absolute-URI forwarding for http:// ones; the proxy URL's user and password become
 * `Proxy-Authorization: Basic`), and basic / bearer / OAuth2 client-credentials auth.
 */

/** True when the check needs dispatchers of its own (TLS options or a proxy) instead of the probe's shared ones. */
export function needsOwnDispatchers(s: HttpSettings): boolean {
  return s.ignore_tls_errors || s.tls_client_cert !== null || s.proxy_url !== null;
}

/** The TLS options a check's connections use: `rejectUnauthorized` off when TLS errors are ignored, the client certificate when set. */
function tlsOptions(s: HttpSettings): { rejectUnauthorized: boolean; cert?: string; key?: string } {
  return { rejectUnauthorized: !s.ignore_tls_errors, ...(s.tls_client_cert !== null && s.tls_client_key !== null ? { cert: s.tls_client_cert, key: s.tls_client_key } : {}) };
}

/**
 * Dispatchers made for one check and closed after it (`close()`): the probe's one-shot clients over a
 * connector with the check's TLS options, or a `ProxyAgent` (redirects through the same proxy; its
 * tunnelled connections do not resume TLS sessions).
 * @param connectorFor the probe's connector for these TLS options (session resumption per TLS profile, source address, certificate capture, timing)
 */
export function ownDispatchers(s: HttpSettings, connectorFor: (tls: CheckTlsOptions) => buildConnector.connector): CheckDispatchers {
  const tls = tlsOptions(s);
  if (s.proxy_url === null) return checkDispatchers(connectorFor(tls));
  const agent = new ProxyAgent({ uri: s.proxy_url, requestTls: tls, proxyTls: { rejectUnauthorized: !s.ignore_tls_errors } });
  return {
    direct: agent,
    following: agent.compose(interceptors.redirect({ maxRedirections: 10, throwOnMaxRedirect: true })),
    async close() {
      await agent.destroy().catch(() => undefined);
    },
  };
}

/** A cached OAuth2 access token: the value and when it stops being used (epoch ms). */
interface CachedToken {
  token: string;
  expiresAtMs: number;
}

/** At most this many OAuth2 tokens are cached per probe (oldest dropped first). */
const MAX_CACHED_TOKENS = 256;
/** A token is fetched again this long before it expires (ms). */
const TOKEN_MARGIN_MS = 30_000;
/** Lifetime assumed when the token endpoint gives no `expires_in` (ms). */
const DEFAULT_TOKEN_LIFETIME_MS = 300_000;

/** Why authentication could not be prepared (the check's reason). */
export class AuthFailure extends Error {}

/**
 * The `Authorization` header of a check (none when `auth_method` is `none`), with OAuth2 client-credentials
 * tokens (RFC 6749 §4.4: client id and secret as HTTP Basic, `grant_type=client_credentials` and `scope`
 * in the form body) cached per token URL, client and scope until `expires_in` minus 30 s or a 401 from
 * the target, at most 256 (a probe's closure; nothing module-wide).
 */
export function authenticator(): Authenticator {
  const tokens = new Map<string, CachedToken>();
  const keyOf = (s: HttpSettings) => JSON.stringify([s.oauth2_token_url, s.oauth2_client_id, s.oauth2_client_secret, s.oauth2_scope]);
  const header = async (s: HttpSettings, signal: AbortSignal): Promise<string | null> => {
    if (s.auth_method === 'basic') return `Basic ${Buffer.from(`${s.auth_username ?? ''}:${s.auth_password ?? ''}`).toString('base64')}`;
    if (s.auth_method === 'bearer') return `Bearer ${s.auth_token ?? ''}`;
    if (s.auth_method !== 'oauth2_client_credentials') return null;
    const key = keyOf(s);
    const cached = tokens.get(key);
    if (cached && cached.expiresAtMs > Date.now()) return `Bearer ${cached.token}`;
    tokens.delete(key);
    const form = new URLSearchParams({ grant_type: 'client_credentials', ...(s.oauth2_scope ? { scope: s.oauth2_scope } : {}) });
    const basic = Buffer.from(`${encodeURIComponent(s.oauth2_client_id ?? '')}:${encodeURIComponent(s.oauth2_client_secret ?? '')}`).toString('base64');
    let res;
    try {
      res = await request(s.oauth2_token_url!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
        body: form.toString(),
        signal,
      });
    } catch (e) {
      throw new AuthFailure(`OAuth2 token request failed: ${(e as Error).message}`);
    }
    const text = (await res.body.text().catch(() => '')).slice(0, 4096);
    let body: { access_token?: unknown; expires_in?: unknown; error?: unknown } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = {};
    }
    if (res.statusCode < 200 || res.statusCode > 299 || typeof body.access_token !== 'string') {
      const why = typeof body.error === 'string' ? body.error : `HTTP ${res.statusCode}`;
      throw new AuthFailure(`OAuth2 token request failed: ${why}`);
    }
    const lifetimeMs = typeof body.expires_in === 'number' ? body.expires_in * 1000 : DEFAULT_TOKEN_LIFETIME_MS;
    if (tokens.size >= MAX_CACHED_TOKENS) tokens.delete(tokens.keys().next().value!);
    tokens.set(key, { token: body.access_token, expiresAtMs: Date.now() + lifetimeMs - TOKEN_MARGIN_MS });
    return `Bearer ${body.access_token}`;
  };
  return {
    header,
    rejected(s) {
      if (s.auth_method === 'oauth2_client_credentials') tokens.delete(keyOf(s));
    },
  };
}

/** What {@link authenticator} gives a probe. */
export interface Authenticator {
  /** The check's `Authorization` value, or null for none. @throws AuthFailure when an OAuth2 token cannot be had */
  header(s: HttpSettings, signal: AbortSignal): Promise<string | null>;
  /** The target answered 401: a cached OAuth2 token is dropped, so the next check fetches a fresh one (a revoked token does not linger until it expires). */
  rejected(s: HttpSettings): void;
}
