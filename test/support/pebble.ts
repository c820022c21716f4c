import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { freePort, waitFor } from './process.ts';

/**
 * A DNS server on 127.0.0.1 (UDP) answering every A question with 127.0.0.1, other types with no
 * answer, and names starting with `nx-` with NXDOMAIN: pebble's `-dnsserver`, so the names a test
 * orders lead its validation authority to the test's Pharos.
 */
export async function loopbackDns(): Promise<{ port: number; close(): void }> {
  const socket = createSocket('udp4');
  socket.on('message', (msg, from) => {
    if (msg.length < 12) return;
    let i = 12;
    const labels: string[] = [];
    while (i < msg.length && msg[i]! !== 0) {
      labels.push(msg.subarray(i + 1, i + 1 + msg[i]!).toString('latin1'));
      i += msg[i]! + 1;
    }
    const qtype = msg.readUInt16BE(i + 1);
    const question = msg.subarray(12, i + 5);
    const nx = labels[0]?.startsWith('nx-') ?? false;
    const header = Buffer.alloc(12);
    msg.copy(header, 0, 0, 2);
    header.writeUInt16BE(0x8180 | (msg.readUInt16BE(2) & 0x0100) | (nx ? 3 : 0), 2);
    header.writeUInt16BE(1, 4);
    const answer = !nx && qtype === 1 ? Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1]) : Buffer.alloc(0);
    header.writeUInt16BE(answer.length ? 1 : 0, 6);
    socket.send(Buffer.concat([header, question, answer]), from.port, from.address);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  return { port: socket.address().port, close: () => socket.close() };
}

/** A running pebble (Debian's ACME test server). */
export interface Pebble {
  /** The ACME directory URL. */
  directory: string;
  /** Its root CA (PEM): issued chains verify against it. */
  root(): Promise<string>;
  /** The CA pebble's own HTTPS listener is signed by (trust it for the ACME requests: tls.setDefaultCACertificates). */
  listenerCa: string;
  /** Lines pebble logged so far (one per request: `POST /order-plz` counts orders). */
  log(): string[];
  close(): Promise<void>;
}

/**
 * Starts `pebble` on loopback: its validation authority connects to `httpPort` (HTTP-01) and `tlsPort`
 * (TLS-ALPN-01) on whatever `dnsPort` answers (127.0.0.1). Every challenge is really checked
 * (PEBBLE_VA_ALWAYS_VALID=0) without pebble's random sleeps; no nonce is rejected at random and no
 * authorization reused, so each order runs its challenge.
 */
export async function startPebble(opts: { httpPort: number; tlsPort: number; dnsPort: number }): Promise<Pebble> {
  const dir = mkdtempSync(join(tmpdir(), 'pharos-pebble-'));
  const p = (f: string) => join(dir, f);
  const ossl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  ossl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=pebble test listener', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', p('key.pem'), '-out', p('cert.pem')]);
  const [port, mgmt] = [await freePort(), await freePort()];
  writeFileSync(
    p('config.json'),
    JSON.stringify({ pebble: { listenAddress: `127.0.0.1:${port}`, managementListenAddress: `127.0.0.1:${mgmt}`, certificate: p('cert.pem'), privateKey: p('key.pem'), httpPort: opts.httpPort, tlsPort: opts.tlsPort, ocspResponderURL: '', externalAccountBindingRequired: false } }),
  );
  const lines: string[] = [];
  const child: ChildProcess = spawn('pebble', ['-config', p('config.json'), '-dnsserver', `127.0.0.1:${opts.dnsPort}`], {
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_VA_ALWAYS_VALID: '0', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let buffered = '';
  const take = (b: Buffer) => {
    buffered += b.toString('utf8');
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    lines.push(...parts);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  // Not installed: fail (CI installs Debian's pebble: .ci/run), never skip.
  let failed: Error | null = null;
  child.once('error', (e) => (failed = new Error(`cannot run pebble (apt-get install pebble): ${e.message}`)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const listenerCa = readFileSync(p('cert.pem'), 'utf8');
  const agent = new Agent({ connect: { ca: listenerCa } });
  await waitFor('pebble to listen', async () => {
    if (failed) throw failed;
    if (child.exitCode !== null) throw new Error(`pebble exited: ${lines.join('\n')}`);
    return lines.some((l) => l.includes('ACME directory available'));
  });
  return {
    directory: `https://127.0.0.1:${port}/dir`,
    listenerCa,
    root: async () => (await undiciFetch(`https://127.0.0.1:${mgmt}/roots/0`, { dispatcher: agent })).text(),
    log: () => [...lines],
    async close() {
      child.kill('SIGTERM');
      await exited;
      await agent.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
