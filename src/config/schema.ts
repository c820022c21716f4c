import { z } from 'zod';
import { REGIONS } from '../domain/regions.ts';

const HOST_PORT = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):\d{1,5}$/;

/** An escalation policy as declared in config.yaml (CONTRACT.md "Outages"). */
export const EscalationPolicyConfig = z.strictObject({
  /** Policy id, `ep_…` (referenced by monitors' `escalation_policy`). */
  uuid: z.string().regex(/^ep_[0-9A-Za-z_-]{1,64}$/, 'must look like ep_<letters/digits>'),
  name: z.string().min(1),
  steps: z
    .array(z.strictObject({ after_minutes: z.number().int().min(0), channels: z.array(z.string().min(1)).default([]) }))
    .min(1),
});

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
  log_level: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
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
      /** Checks in flight at once, all monitors together. */
      max_concurrent_checks: z.number().int().min(1).max(100000).default(2000),
      user_agent: z.string().min(1).default('Pharos-Uptime-Monitor/0.1 (+https://github.com/pharos)'),
    })
    .prefault({}),
  storage: z
    .strictObject({
      /** Days raw check results are kept; rollups keep history for reports and status pages. */
      raw_retention_days: z.number().int().min(1).max(3650).default(7),
      /** Group-commit interval for check results, ms. */
      flush_interval_ms: z.number().int().min(10).max(5000).default(100),
      /** Pings kept per healthcheck (the newest ones); older pings are deleted as new ones arrive. */
      pings_per_healthcheck: z.number().int().min(1).max(10000).default(100),
    })
    .prefault({}),
  escalation_policies: z.array(EscalationPolicyConfig).default([]),
});

/** The validated, frozen configuration. */
export type Config = z.infer<typeof ConfigSchema>;
