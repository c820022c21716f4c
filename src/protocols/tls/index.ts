import { z } from 'zod';
import { TLS_EXPIRY_DAYS, TLS_EXPIRY_FIELD } from '../expiry.ts';
import { hostTarget } from '../target.ts';
import type { ProtocolDefinition } from '../types.ts';

const fields = {
  tls_starttls: z.enum(['none', 'smtp'], { error: 'must be one of none, smtp' }),
  tls_expiry_days: TLS_EXPIRY_FIELD,
};

/**
 * tls: connect to `url` (a host) on `port` (default 443) with TLS, or plain then STARTTLS for
 * SMTP; up when the chain verifies against the system's roots and the certificate is for the host.
 * Reports days to expiry (`ssl_expiration`); expiry notices at `tls_expiry_days` (30, 14, 7, 1).
 */
export const tls = {
  fields,
  defaults: { tls_starttls: 'none' as 'none' | 'smtp', tls_expiry_days: [...TLS_EXPIRY_DAYS] as number[] | null },
  urlMeaning: 'a host name or IP (host:port or a URL also work); `port` defaults to 443',
  label: 'TLS certificate',
  target: (url, port) => hostTarget(url, port, 443),
  loadProbe: async () => (await import('./probe.ts')).tlsProbe,
} satisfies ProtocolDefinition<typeof fields>;
