/**
 * Bench targets for bench/checks.ts, in their own process so their CPU is not counted against
 * Pharos: a DNS server (dns2, UDP) answering `A 10.0.0.5` for every name, and a TLS server with the
 * given key and certificate that closes each connection after the handshake.
 * Usage: node bench/check-targets.ts <dnsPort> <tlsPort> <key.pem> <cert.pem>   (prints "ready")
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:tls';
import dns2 from 'dns2';

const [dnsPort, tlsPort, keyFile, certFile] = process.argv.slice(2);
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
