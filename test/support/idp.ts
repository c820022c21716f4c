import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import Provider from 'oidc-provider';
import { SignedXml } from 'xml-crypto';
import { tempDir } from './pharos.ts';

export { freePort } from './process.ts';

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const close = (server: Server) => new Promise<void>((r) => server.close(() => r()));

/** An account of the test OIDC provider. */
export interface OidcAccount {
  email: string;
  email_verified: boolean;
}

/** A real OpenID Connect provider (oidc-provider, the certified implementation) on 127.0.0.1. */
export interface TestOidcProvider {
  issuer: string;
  /** Accounts by id; `signInAs` picks the one the next login interaction signs in. */
  accounts: Record<string, OidcAccount>;
  signInAs: string;
  /** When set, rewrites the `id_token` of the next token responses (tampering, substitution). */
  rewriteIdToken: ((idToken: string) => string) | null;
  close(): Promise<void>;
}

/**
 * Starts oidc-provider with the clients given (`client_secret_basic`, code flow, PKCE required).
 * Logins are finished by the test itself: every interaction signs in `signInAs` and grants
 * `openid email profile`. ID tokens carry the email claims (conformIdTokenClaims off) and live
 * `idTokenTtlSeconds`.
 */
export async function startOidcProvider(clients: Array<{ client_id: string; client_secret: string; redirect_uris: string[] }>, idTokenTtlSeconds = 60): Promise<TestOidcProvider> {
  const server = createServer();
  const issuer = await listen(server);
  const state: TestOidcProvider = { issuer, accounts: {}, signInAs: '', rewriteIdToken: null, close: () => close(server) };
  const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({ ...c, grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' })),
    jwks: { keys: [{ ...jwk, kid: 'test-key', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: ['test-cookie-key-0123456789'] },
    findAccount: async (_ctx: unknown, id: string) => {
      const a = state.accounts[id];
      return a && { accountId: id, claims: async () => ({ sub: id, email: a.email, email_verified: a.email_verified }) };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    ttl: { IdToken: idTokenTtlSeconds },
  });
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path === '/token' && state.rewriteIdToken && body?.id_token) ctx.body = { ...body, id_token: state.rewriteIdToken(body.id_token) };
  });
  const handle = provider.callback();
  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return handle(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      const accountId = state.signInAs;
      const grant = new provider.Grant({ accountId, clientId: details.params.client_id! });
      grant.addOIDCScope('openid email profile');
      await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: false });
    })().catch((e: unknown) => {
      res.statusCode = 500;
      res.end(String(e));
    });
  });
  return state;
}

/** A browser without a browser: follows redirects one by one, keeping cookies per origin. */
export class Walker {
  readonly jar = new Map<string, Map<string, string>>();

  /** One request (no redirect following), sending and storing this origin's cookies. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const origin = new URL(url).origin;
    const cookies = this.jar.get(origin) ?? new Map<string, string>();
    this.jar.set(origin, cookies);
    const headers = new Headers(init.headers);
    if (cookies.size > 0) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0|expires=Thu, 01 Jan 1970/i.test(line) || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    return res;
  }

  /** GETs `url` and follows redirects until `stop(url)` is true for the next location (not requested) or a non-redirect answer. */
  async follow(url: string, stop: (next: URL) => boolean = () => false): Promise<{ res: Response; url: string }> {
    let current = url;
    for (let i = 0; i < 20; i++) {
      const res = await this.request(current);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { res, url: current };
      const next = new URL(location, current);
      if (stop(next)) return { res, url: next.href };
      current = next.href;
    }
    throw new Error('too many redirects');
  }
}

/** Key and self-signed certificate of a test SAML IdP, made by openssl. */
export interface SamlKeys {
  key: string;
  cert: string;
}

/** A fresh RSA key and self-signed certificate (openssl, 1 day). */
export function samlKeys(cn = 'test-idp'): SamlKeys {
  const dir = tempDir('pharos-saml-');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', `/CN=${cn}`], { stdio: 'ignore' });
  return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
}

/** What an AuthnRequest (HTTP-Redirect binding) asked for. */
export interface AuthnRequest {
  id: string;
  acs: string;
  relayState: string;
  issuer: string;
}

/** Decodes the AuthnRequest of an IdP redirect URL (`SAMLRequest` = base64 of raw-deflated XML). */
export function readAuthnRequest(url: URL): AuthnRequest {
  const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
  const attr = (name: string) => new RegExp(`${name}="([^"]+)"`).exec(xml)?.[1] ?? '';
  return { id: attr('ID'), acs: attr('AssertionConsumerServiceURL'), relayState: url.searchParams.get('RelayState') ?? '', issuer: />([^<]+)<\/saml:Issuer>/.exec(xml)?.[1] ?? '' };
}

/** How the test IdP builds one response (every field has a valid default). */
export interface SamlResponseOptions {
  email?: string;
  audience?: string;
  recipient?: string;
  inResponseTo?: string;
  /** Seconds added to now for NotBefore (default -60) and NotOnOrAfter (default +300). */
  notBeforeS?: number;
  notOnOrAfterS?: number;
  /** Which element to sign: the assertion (default), the response, or nothing. */
  sign?: 'assertion' | 'response' | 'none';
  /** Signing key (default the IdP's). */
  keys?: SamlKeys;
  issuer?: string;
}

