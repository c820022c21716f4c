import { z } from 'zod';
import { REGIONS } from '../domain/regions.ts';
import { isSmsCountry } from '../domain/subscriber-caps.ts';
import { DEFAULT_USER_AGENT } from '../domain/probe.ts';
import { TlsConfig } from './tls.ts';

const HOST_PORT = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):\d{1,5}$/;

/** An escalation policy as declared in config.yaml (CONTRACT.md "Outages"). */
export const EscalationPolicyConfig = z.strictObject({
  /** Policy id, `ep_…` (referenced by monitors' `escalation_policy`). */
  uuid: z.string().regex(/^ep_[0-9A-Za-z_-]{1,64}$/, 'must look like ep_<letters/digits>'),
  name: z.string().min(1),
  steps: z
    .array(z.strictObject({ after_minutes: z.number().int().min(0), channels: z.array(z.string().min(1)).default([]) }))
    .min(1)
    .refine((steps) => steps.every((s, i) => i === 0 || s.after_minutes >= steps[i - 1]!.after_minutes), 'after_minutes must not decrease from step to step'),
  /** After the last step, send it again every this many minutes until acknowledged or resolved. */
  repeat_every_minutes: z.number().int().min(1).optional(),
});

/**
 * Notification channels: each kind's schema sits in `domain/channels/<type>.ts` and the union is
 * derived from that registry (docs/operations.md "Alert channels"), so a new kind is validated here
 * without a line in this file. A `channels:` entry may also be an Apprise URL (`{name, apprise}`).
 */
export { ChannelConfig, type ChannelType } from '../domain/channels/index.ts';
import { ChannelConfig } from '../domain/channels/index.ts';

/** Google's issuer: the default of the identity provider named `google`. */
export const GOOGLE_ISSUER = 'https://accounts.google.com';

/**
 * An OpenID Connect identity provider (issue 19, docs/operations.md "Single sign-on"). Status pages
 * with `google_sso` use the one named `google` (issuer https://accounts.google.com unless another is
 * given, so Authentik, Keycloak, Authelia or Zitadel can stand in for it). The redirect URI to
 * register at the provider is `<public_url>/sso/oidc/callback`.
 */
export const IdentityProviderConfig = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1-64 lower-case letters, digits, _ or -'),
    type: z.literal('oidc'),
    /** The issuer URL; discovery reads `<issuer>/.well-known/openid-configuration`. Required except for `google`. */
    issuer: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    client_id: z.string().min(1),
    /** Usually `${ENV_VAR}`. Sent with client_secret_basic (or what the provider's discovery asks for). */
    client_secret: z.string().min(1),
    /**
     * Accept an `http://` issuer: only for an identity provider on the same machine or a lab network
     * (a local Keycloak/Authentik without TLS). Tokens and keys then travel unencrypted.
     */
    allow_http: z.boolean().default(false),
  })
  .transform((p, ctx) => {
    const issuer = p.issuer ?? (p.name === 'google' ? GOOGLE_ISSUER : undefined);
    if (!issuer) {
      ctx.addIssue({ code: 'custom', path: ['issuer'], message: 'is required (only the provider named google defaults to https://accounts.google.com)' });
      return z.NEVER;
    }
    if (issuer.startsWith('http:') && !p.allow_http) {
      ctx.addIssue({ code: 'custom', path: ['issuer'], message: 'must be https (set allow_http: true only for a local identity provider without TLS)' });
      return z.NEVER;
    }
    return { ...p, issuer };
  });
export type IdentityProviderConfig = z.infer<typeof IdentityProviderConfig>;

/**
 * The whole configuration (config.yaml + environment). Every key is documented, with its default,
 * in config.example.yaml; a test parses that file against this schema (house rule 7).
 * Unknown keys are refused so a typo never silently does nothing.
 */
