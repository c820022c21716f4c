/**
 * Bench target for HTTPS checks (issue 38 point 2): answers `200 ok` over TLS on each of N addresses
 * of 127.0.0.0/8 (127.2.x.y, bench/origins-lib.ts), all on one port, so N monitors have N distinct
 * origins. Certificates come from a local CA (bench/monitors.ts makes them with test/support/certs.ts):
 * one key and certificate per /24 of addresses (250 IP names each, ~2.5 KB: the size of a real leaf,
 * where one certificate naming all 10,000 would be ~60 KB and make every handshake and stored session
 * unlike a real site's). One TLS server per certificate, fed the connections of its addresses' listeners.
 *
 * Usage: node bench/target-tls.ts <port> <n> <cert-dir>   (reads <cert-dir>/group-<g>.key/.pem; prints "ready")
 * On SIGUSR2 prints `{"full": n, "resumed": n, "open": n}`: handshakes so far, full and resumed (the
 * server's `isSessionReused()`), and connections open now.
 */
import { createServer as createNetServer } from 'node:net';
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { originAddress } from './origins-lib.ts';
import { benchArgs } from './args.ts';

const { positionals } = benchArgs({
  about: 'Bench target for HTTPS checks: answers `200 ok` over TLS on each of N addresses of 127.0.0.0/8, one certificate per /24 from <cert-dir> (prints "ready"). SIGUSR2 prints {full, resumed, open}.',
  positionals: [
    { name: 'port', help: 'the port every address listens on' },
    { name: 'n', help: 'how many addresses (127.2.x.y, 250 per /24)' },
    { name: 'cert-dir', help: 'folder with group-<g>.key and group-<g>.pem, g = address index / 250' },
  ],
  options: {},
});
const port = Number(positionals[0]);
const n = Number(positionals[1]);
const certDir = positionals[2]!;

/** Addresses per certificate: one /24 of originAddress. */
const ADDRESSES_PER_CERT = 250;

let full = 0;
let resumed = 0;
let open = 0;
const tlsServers = Array.from({ length: Math.ceil(n / ADDRESSES_PER_CERT) }, (_, g) => {
  const server = createServer({ key: readFileSync(join(certDir, `group-${g}.key`)), cert: readFileSync(join(certDir, `group-${g}.pem`)) }, (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
    res.end('ok');
  });
  server.keepAliveTimeout = 60_000;
  server.on('secureConnection', (s: TLSSocket) => (s.isSessionReused() ? resumed++ : full++));
  return server;
});
let listening = 0;
for (let i = 0; i < n; i++) {
  const tls = tlsServers[Math.floor(i / ADDRESSES_PER_CERT)]!;
  const listener = createNetServer((socket) => {
    open++;
    socket.once('close', () => open--);
    tls.emit('connection', socket);
  });
  listener.listen(port, originAddress(i), () => {
    if (++listening === n) process.stdout.write('ready\n');
  });
}
process.on('SIGUSR2', () => process.stdout.write(JSON.stringify({ full, resumed, open }) + '\n'));
process.on('SIGTERM', () => process.exit(0));
