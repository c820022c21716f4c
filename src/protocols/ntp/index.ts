import { z } from 'zod';
import { hostTarget } from '../target.ts';
import type { ProtocolDefinition } from '../types.ts';

const fields = {
  ntp_max_offset_ms: z.number({ error: 'must be a number of milliseconds or null' }).int('must be a whole number of milliseconds').min(1, 'must be at least 1 ms').max(3_600_000, 'must be at most 3600000 ms').nullable(),
  ntp_max_stratum: z.number({ error: 'must be a number from 1 to 15 or null' }).int('must be a whole number').min(1, 'must be from 1 to 15').max(15, 'must be from 1 to 15').nullable(),
};

/**
 * ntp: one SNTP (RFC 4330) query to `url` (a host) on `port` (default 123); up when the server
 * answers synchronized (leap indicator ≠ 3, stratum 1–15, no kiss-o'-death), its clock is within
 * `ntp_max_offset_ms` of Pharos's (null: any offset) and its stratum is at most `ntp_max_stratum`
 * (null: any).
 */
export const ntp = {
  fields,
  defaults: { ntp_max_offset_ms: 1000 as number | null, ntp_max_stratum: null as number | null },
  urlMeaning: 'a host name or IP (host:port or a URL also work); `port` defaults to 123',
  label: 'NTP server',
  target: (url, port) => hostTarget(url, port, 123),
  loadProbe: async () => (await import('./probe.ts')).ntpProbe,
} satisfies ProtocolDefinition<typeof fields>;