export const ConfigSchema = z.strictObject({
  /** `host:port` the HTTP server binds. Env PHAROS_LISTEN. */
  listen: z.string().regex(HOST_PORT, 'must be host:port, e.g. 0.0.0.0:8080').default('0.0.0.0:8080'),
  /** Folder of the SQLite database. Env PHAROS_DATA_DIR. */
  data_dir: z.string().min(1).default('./data'),
  /** Public base URL; builds ping URLs and status-page URLs. Env PHAROS_PUBLIC_URL. */
  public_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('http://localhost:8080'),
  /** Bootstrap admin token (see CONTRACT.md). Env PHAROS_ADMIN_TOKEN. */
  admin_token: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * The key integration secrets are sealed with (issue 32): 32 bytes as 64 hex digits or base64; unset:
   * `<data_dir>/secret.key`, created at first start (lib/secret-box.ts). Env PHAROS_SECRET_KEY (preferred).
   */
  secret_key: z.string().min(1).optional(),
  /** Minimum level logged; `debug` adds one line per check. */
  log_level: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  log: z
    .strictObject({
      /** `auto`: human-readable lines on a terminal, JSON lines otherwise; `text` or `json` force one. */
      format: z.enum(['auto', 'text', 'json']).default('auto'),
    })
    .prefault({}),
  probe: z
    .strictObject({
      /** Region the local probe stands in for (API.md §2.2 region names). */
      region: z.enum(REGIONS).default('london'),
      /** Local address outgoing checks are made from; unset = the OS picks. */
      source_address: z.string().optional(),
      /** Consecutive failing checks needed before a monitor is down, with only the local probe (initial + rechecks). */
      confirmation_checks: z.number().int().min(1).max(5).default(3),
      /** Seconds between confirmation re-checks (CONTRACT.md: 2–5 s apart). */
      recheck_interval_seconds: z.number().int().min(2).max(5).default(3),
      /** Regions that must agree before a monitor checked from several regions is down (capped at the regions checking it). */
      confirmations: z.number().int().min(1).max(18).default(2),
      /** A remote agent with no open poll and not heard from for this long is offline; its regions fall back to the local probe. */
      agent_offline_seconds: z.number().int().min(1).max(600).default(10),
      /** How long the main holds an agent's poll open when nothing changes (the agent polls again at once). */
      agent_poll_seconds: z.number().int().min(1).max(300).default(20),
      /** Agent ids one probe token may hold at once (issue 30): a new one over the cap replaces the token's oldest offline agent, or is refused (429) while all are online. */
      agents_per_token: z.number().int().min(1).max(1000).default(5),
      /** Checks in flight at once, all monitors together. */
      max_concurrent_checks: z.number().int().min(1).max(100000).default(2000),
      user_agent: z.string().min(1).default(DEFAULT_USER_AGENT),
      /**
       * Where domain-expiry warnings (issue 36, `domain_expiry_days`) find each TLD's RDAP server: an
       * RFC 9224 bootstrap file (IANA's by default). Point it at a mirror, or at a file of your own
       * for private registries; the RDAP requests go only to the servers it lists.
       */
      rdap_bootstrap_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('https://data.iana.org/rdap/dns.json'),
    })
    .prefault({}),
  storage: z
    .strictObject({
      /** Days raw check results are kept; rollups keep history for reports and status pages. */
      raw_retention_days: z.number().int().min(1).max(3650).default(7),
      /** Minutes between prunes of raw results past the retention (whole hours dropped, one per event-loop turn; store/checks.ts). */
      prune_interval_minutes: z.number().int().min(1).max(1440).default(60),
      /** Group-commit interval for check results, ms. */
      flush_interval_ms: z.number().int().min(10).max(5000).default(100),
      /**
       * SQLite: when the WAL checkpoint thread starts (store/checkpointer.ts). `auto`: once SQLite's
       * own checkpoints (every 1,000 pages, inside commits on the event loop) come often
       * (`WORKER_START_RULES`: 30 within 30 s or 60 within 5 min), so a Pharos that writes little
       * does without the thread's 12–19 MB (issue 38); `always`: at start (the steadiest ping
       * latency from the first second, for the memory).
       */
      checkpoint_thread: z.enum(['auto', 'always']).default('auto'),
      /** Pings kept per healthcheck (the newest ones); older pings are deleted as new ones arrive. */
      pings_per_healthcheck: z.number().int().min(1).max(10000).default(100),
      /** `sqlite` (`<data_dir>/pharos.db`) or `postgres` (`postgres_url`; env PHAROS_DATABASE_URL selects it). */
      driver: z.enum(['sqlite', 'postgres']).default('sqlite'),
      /** `postgres://user:password@host:port/database` (driver postgres). Its password is never logged. */
      postgres_url: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
      /** Connections of the PostgreSQL pool. */
      postgres_pool_size: z.number().int().min(1).max(100).default(4),
      /** PostgreSQL statement_timeout, ms: a statement running longer is cancelled (the request answers 503). */
      postgres_statement_timeout_ms: z.number().int().min(100).max(600000).default(10000),
      /**
       * Several instances on PostgreSQL (issue 31): the leader's lease, ms. Another instance takes over
       * when it has run out unrenewed in the database's clock; the leader stops its leader work
       * `leader_renew_ms` before that by its own monotonic clock.
       */
      leader_lease_ms: z.number().int().min(300).max(300000).default(10000),
      /** How often the leader renews its lease (and followers look for an expired one), ms. */
      leader_renew_ms: z.number().int().min(100).max(60000).default(2000),
    })
    .refine((s) => s.driver !== 'postgres' || s.postgres_url !== undefined, { message: 'is required when driver is postgres (or set PHAROS_DATABASE_URL)', path: ['postgres_url'] })
    .refine((s) => s.leader_lease_ms >= 3 * s.leader_renew_ms, { message: 'must be at least 3 × leader_renew_ms (the margin plus two renewals)', path: ['leader_lease_ms'] })
    .prefault({}),
  /** Status pages. */
  status_pages: z
    .strictObject({
      /** Pages answer at `<subdomain>.<hosted_domain>`; default: the host of `public_url`. */
      hosted_domain: z.string().regex(/^[A-Za-z0-9.-]+$/, 'must be a domain such as status.example.com').optional(),
      /** The email channel (its `name`) subscriber mails go through; default: the first email channel. */
      email_channel: z.string().min(1).optional(),
      /** The twilio channel (its `name`) that texts SMS subscribers; default: the first twilio channel. */
      sms_channel: z.string().min(1).optional(),
      /** How long a password-protected page stays open after the password was entered, days. */
      session_days: z.number().int().min(1).max(365).default(7),
      /** Wrong passwords allowed per page and client address within 15 minutes before 429. */
      password_attempts: z.number().int().min(1).max(1000).default(5),
      /** Behind a reverse proxy: count wrong passwords per X-Forwarded-For client (its last entry, the one the proxy added). */
      trust_proxy: z.boolean().default(false),
      /** Single sign-on requests (starts and answers from identity providers) per client address per minute before 429. */
      sign_in_per_minute: z.number().int().min(1).max(10_000).default(20),
      /** Visitors' subscriptions (docs/api.md "Hardening (security)"). */
      subscriptions: z
        .strictObject({
          /**
           * Hosts subscriber Slack/Teams webhooks may target besides the providers' own
           * (hooks.slack.com; *.webhook.office.com, *.logic.azure.com, …): `host`, `*.domain` or `*` (any public host).
           */
          allowed_webhook_hosts: z.array(z.string().regex(/^(?:\*|(?:\*\.)?[A-Za-z0-9.-]+)$/, 'must be a host name, *.domain or *')).default([]),
          /** UNSAFE (labs and tests only): subscriber webhooks may use http and reach any host and address, loopback and private included. */
          allow_private_targets: z.boolean().default(false),
          /** Subscribers a page keeps at most (confirmed, plus confirmations pending from the last day). */
          max_per_page: z.number().int().min(1).max(10_000_000).default(10_000),
          /** Subscribe requests per client address per hour (all pages together). */
          per_address_per_hour: z.number().int().min(1).max(100_000).default(10),
          /** Subscribe requests per page per hour (all clients together). */
          per_page_per_hour: z.number().int().min(1).max(1_000_000).default(100),
          /**
           * Countries whose mobile numbers may subscribe by SMS (issue 30): ISO 3166 codes (`GB`, `US`: numbers
           * of that country by their numbering plan, so `US` does not admit Jamaica's +1 876) or calling
           * codes (`+44`, `+1`: every number under it). Empty (the default): SMS subscriptions are off.
           */
          sms_countries: z
            .array(z.string().refine((v) => /^\+[1-9]\d{0,2}$/.test(v) || isSmsCountry(v), 'must be an ISO 3166 country code such as GB (not UK) or a calling code such as +44'))
            .default([]),
          /** Texts to subscribers per clock hour, all pages together (codes and notices; past it the form answers 429 and notices fail). */
          sms_per_hour: z.number().int().min(1).max(1_000_000).default(50),
          /** Texts to subscribers per UTC day, all pages together (like `sms_per_hour`). */
          sms_per_day: z.number().int().min(1).max(10_000_000).default(200),
          /** A number block: numbers sharing their first this many digits (country code included) count together for the two caps below. */
          sms_prefix_digits: z.number().int().min(4).max(15).default(8),
          /** Codes texted to one number block per clock hour, all pages together. */
          sms_per_prefix_per_hour: z.number().int().min(1).max(1_000_000).default(5),
          /** Codes texted to one number block per UTC day, all pages together. */
          sms_per_prefix_per_day: z.number().int().min(1).max(10_000_000).default(20),
          /** A number texted a code that was not typed back gets no other text (any page) for this long, hours. */
          sms_code_wait_hours: z.number().int().min(1).max(720).default(24),
          /** Confirmation mails to one mailbox (`+tag` removed; Gmail's dots too) per clock hour, all pages together. */
          email_per_mailbox_per_hour: z.number().int().min(1).max(1_000_000).default(3),
          /** Confirmation mails to one mailbox per UTC day, all pages together. */
          email_per_mailbox_per_day: z.number().int().min(1).max(10_000_000).default(10),
        })
        .prefault({}),
    })
    .prefault({}),
  /** The REST API (docs/api.md "Clients"). */
  api: z
    .strictObject({
      /**
       * `api`: API.md's shapes where API.md and the hosted service differ in a way JSON cannot
       * serve both; `hosted`: the hosted service's (the monitor-report list as `{period, monitors}`).
       */
      compatibility: z.enum(['api', 'hosted']).default('api'),
    })
    .prefault({}),
  /** The web console (people who sign in at `/`). */
  console: z
    .strictObject({
      /** A session not used for this long ends, minutes. */
      session_idle_minutes: z.number().int().min(5).max(525_600).default(720),
      /** A session ends this long after sign-in however much it is used, days. */
      session_max_days: z.number().int().min(1).max(365).default(14),
      /** Wrong passwords allowed per account within 15 minutes before sign-in answers 429 (30 per client address). */
      login_attempts: z.number().int().min(1).max(1000).default(10),
      /** Behind a reverse proxy: count wrong passwords per X-Forwarded-For client (its last entry). */
      trust_proxy: z.boolean().default(false),
      /**
       * Single sign-on for the console (issue 19): the name of an OIDC provider in `identity_providers`,
       * or the uuid of a SAML SSO connection (`sso_…`). Unset: passwords only.
       */
      sso: z.string().min(1).optional(),
      /**
       * Email domains console single sign-on admits (exact, case-insensitive). Empty: only emails an
       * admin invited and people who already have an account (never "anyone at the provider"; a
       * warning at start says so).
       */
      sso_allowed_domains: z.array(z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/, 'must be a domain such as example.com')).default([]),
    })
    .prefault({}),
  /** Delivery of queued alerts (the outbox). */
  alerting: z
    .strictObject({
      /** Attempts per alert before it is marked failed (logged, counted in pharos_alerts_total{result="failed"}). */
      max_attempts: z.number().int().min(1).max(100).default(10),
      /** First retry delay, seconds; doubles per attempt. */
      retry_base_seconds: z.number().int().min(1).max(3600).default(10),
      /** Longest retry delay, seconds. */
      retry_max_seconds: z.number().int().min(1).max(86_400).default(900),
      /** Probe connectivity loss: many monitors failing at once hold their alerts (docs/api.md). */
      flood_guard: z
        .strictObject({
          enabled: z.boolean().default(true),
          /** At least this many monitor outages opened within the window … */
          min_monitors: z.number().int().min(2).default(10),
          /** … and at least this share (0–1) of the scheduled monitors. */
          failing_share: z.number().gt(0).max(1).default(0.5),
          window_seconds: z.number().int().min(10).max(3600).default(120),
          /** Channels that get the one notice; empty = every channel. */
          channels: z.array(z.string().min(1)).default([]),
        })
        .prefault({}),
    })
    .prefault({}),
  /**
   * Scheduled online backups of the SQLite database (issue 37, src/backup-schedule.ts; PostgreSQL:
   * none, use pg_dump). Env PHAROS_BACKUP_EVERY, PHAROS_BACKUP_KEEP, PHAROS_BACKUP_DIR.
   */
  backup: z
    .strictObject({
      /** How often: `<n>m`, `<n>h` or `<n>d` (at least 1m), or `off`. A newest backup older than this at start means one at once. */
      every: z.string().regex(/^(off|[1-9]\d{0,5}[mhd])$/, 'must be like 30m, 6h, 1d, or off').default('6h'),
      /** Backups kept; the oldest beyond it are deleted after each new one. */
      keep: z.coerce.number().int().min(1).max(10_000).default(28),
      /** Folder of the backups; default `<data_dir>/backups`. */
      dir: z.string().min(1).optional(),
    })
    .prefault({}),
  /** HTTPS served by Pharos (issue 37 point 2, src/config/tls.ts, docs/operations.md "HTTPS"); unset: plain HTTP on `listen`. */
  tls: TlsConfig.optional(),
  /** Notification channels; escalation policy steps name them. Strings may use `${ENV_VAR}`. */
  channels: z.array(ChannelConfig).default([]),
  escalation_policies: z.array(EscalationPolicyConfig).default([]),
  /** OpenID Connect identity providers for status-page sign-in (`google_sso` uses the one named `google`). */
  identity_providers: z.array(IdentityProviderConfig).default([]),
}).superRefine((c, ctx) => {
  const idps = new Set<string>();
  c.identity_providers.forEach((p, i) => {
    if (idps.has(p.name)) ctx.addIssue({ code: 'custom', path: ['identity_providers', i, 'name'], message: `identity provider name "${p.name}" is used twice` });
    idps.add(p.name);
  });
  const consoleSso = c.console.sso;
  if (consoleSso !== undefined && !consoleSso.startsWith('sso_') && !idps.has(consoleSso)) {
    ctx.addIssue({ code: 'custom', path: ['console', 'sso'], message: `unknown identity provider "${consoleSso}" (declare it under identity_providers, or give an SSO connection's sso_… uuid)` });
  }
  const names = new Set<string>();
  c.channels.forEach((ch, i) => {
    if (names.has(ch.name)) ctx.addIssue({ code: 'custom', path: ['channels', i, 'name'], message: `channel name "${ch.name}" is used twice` });
    names.add(ch.name);
  });
  c.alerting.flood_guard.channels.forEach((name, i) => {
    if (!names.has(name)) ctx.addIssue({ code: 'custom', path: ['alerting', 'flood_guard', 'channels', i], message: `unknown channel "${name}" (declare it under channels)` });
  });
  const mailChannel = c.status_pages.email_channel;
  if (mailChannel !== undefined && !c.channels.some((ch) => ch.name === mailChannel && ch.type === 'email')) {
    ctx.addIssue({ code: 'custom', path: ['status_pages', 'email_channel'], message: `unknown email channel "${mailChannel}" (declare it under channels with type: email)` });
  }
  const smsChannel = c.status_pages.sms_channel;
  if (smsChannel !== undefined && !c.channels.some((ch) => ch.name === smsChannel && ch.type === 'twilio')) {
    ctx.addIssue({ code: 'custom', path: ['status_pages', 'sms_channel'], message: `unknown twilio channel "${smsChannel}" (declare it under channels with type: twilio)` });
  }
  const uuids = new Set<string>();
  c.escalation_policies.forEach((p, i) => {
    if (uuids.has(p.uuid)) ctx.addIssue({ code: 'custom', path: ['escalation_policies', i, 'uuid'], message: `policy uuid "${p.uuid}" is used twice` });
    uuids.add(p.uuid);
    p.steps.forEach((s, j) =>
      s.channels.forEach((name, k) => {
        if (!names.has(name)) ctx.addIssue({ code: 'custom', path: ['escalation_policies', i, 'steps', j, 'channels', k], message: `unknown channel "${name}" (declare it under channels)` });
      }),
    );
  });
});

/** The validated, frozen configuration. */
export type Config = z.infer<typeof ConfigSchema>;
