import type { KumaMonitor } from './types.ts';

/**
 * Kuma's HTTP monitor options as the http protocol's options of issue 36 (src/protocols/http):
 * accepted codes as a list, ignore TLS, inverted keyword, basic / bearer / OAuth2
 * client-credentials / mTLS auth, certificate-expiry notification. Field meanings from Kuma's
 * `monitor` table and server/model/monitor.js (its auth_method `basic`, `ntlm`, `mtls`, `oauth2-cc`).
 */

/** Kuma's certificate-expiry notification days (its `tlsExpiryNotifyDays` setting's default). */
export const KUMA_TLS_EXPIRY_DAYS = [7, 14, 21] as const;

/** A request header as the monitor body takes it. */
type Header = { name: string; value: string };

/**
 * The body fields for `m`'s options, given its parsed request headers (an `Authorization: Bearer`
 * header becomes `auth_method: bearer` and leaves the list). Notes what does not come over.
 * @returns the fields to spread into the monitor body and the remaining headers
 */
export function kumaHttpOptions(m: KumaMonitor, headers: Header[], notes: string[]): { fields: Record<string, unknown>; headers: Header[] } {
  const fields: Record<string, unknown> = {};
  // Kuma keeps a list (["200-299","501"]); the http protocol takes the same list comma-separated.
  if (m.acceptedStatusCodes.length > 0) fields.expected_status_code = m.acceptedStatusCodes.join(',');
  if (m.ignoreTls) fields.ignore_tls_errors = true;
  if (m.type === 'keyword' && m.invertKeyword) fields.keyword_absent = true;
  let rest = headers;
  const method = m.authMethod ?? (m.basicAuthUser ? 'basic' : null);
  if (method === 'basic' && m.basicAuthUser) {
    Object.assign(fields, { auth_method: 'basic', auth_username: m.basicAuthUser, auth_password: m.basicAuthPass ?? null });
  } else if (method === 'oauth2-cc' && m.oauthTokenUrl && m.oauthClientId && m.oauthClientSecret) {
    Object.assign(fields, { auth_method: 'oauth2_client_credentials', oauth2_token_url: m.oauthTokenUrl, oauth2_client_id: m.oauthClientId, oauth2_client_secret: m.oauthClientSecret, oauth2_scope: m.oauthScopes?.trim() || null });
  } else if (method === 'mtls' && m.tlsCert && m.tlsKey) {
    Object.assign(fields, { tls_client_cert: m.tlsCert, tls_client_key: m.tlsKey });
    if (m.tlsCa) notes.push("mTLS CA certificate is not imported: Pharos verifies against the system's CAs");
  } else if (method && method !== 'basic') {
    notes.push(`authentication "${method}" is not imported (incomplete, or no Pharos equivalent)`);
  }
  if (fields.auth_method === undefined) {
    const bearer = headers.find((h) => h.name.toLowerCase() === 'authorization' && /^Bearer\s+\S/i.test(h.value));
    if (bearer) {
      Object.assign(fields, { auth_method: 'bearer', auth_token: bearer.value.replace(/^Bearer\s+/i, '').trim() });
      rest = headers.filter((h) => h !== bearer);
    }
  }
  if (m.expiryNotification && m.url?.toLowerCase().startsWith('https:')) fields.tls_expiry_days = [...KUMA_TLS_EXPIRY_DAYS];
  return { fields, headers: rest };
}
