import { z } from 'zod';

/** Default thresholds of certificate expiry alerts, days before expiry (issue 17). */
export const TLS_EXPIRY_DAYS = [30, 14, 7, 1];

/**
 * The threshold a certificate with `daysLeft` days has crossed, given the thresholds: the smallest
 * threshold ≥ daysLeft, or null when above them all. An alert is sent once per threshold crossed.
 */
export function crossedThreshold(daysLeft: number, thresholds: readonly number[]): number | null {
  let hit: number | null = null;
  for (const t of thresholds) if (daysLeft <= t && (hit === null || t < hit)) hit = t;
  return hit;
}

/** `tls_expiry_days`, shared by http (HTTPS) and tls: the days before expiry at which an expiry alert is sent, once each; null = none. */
export const TLS_EXPIRY_FIELD = z
  .array(z.number({ error: 'must be whole days' }).int('must be whole days').min(1, 'must be at least 1 day').max(365, 'must be at most 365 days'), { error: 'must be an array of days' })
  .min(1, 'must name at least one day, or be null')
  .max(10, 'must have at most 10 thresholds')
  .nullable();
