import { z } from 'zod';

/**
 * A SAML SSO connection (issue 19, docs/api.md "Single sign-on"): the identity provider a status
 * page with `saml_sso` sends its visitors to. `issuer` is the IdP's entity ID (the `<Issuer>` its
 * responses carry); `idpCertificate` the PEM of the certificate its signatures verify against.
 */
export interface SsoConnection {
  id: number;
  uuid: string;
  name: string;
  /** A label for people (`okta`, `azure`, `authentik`, `keycloak`, `generic`…): no behaviour hangs on it. */
  provider: string;
  /** The IdP's single sign-on URL (HTTP-Redirect binding). */
  entryPoint: string;
  issuer: string;
  idpCertificate: string;
  createdAt: number;
  updatedAt: number;
}

const text = (max: number) => z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/**
 * Body of `POST /v1/sso-connections` and `PUT /v1/sso-connections/{uuid}` (PUT merges: every field
 * optional there, the merged result validated whole). `idp_certificate` is PEM or bare base64 DER
 * (as IdP metadata shows it); it is checked to be an X.509 certificate by the core.
 */
export const SsoConnectionBody = z.object({
  name: text(200).optional(),
  provider: text(64).optional(),
  entry_point: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000).optional(),
  issuer: text(1000).optional(),
  idp_certificate: z.string({ error: 'must be a PEM certificate' }).min(1, 'must be a PEM certificate').max(20_000).optional(),
});
export type SsoConnectionBodyInput = z.infer<typeof SsoConnectionBody>;

/** The fields a connection is stored with. */
export type SsoConnectionFields = Pick<SsoConnection, 'name' | 'provider' | 'entryPoint' | 'issuer' | 'idpCertificate'>;

/**
 * The email domain rule of `google_allowed_domains` and `console.sso_allowed_domains` (docs/api.md
 * "Single sign-on"): only a verified email whose domain (case-insensitive, exact: `example.com` does
 * not admit `sub.example.com`) is listed passes. An empty list admits nobody (issue #30: it used to
 * admit any account of the provider — for Google, anyone); the console then admits invited emails.
 */
export function emailAllowed(email: string | undefined, verified: boolean, allowedDomains: readonly string[]): boolean {
  if (!email || !verified) return false;
  const at = email.lastIndexOf('@');
  if (at < 1 || at === email.length - 1) return false;
  const domain = email.slice(at + 1).toLowerCase();
  return allowedDomains.some((d) => d.toLowerCase() === domain);
}
