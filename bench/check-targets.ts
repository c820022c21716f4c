/**
 * Bench targets for bench/checks.ts, in their own process so their CPU is not counted against
 * Pharos: a DNS server (dns2, UDP) answering `A 10.0.0.5` for every name, and a TLS server with the
 * given key and certificate that closes each connection after the handshake.
 * Usage: node bench/check-targets.ts <dnsPort> <tlsPort> <key.pem> <cert.pem>   (prints "ready")
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:tls';
import dns2 from 'dns2';
import { benchArgs } from './args.ts';

const { positionals } = benchArgs({
  about: 'Bench targets for bench/checks.ts: a DNS server answering A 10.0.0.5 for every name, and a TLS server closing each connection after the handshake (prints "ready").',
  positionals: [
    { name: 'dnsPort', help: 'UDP port of the DNS server' },
    { name: 'tlsPort', help: 'port of the TLS server' },
    { name: 'key.pem', help: "the TLS server's key" },
    { name: 'cert.pem', help: "the TLS server's certificate" },
  ],
  options: {},
});
const [dnsPort, tlsPort, keyFile, certFile] = positionals;
const { Packet } = dns2;
const dns = dns2.createServer({
  udp: true,
  handle: (request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [q] = request.questions;
    response.answers.push({ name: q!.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 60, address: '10.0.0.5' } as never);
    send(response);
  },
});
await dns.listen({ udp: { port: Number(dnsPort), address: '127.0.0.1' } });
const tls = createServer({ key: readFileSync(keyFile!), cert: readFileSync(certFile!) }, (s) => s.end());
tls.listen(Number(tlsPort), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => process.exit(0));
