import { z } from 'zod';
import { hostTarget } from '../target.ts';
import type { ProtocolDefinition } from '../types.ts';

const fields = {
  smtp_tls: z.enum(['none', 'starttls', 'tls'], { error: 'must be one of none, starttls, tls' }),
};

/**
 * smtp: connect to `url` (a host) on `port` (default 25; 465 is usual with `smtp_tls: "tls"`, 587 with
 * `"starttls"`), read the 220 greeting, EHLO, with `starttls` upgrade and EHLO again, QUIT. No mail
 * is sent and no login is tried. TLS is verified against the system's roots.
 */
export const smtp = {
  fields,
  defaults: { smtp_tls: 'none' as 'none' | 'starttls' | 'tls' },
  urlMeaning: 'a host name or IP (host:port or a URL also work); `port` defaults to 25',
  label: 'SMTP server',
  target: (url, port) => hostTarget(url, port, 25),
  loadProbe: async () => (await import('./probe.ts')).smtpProbe,
} satisfies ProtocolDefinition<typeof fields>;