const escXml = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const SIG = { signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#' };
const TRANSFORMS = ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'];

/** An unsigned `<saml:Assertion>` (its ID is returned too); an empty `inResponseTo` leaves it out of SubjectConfirmationData. */
export function assertionXml(o: Required<Pick<SamlResponseOptions, 'email' | 'audience' | 'recipient' | 'inResponseTo' | 'issuer'>> & { notBeforeS: number; notOnOrAfterS: number }): { id: string; xml: string } {
  const now = Date.now();
  const t = (s: number) => new Date(now + s * 1000).toISOString();
  const id = `_a${randomUUID().replaceAll('-', '')}`;
  const xml =
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${t(0)}">` +
    `<saml:Issuer>${escXml(o.issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${escXml(o.email)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${t(o.notOnOrAfterS)}" Recipient="${escXml(o.recipient)}"${o.inResponseTo ? ` InResponseTo="${escXml(o.inResponseTo)}"` : ''}/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${t(o.notBeforeS)}" NotOnOrAfter="${t(o.notOnOrAfterS)}"><saml:AudienceRestriction><saml:Audience>${escXml(o.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${t(0)}" SessionIndex="_s${id}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement><saml:Attribute Name="email"><saml:AttributeValue>${escXml(o.email)}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>` +
    `</saml:Assertion>`;
  return { id, xml };
}

/** Signs the element with this ID in `xml` (enveloped signature placed after its Issuer), with xml-crypto. */
export function signElement(xml: string, id: string, keys: SamlKeys): string {
  const sig = new SignedXml({ privateKey: keys.key, publicCert: keys.cert, ...SIG });
  sig.addReference({ xpath: `//*[@ID='${id}']`, digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256', transforms: TRANSFORMS });
  sig.computeSignature(xml, { location: { reference: `//*[@ID='${id}']/*[local-name(.)='Issuer']`, action: 'after' } });
  return sig.getSignedXml();
}

/** A whole `<samlp:Response>` around `assertions` (XML strings, in order). */
export function responseXml(o: { id?: string; issuer: string; destination: string; inResponseTo: string; assertions: string[]; extensions?: string }): string {
  const id = o.id ?? `_r${randomUUID().replaceAll('-', '')}`;
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${new Date().toISOString()}" Destination="${escXml(o.destination)}" InResponseTo="${escXml(o.inResponseTo)}">` +
    `<saml:Issuer>${escXml(o.issuer)}</saml:Issuer>` +
    (o.extensions ? `<samlp:Extensions>${o.extensions}</samlp:Extensions>` : '') +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    o.assertions.join('') +
    `</samlp:Response>`
  );
}

/** A SAML IdP that signs real assertions with its own openssl-made key. */
export interface TestSamlIdp {
  entityId: string;
  /** Its single sign-on URL (HTTP-Redirect binding): answers with an auto-posting form to the ACS. */
  entryPoint: string;
  keys: SamlKeys;
  /** The email the next browser sign-in asserts. */
  signInAs: string;
  /** A base64 SAMLResponse answering `req` (see {@link SamlResponseOptions}). */
  respond(req: AuthnRequest, o?: SamlResponseOptions): string;
  close(): Promise<void>;
}

/** Starts the test SAML IdP on 127.0.0.1. */
export async function startSamlIdp(): Promise<TestSamlIdp> {
  const keys = samlKeys();
  const server = createServer();
  const base = await listen(server);
  const idp: TestSamlIdp = {
    entityId: `${base}/metadata`,
    entryPoint: `${base}/sso`,
    keys,
    signInAs: 'alice@good.test',
    respond(req, o = {}) {
      const issuer = o.issuer ?? idp.entityId;
      const a = assertionXml({
        email: o.email ?? idp.signInAs,
        audience: o.audience ?? req.issuer,
        recipient: o.recipient ?? req.acs,
        inResponseTo: o.inResponseTo ?? req.id,
        issuer,
        notBeforeS: o.notBeforeS ?? -60,
        notOnOrAfterS: o.notOnOrAfterS ?? 300,
      });
      const sign = o.sign ?? 'assertion';
      const assertion = sign === 'assertion' ? signElement(a.xml, a.id, o.keys ?? keys) : a.xml;
      const rid = `_r${randomUUID().replaceAll('-', '')}`;
      let xml = responseXml({ id: rid, issuer, destination: req.acs, inResponseTo: o.inResponseTo ?? req.id, assertions: [assertion] });
      if (sign === 'response') xml = signElement(xml, rid, o.keys ?? keys);
      return Buffer.from(xml).toString('base64');
    },
    close: () => close(server),
  };
  server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname !== '/sso') {
      res.statusCode = 404;
      return res.end();
    }
    const authn = readAuthnRequest(url);
    const body = idp.respond(authn);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(
      `<!doctype html><html><body><form id="f" method="post" action="${escXml(authn.acs)}"><input type="hidden" name="SAMLResponse" value="${body}"><input type="hidden" name="RelayState" value="${escXml(authn.relayState)}"><button type="submit">Continue</button></form><script>document.getElementById('f').submit()</script></body></html>`,
    );
  });
  return idp;
}
