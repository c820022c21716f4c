import type { NetworkInterfaceInfo } from 'node:os';

/**
 * The base URLs a server listening on `host`:`port` answers on, for the operator's log (issue 33
 * point 10: a setup link that names only `public_url`, `localhost` by default, is no use on a
 * headless server). A wildcard host is expanded to each interface's address, as other self-hosted
 * tools print theirs (Vite's "Network:" lines, Jupyter's server list): `0.0.0.0` to every IPv4
 * address, `::` (dual stack on Linux) to every IPv4 and IPv6 address; IPv6 link-local addresses
 * (fe80::/10) are left out (they need a zone id a browser does not take). Loopback comes first.
 * A specific host is the one URL. IPv6 hosts are bracketed.
 * @param interfaces what `os.networkInterfaces()` returns (passed in so tests give their own)
 * @returns URLs without a trailing slash, e.g. `['http://127.0.0.1:8080', 'http://192.168.1.5:8080']`
 */
export function listenUrls(host: string, port: number, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string[] {
  const url = (address: string) => `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  if (host !== '0.0.0.0' && host !== '::') return [url(host)];
  const all = Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((i) => i.family === 'IPv4' || (host === '::' && i.family === 'IPv6' && !/^fe[89ab]/i.test(i.address)));
  // Loopback first, then IPv4 before IPv6, otherwise in the system's order.
  const ranked = all.map((i, n) => ({ i, n, rank: (i.internal ? 0 : 2) + (i.family === 'IPv4' ? 0 : 1) })).sort((a, b) => a.rank - b.rank || a.n - b.n);
  const urls = [...new Set(ranked.map(({ i }) => url(i.address)))];
  return urls.length > 0 ? urls : [url(host === '::' ? '::1' : '127.0.0.1')];
}
