import { z } from 'zod';

/**
 * Fields every channel schema shares. Channel schemas are pure zod (no I/O) so that `config/`
 * can validate `channels:` from them; the sending code lives in `alerting/channels/<type>/`.
 */

/** A channel's name: what escalation policy steps reference. */
export const channelName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'must be 1-64 letters, digits, _ . -');

/** Limit for connecting, for the answer and for body inactivity, each, in seconds. */
export const timeoutSeconds = z.number().int().min(1).max(120).default(10);

/** An http(s) URL (webhook URLs, provider API bases overridable for self-hosted servers and tests). */
export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** A provider API base URL with its public default, e.g. `https://api.telegram.org`. */
export const apiBase = (defaultUrl: string) => httpUrl.default(defaultUrl);

/** A non-empty secret (token, key); write it as `${ENV_VAR}` in config.yaml. */
export const secret = z.string().min(1);

/** The fields of every channel: `name` and `type` (a literal), plus the given ones. */
export function channelSchema<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.strictObject({ name: channelName, type: z.literal(type), ...shape, timeout_seconds: timeoutSeconds });
}
