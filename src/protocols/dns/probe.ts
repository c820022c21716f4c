import { promises as dnsPromises } from 'node:dns';
import type { CheckOutcome } from '../../domain/check.ts';
import type { ProbeFactory } from '../types.ts';
import { parseResolver, ptrName, type dns } from './index.ts';

type Settings = typeof dns.defaults;
type Resolver = dnsPromises.Resolver;

/** An answer in the form `dig +short` prints it. */
async function answers(r: Resolver, name: string, type: Settings['dns_record_type']): Promise<string[]> {
  switch (type) {
    case 'A':
      return r.resolve4(name);
    case 'AAAA':
      return r.resolve6(name);
    case 'CNAME':
      return r.resolveCname(name);
    case 'NS':
      return r.resolveNs(name);
    case 'MX':
      return (await r.resolveMx(name)).map((x) => `${x.priority} ${x.exchange}`);
    case 'TXT':
      return (await r.resolveTxt(name)).map((chunks) => chunks.join(''));
    case 'SRV':
      return (await r.resolveSrv(name)).map((x) => `${x.priority} ${x.weight} ${x.port} ${x.name}`);
    case 'SOA': {
      const s = await r.resolveSoa(name);
      return [`${s.nsname} ${s.hostmaster} ${s.serial} ${s.refresh} ${s.retry} ${s.expire} ${s.minttl}`];
    }
    case 'PTR':
      return r.resolvePtr(ptrName(name));
    case 'CAA':
      return (await r.resolveCaa(name)).map((x) => {
        const [tag, value] = Object.entries(x).find(([k]) => k !== 'critical') ?? ['', ''];
        return `${x.critical} ${tag} "${String(value)}"`;
      });
  }
}

/** True when an answer equals `expected` (case-insensitive) or matches `/expected/`. */
function matches(list: string[], expected: string): boolean {
  if (expected.length > 1 && expected.startsWith('/') && expected.endsWith('/')) {
    const re = new RegExp(expected.slice(1, -1));
    return list.some((a) => re.test(a));
  }
  const want = expected.toLowerCase().replace(/\.$/, '');
  return list.some((a) => a.toLowerCase().replace(/\.$/, '') === want);
}

/**
 * DNS checks with Node's resolver (c-ares, one try, the check's timeout): one query per check to
 * `dns_resolver` or the system's resolvers, sent from `probe.source_address` when set.
 * Reasons: `NXDOMAIN for db.example.lan`, `No MX record for example.lan`, `SERVFAIL for …`,
 * `DNS timeout after 5 s`, `A db.example.lan was 10.0.0.9, expected 10.0.0.5`.
 */
export const dnsProbe: ProbeFactory = (options) => ({
  async check(spec): Promise<CheckOutcome> {
    const s = spec.settings as Settings;
    const name = spec.target.host;
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const r = new dnsPromises.Resolver({ timeout: spec.timeoutSeconds * 1000, tries: 1 });
    const server = s.dns_resolver ? parseResolver(s.dns_resolver) : null;
    if (server) r.setServers([server.ip.includes(':') ? `[${server.ip}]:${server.port}` : `${server.ip}:${server.port}`]);
    if (options.sourceAddress) {
      if (options.sourceAddress.includes(':')) r.setLocalAddress(undefined, options.sourceAddress);
      else r.setLocalAddress(options.sourceAddress);
    }
    try {
      const list = await answers(r, name, s.dns_record_type);
      if (list.length === 0) return { ok: false, latencyMs: latency(), statusCode: 0, reason: `No ${s.dns_record_type} record for ${name}` };
      if (s.dns_expected !== null && !matches(list, s.dns_expected)) {
        return { ok: false, latencyMs: latency(), statusCode: 0, reason: `${s.dns_record_type} ${name} was ${list.slice(0, 5).join(', ')}, expected ${s.dns_expected}` };
      }
      return { ok: true, latencyMs: latency(), statusCode: 0, reason: null };
    } catch (e) {
      return { ok: false, latencyMs: latency(), statusCode: 0, reason: describe((e as { code?: string }).code, name, s.dns_record_type, spec.timeoutSeconds) };
    } finally {
      r.cancel();
    }
  },
  async close() {},
});

function describe(code: string | undefined, name: string, type: string, timeoutSeconds: number): string {
  switch (code) {
    case 'ENOTFOUND':
      return `NXDOMAIN for ${name}`;
    case 'ENODATA':
      return `No ${type} record for ${name}`;
    case 'ESERVFAIL':
      return `SERVFAIL for ${name}`;
    case 'EREFUSED':
      return `Query for ${name} refused by the resolver`;
    case 'ETIMEOUT':
      return `DNS timeout after ${timeoutSeconds} s`;
    case 'ECONNREFUSED':
      return 'Resolver refused the connection';
    default:
      return `DNS query failed: ${code ?? 'unknown error'}`;
  }
}
