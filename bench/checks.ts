/**
 * Bench: CPU per check of the protocols beside HTTP (issue 17). One Pharos process per run, each
 * with N monitors of one kind every F seconds against local targets in their own processes:
 * `http` (bench/target.ts), `dns` (a dns2 server) and `tls` (a TLS server with a certificate from a
 * test CA that Pharos trusts through NODE_EXTRA_CA_CERTS), and one run with N of both dns and tls.
 *
 *   npm run bench:checks -- [--monitors 1000] [--frequency 30] [--duration 90] [--warmup 40]
 *                           [--pharos dist|src] [--runs http,dns,tls,dns+tls]
 *
 * Reports per run: checks/s done, CPU in cores, CPU ms per check (cores × 1000 / checks/s), schedule
 * lag p99, peak RSS. Results go to bench/results/ (not committed); see docs/PERFORMANCE.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchArgs } from './args.ts';
import { testCa } from '../test/support/certs.ts';
import { tempDir } from '../test/support/pharos.ts';
import { ProcessWindow, median, sleep, startChild } from './proc.ts';
import { ROOT, forEachConcurrent, freePort, startBenchPharos, stop } from './pharos.ts';

const { values: opt } = benchArgs({
  about: 'CPU per check of the protocols beside HTTP (issue 17): one Pharos per run, N monitors of one kind against local targets.',
  npm: 'bench:checks',
  options: {
    monitors: { type: 'string', default: '1000', help: 'monitors per run' },
    frequency: { type: 'string', default: '30', help: 'their check frequency, seconds' },
    duration: { type: 'string', default: '90', help: 'seconds measured per run' },
    warmup: { type: 'string', default: '40', help: 'seconds before the window' },
    pharos: { type: 'string', default: 'dist', help: 'dist (the single executable, rebuilt when stale) or src (tsx)' },
    runs: { type: 'string', default: 'http,dns,tls,dns+tls', help: 'the runs, in order (comma list)' },
  },
});
const N = Number(opt.monitors);
const FREQ_S = Number(opt.frequency);
const DURATION_S = Number(opt.duration);
const WARMUP_S = Number(opt.warmup);

/** Sum of a Prometheus metric's samples (optionally only lines containing `label`). */
function metric(text: string, name: string, label?: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + ' ') && !line.startsWith(name + '{')) continue;
    if (label && !line.includes(label)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

interface Row {
  run: string;
  monitors: number;
  donePerS: number;
  failedPerS: number;
  cpuCores: number;
  cpuMsPerCheck: number;
  lagP99Ms: number;
  peakRssMb: number;
}

const dir = tempDir('pharos-bench-checks-');
const ca = testCa(dir);
const leaf = ca.leaf('bench', 'IP:127.0.0.1', -1, 90);
writeFileSync(join(dir, 'leaf.key'), leaf.key);
writeFileSync(join(dir, 'leaf.pem'), leaf.cert);
writeFileSync(join(dir, 'ca.pem'), ca.cert);
const [httpPort, dnsPort, tlsPort] = [await freePort(), await freePort(), await freePort()];
const http = startChild(process.execPath, [join(ROOT, 'bench/target.ts'), String(httpPort)]);
const others = startChild(process.execPath, [join(ROOT, 'bench/check-targets.ts'), String(dnsPort), String(tlsPort), join(dir, 'leaf.key'), join(dir, 'leaf.pem')]);
await http.nextLine();
await others.nextLine();

const bodies: Record<string, (i: number) => Record<string, unknown>> = {
  http: (i) => ({ name: `http ${i}`, url: `http://127.0.0.1:${httpPort}/m/${i}` }),
  dns: (i) => ({ name: `dns ${i}`, url: `host${i}.bench.lan`, protocol: 'dns', dns_resolver: `127.0.0.1:${dnsPort}` }),
  tls: (i) => ({ name: `tls ${i}`, url: '127.0.0.1', protocol: 'tls', port: tlsPort, tls_expiry_days: null }),
};

async function run(kinds: string[]): Promise<Row> {
  const p = await startBenchPharos(opt.pharos!, undefined, undefined, '', { NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') });
  try {
    for (const k of kinds) {
      await forEachConcurrent(N, 8, async (i) => {
        const res = await p.api('/v1/monitors', 'POST', { ...bodies[k]!(i), check_frequency: FREQ_S, timeout: 10 });
        if (res.status !== 201) throw new Error(`create ${k} ${i}: ${res.status} ${await res.text()}`);
      });
    }
    await sleep(Math.max(WARMUP_S, FREQ_S + 10) * 1000);
    const scrape = () => p.api('/metrics').then((r) => r.text());
    const first = await scrape();
    const win = new ProcessWindow(p.child.proc.pid!);
    const p99s: number[] = [];
    const samples = Math.max(1, Math.floor(DURATION_S / 15));
    for (let s = 0; s < samples; s++) {
      await sleep((DURATION_S * 1000) / samples);
      p99s.push(metric(await scrape(), 'pharos_scheduler_lag_seconds', 'quantile="0.99"') * 1000);
    }
    const m = win.end();
    const last = await scrape();
    const done = (metric(last, 'pharos_checks_total') - metric(first, 'pharos_checks_total')) / m.wallS;
    const failed = (metric(last, 'pharos_checks_total', 'result="down"') - metric(first, 'pharos_checks_total', 'result="down"')) / m.wallS;
    return { run: kinds.join(' + '), monitors: N * kinds.length, donePerS: done, failedPerS: failed, cpuCores: m.cpuCores, cpuMsPerCheck: (m.cpuCores * 1000) / done, lagP99Ms: median(p99s), peakRssMb: m.peakRss / 2 ** 20 };
  } finally {
    await p.cleanup();
  }
}

const rows: Row[] = [];
try {
  for (const r of opt.runs!.split(',')) rows.push(await run(r.split('+')));
} finally {
  await stop(http);
  await stop(others);
}
const f = (n: number, d = 1) => n.toFixed(d);
const table = [
  '| run | monitors | checks/s done | failed/s | CPU (cores) | CPU ms/check | lag p99 ms | peak RSS MB |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.run} | ${r.monitors} | ${f(r.donePerS)} | ${f(r.failedPerS)} | ${f(r.cpuCores, 3)} | ${f(r.cpuMsPerCheck, 2)} | ${f(r.lagP99Ms)} | ${f(r.peakRssMb, 0)} |`),
].join('\n');
console.log(`\nMonitors every ${FREQ_S} s, ${DURATION_S} s window after ${WARMUP_S} s warm-up (${opt.pharos})\n\n${table}`);
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, `bench/results/checks-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(rows, null, 2));
