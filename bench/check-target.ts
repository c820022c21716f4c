/**
 * The targets the monitor benches check (bench/monitors.ts, bench/kuma.ts): plain HTTP on one origin
 * (bench/target.ts) or on N distinct origins 127.2.x.y (bench/target-many.ts), or HTTPS
 * (bench/target-tls.ts) with a local CA made for the run — one leaf per 250 addresses, the size of a
 * real leaf — that every checker trusts through `NODE_EXTRA_CA_CERTS`. Each target is its own
 * process, so its CPU is not counted against the checker.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild } from './proc.ts';
import { ROOT, freePort, stop } from './pharos.ts';
import { originAddress } from './origins-lib.ts';
import { testCa } from '../test/support/certs.ts';

/** A running check target: monitor i's URL, the environment a checker needs, the TLS target's handshake counts. */
export interface CheckTarget {
  url(i: number): string;
  /** `NODE_EXTRA_CA_CERTS` for https (the run's CA); empty for http. */
  env: Record<string, string>;
  /** https only: TLS handshakes the target completed so far, full and resumed (`isSessionReused()` on its side). */
  handshakes?: () => Promise<{ full: number; resumed: number }>;
  stop(): Promise<void>;
}

/**
 * Starts the target of `scheme` for `monitors` monitors.
 * @param distinct one origin per monitor (127.2.x.y) instead of one origin for all
 * @param node the Node binary the target runs on
 */
export async function startCheckTarget(scheme: 'http' | 'https', monitors: number, distinct: boolean, node = process.execPath): Promise<CheckTarget> {
  const port = await freePort();
  const origins = distinct ? monitors : 1;
  if (scheme === 'http') {
    const child = distinct ? startChild(node, [join(ROOT, 'bench/target-many.ts'), String(port), String(monitors)]) : startChild(node, [join(ROOT, 'bench/target.ts'), String(port)]);
    await child.nextLine();
    return { url: (i) => `http://${distinct ? originAddress(i) : '127.0.0.1'}:${port}/m/${i}`, env: {}, stop: () => stop(child) };
  }
  const dir = mkdtempSync(join(tmpdir(), 'pharos-bench-tls-'));
  const ca = testCa(dir);
  for (let g = 0; g < Math.ceil(origins / 250); g++) {
    const names = Array.from({ length: Math.min(250, origins - g * 250) }, (_, j) => `IP:${originAddress(g * 250 + j)}`);
    ca.leaf(`group-${g}`, names.join(','), -1, 90);
  }
  writeFileSync(join(dir, 'ca.pem'), ca.cert);
  const child = startChild(node, [join(ROOT, 'bench/target-tls.ts'), String(port), String(origins), dir]);
  await child.nextLine();
  return {
    url: (i) => `https://${originAddress(distinct ? i : 0)}:${port}/m/${i}`,
    env: { NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') },
    async handshakes() {
      child.proc.kill('SIGUSR2');
      return JSON.parse(await child.nextLine()) as { full: number; resumed: number };
    },
    async stop() {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
