import { z } from 'zod';

const HOST_PORT = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):\d{1,5}$/;
const HOSTNAME = /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** Let's Encrypt's production ACME directory: the default of `tls.acme.directory`. */
export const LETS_ENCRYPT_DIRECTORY = 'https://acme-v02.api.letsencrypt.org/directory';

/**
 * HTTPS served by Pharos itself (issue 37 point 2, docs/operations.md "HTTPS"; src/tls/). With `tls`
 * set, `listen` serves HTTPS; `http_listen` (optional) serves plain HTTP: ACME HTTP-01 challenges and a
 * redirect to HTTPS. Certificates come either from files (`cert` + `key`, reloaded when they change)
 * or from an ACME CA (`acme`, RFC 8555: Let's Encrypt by default), never both. Env: see {@link tlsFromEnv}.
 */
export const TlsConfig = z
  .strictObject({
    /** PEM certificate chain file (leaf first). Reloaded when the file changes (certbot, a cron job). */
    cert: z.string().min(1).optional(),
    /** PEM private key file of `cert`. */
    key: z.string().min(1).optional(),
    /** Certificates obtained and renewed over ACME (RFC 8555) by Pharos, kept under `<data_dir>/tls/`. */
    acme: z
      .strictObject({
        /** Contact address given to the CA (expiry mails). Setting `acme` agrees to the CA's terms of service. */
        email: z.string().regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address'),
        /** Hostnames to hold a certificate for from the start (one certificate each); no wildcards. */
        domains: z.array(z.string().regex(HOSTNAME, 'must be a host name such as status.example.com')).default([]),
        /** The CA's ACME directory URL (Let's Encrypt staging: https://acme-staging-v02.api.letsencrypt.org/directory). */
        directory: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default(LETS_ENCRYPT_DIRECTORY),
        /**
         * `http-01`: the CA fetches `http://<host>/.well-known/acme-challenge/…` (needs `http_listen`
         * reachable on port 80); `tls-alpn-01`: the CA connects to `listen` (port 443) with ALPN acme-tls/1.
         */
        challenge: z.enum(['http-01', 'tls-alpn-01']).default('http-01'),
        /**
         * Also obtain a certificate, at its first visit, for each host a status page answers at (its
         * custom `hostname`, or `<subdomain>.<hosted_domain>`). Any other name is refused (no order placed).
         */
        page_hostnames: z.boolean().default(true),
      })
      .optional(),
    /** `host:port` of the plain-HTTP listener (ACME HTTP-01 answers, redirect to HTTPS), e.g. `0.0.0.0:80`. */
    http_listen: z.string().regex(HOST_PORT, 'must be host:port, e.g. 0.0.0.0:80').optional(),
    /** On `http_listen`: redirect every other request to HTTPS (308). False: serve it over plain HTTP too. */
    redirect: z.boolean().default(true),
    /** Strict-Transport-Security max-age on HTTPS answers, seconds; 0 (the default): no HSTS header (opt in). */
    hsts_max_age_seconds: z.number().int().min(0).max(63_072_000).default(0),
  })
  .superRefine((t, ctx) => {
    const files = t.cert !== undefined || t.key !== undefined;
    if (files && t.acme) ctx.addIssue({ code: 'custom', path: ['acme'], message: 'cannot be set with cert/key (certificates come from files or from ACME, not both)' });
    if (files && (t.cert === undefined || t.key === undefined)) ctx.addIssue({ code: 'custom', path: [t.cert === undefined ? 'cert' : 'key'], message: 'is required with ' + (t.cert === undefined ? 'key' : 'cert') });
    if (!files && !t.acme) ctx.addIssue({ code: 'custom', path: ['acme'], message: 'is required unless cert and key are given' });
    if (t.acme?.challenge === 'http-01' && t.http_listen === undefined) ctx.addIssue({ code: 'custom', path: ['http_listen'], message: 'is required for the http-01 challenge (the CA fetches http://<host>/.well-known/acme-challenge/…), e.g. 0.0.0.0:80' });
  });

/** The validated `tls` block. */
export type TlsConfig = z.infer<typeof TlsConfig>;

/** Environment variables that set `tls` keys (for containers configured by environment alone). */
const TLS_ENV = {
  PHAROS_TLS_CERT: ['cert'],
  PHAROS_TLS_KEY: ['key'],
  PHAROS_TLS_HTTP_LISTEN: ['http_listen'],
  PHAROS_ACME_EMAIL: ['acme', 'email'],
  PHAROS_ACME_DOMAINS: ['acme', 'domains'],
  PHAROS_ACME_DIRECTORY: ['acme', 'directory'],
  PHAROS_ACME_CHALLENGE: ['acme', 'challenge'],
} as const;

/**
 * Applies PHAROS_TLS_CERT, PHAROS_TLS_KEY, PHAROS_TLS_HTTP_LISTEN, PHAROS_ACME_EMAIL,
 * PHAROS_ACME_DOMAINS (comma-separated), PHAROS_ACME_DIRECTORY and PHAROS_ACME_CHALLENGE over
 * config.yaml's `tls` block (an empty variable is ignored). Returns `raw` itself when none is set.
 */
export function tlsFromEnv(raw: Record<string, unknown>, env: Record<string, string | undefined>): Record<string, unknown> {
  const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? { ...(v as Record<string, unknown>) } : {});
  let tls: Record<string, unknown> | null = null;
  for (const [name, path] of Object.entries(TLS_ENV)) {
    const v = env[name];
    if (v === undefined || v === '') continue;
    tls ??= obj(raw.tls);
    const value = name === 'PHAROS_ACME_DOMAINS' ? v.split(',').map((d) => d.trim()).filter(Boolean) : v;
    if (path.length === 1) tls[path[0]] = value;
    else tls[path[0]] = { ...obj(tls[path[0]]), [path[1]]: value };
  }
  return tls ? { ...raw, tls } : raw;
}
