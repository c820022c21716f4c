import { z } from 'zod';

/**
 * Domain-expiry warnings (issue 36; Uptime Kuma's domain expiry notification): every protocol whose
 * `url` names a host may set `domain_expiry_days`, the days before the registrable domain's expiry at
 * which one notice is sent each (null = none, the default). The date is read over RDAP
 * (src/domain-expiry.ts); the notices are queued like certificate expiry notices
 * (src/core/domain-expiry.ts). src/protocols/index.ts adds the field to every registered protocol.
 */

/** Suggested thresholds (days), as the certificate ones. */
export const DOMAIN_EXPIRY_DAYS = [30, 14, 7, 1];

/** `domain_expiry_days`: one schema object shared by every protocol. */
export const DOMAIN_EXPIRY_FIELD = z
  .array(z.number({ error: 'must be whole days' }).int('must be whole days').min(1, 'must be at least 1 day').max(365, 'must be at most 365 days'), { error: 'must be an array of days' })
  .min(1, 'must name at least one day, or be null')
  .max(10, 'must have at most 10 thresholds')
  .nullable()
  .meta({ description: "days before the registrable domain's expiry (read over RDAP) at which a notice is sent, once each; null = none (every protocol whose url names a host)" });

/** The fields every protocol gains. */
export const DOMAIN_EXPIRY_FIELDS = { domain_expiry_days: DOMAIN_EXPIRY_FIELD };

/** Their defaults: off. */
export const DOMAIN_EXPIRY_DEFAULTS = { domain_expiry_days: null as number[] | null };
