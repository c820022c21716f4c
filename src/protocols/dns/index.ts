import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { invalid } from '../../lib/errors.ts';
import { isHost } from '../target.ts';
import type { ProtocolDefinition } from '../types.ts';

/**
 * Record types a dns monitor may ask for: the hosted service's list (hyperping-go's
 * `AllowedDNSRecordTypes`). PTR asks for the name of an address: `url` is the address
 * (`10.0.0.5`, `2001:db8::1`, asked as its in-addr.arpa / ip6.arpa name) or that name itself.
 */
export const DNS_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SOA', 'SRV', 'CAA', 'PTR'] as const;

/** The reverse-lookup name of an IP address (`10.0.0.5` → `5.0.0.10.in-addr.arpa`, RFC 1035 §3.5 / RFC 3596 §2.5), or `name` as it is when it is no address. */
export function ptrName(name: string): string {
  if (isIP(name) === 4) return `${name.split('.').reverse().join('.')}.in-addr.arpa`;
  if (isIP(name) !== 6) return name;
  const nibbles = ipaddr.IPv6.parse(name).toByteArray().flatMap((b) => [b >> 4, b & 15]);
  return `${nibbles.reverse().map((n) => n.toString(16)).join('.')}.ip6.arpa`;
}

/** `ip`, `ip:port`, `[ipv6]` or `[ipv6]:port` → `{ip, port}` (c-ares takes addresses, not names), or null. */
export function parseResolver(s: string): { ip: string; port: number } | null {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)|([0-9a-fA-F:]+))(?::(\d{1,5}))?$/.exec(s.trim());
  if (!m) return null;
  const ip = m[1] ?? m[2] ?? m[3]!;
  if (m[3] && m[4] !== undefined) return null; // a bare IPv6 address cannot carry a port
  const port = m[4] === undefined ? 53 : Number(m[4]);
  return isIP(ip) && port >= 1 && port <= 65535 ? { ip, port } : null;
}

const fields = {
  dns_record_type: z.enum(DNS_RECORD_TYPES, { error: `must be one of ${DNS_RECORD_TYPES.join(', ')}` }),
  dns_resolver: z
    .string({ error: 'must be a string "ip[:port]"' })
    .refine((v) => parseResolver(v) !== null, 'must be an IP address with an optional port: "10.0.0.53", "10.0.0.53:5353" or "[::1]:53"')
    .nullable(),
  dns_expected: z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(1024, 'must be at most 1024 characters').nullable(),
};

/**
 * dns: resolve `url` (a name) for `dns_record_type` at `dns_resolver` (null = the system's); up
 * when it resolves and, with `dns_expected`, when an answer equals it (case-insensitive) or, for
 * `/pattern/`, matches it. Answers are compared in the shape `dig +short` prints.
 */
export const dns = {
  fields,
  defaults: { dns_record_type: 'A' as (typeof DNS_RECORD_TYPES)[number], dns_resolver: null as string | null, dns_expected: null as string | null },
  urlMeaning: 'the name to resolve, e.g. db.example.lan',
  label: 'DNS record',
  target(url) {
    const name = url.trim().replace(/\.$/, '');
    if (!isHost(name)) throw invalid('url', 'must be a DNS name to resolve, e.g. db.example.lan');
    return { url: name, host: name, port: null };
  },
  validate(s) {
    const e = s.dns_expected;
    if (e && e.length > 1 && e.startsWith('/') && e.endsWith('/')) {
      try {
        new RegExp(e.slice(1, -1));
      } catch {
        throw invalid('dns_expected', 'must be a valid /regular expression/');
      }
    }
  },
  loadProbe: async () => (await import('./probe.ts')).dnsProbe,
} satisfies ProtocolDefinition<typeof fields>;
