import ipaddr from 'ipaddr.js';

/**
 * Address classification for outbound requests made on a stranger's word (status-page subscriber
 * webhooks): only global unicast addresses may be reached. Uses `ipaddr.js` (maintained, RFC
 * special-purpose registries), not the `ip` package, whose `isPublic` was a known bypass.
 *
 * IPv4-mapped and IPv4-compatible IPv6 addresses (`::ffff:127.0.0.1`) are judged as the IPv4
 * address they carry. Everything that is not `unicast` is refused: loopback, private (RFC 1918),
 * link-local (169.254/16 — cloud metadata — and fe80::/10), unique local (fc00::/7, e.g. AWS's
 * fd00:ec2::254), carrier-grade NAT (100.64/10, e.g. Alibaba's metadata), unspecified, broadcast,
 * multicast, reserved and documentation ranges, 6to4/Teredo/NAT64 (which embed IPv4 addresses).
 */

/**
 * True when `address` (an IPv4 or IPv6 literal without brackets or zone) is a global unicast
 * address; false for every special-purpose range, and for anything that is not an IP literal.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  try {
    return ipaddr.process(address).range() === 'unicast';
  } catch {
    return false;
  }
}

/**
 * The IP literal a URL host names, without IPv6 brackets (`[::1]` → `::1`), or null for a name.
 * Expects a WHATWG-normalized hostname (`new URL(…).hostname`), which has already turned numeric
 * forms such as `0x7f000001`, `2130706433` or `127.1` into `127.0.0.1`.
 */
export function ipLiteralOf(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (ipaddr.IPv4.isValidFourPartDecimal(bare) || bare.includes(':')) ? bare : null;
}

/**
 * The key a client address is rate-limited under: an IPv4 address as is (IPv4-mapped IPv6 unwrapped),
 * an IPv6 address by its /64 (one subscriber line holds a whole /64, so counting single addresses
 * would let it rotate freely). Anything else (`unknown`, a proxy's odd entry) is used unchanged.
 */
export function rateLimitKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  return `${(ip as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16)).join(':')}::/64`;
}
