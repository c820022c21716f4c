/**
 * Bench: the single executable's size, start-up time to the first API answer (empty database, and
 * 10,000 monitors), and idle RSS. Medians of several runs; whole processes; see docs/PERFORMANCE.md.
 *
 *   npm run bench:startup -- [--runs 5] [--monitors 10000] [--pharos dist|<path to a binary>] [--emulator CMD]
 *
 * --emulator runs the binary through CMD (e.g. `qemu-aarch64-static -L /usr/aarch64-linux-gnu` for
 * dist/linux-arm64/pharos on x86-64); the database with N monitors is then made by this machine's
 * dist/pharos. Times and RSS under emulation are the emulator's, not an arm64 machine's.
 */
import { cpSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './args.ts';
import { median, rssBytes, sleep, startChild } from './proc.ts';
import { ROOT, TOKEN, forEachConcurrent, freePort, startBenchPharos, stop } from './pharos.ts';

const { values: opt } = benchArgs({
  about: "The single executable's size, start-up time to the first API answer (empty and with N monitors) and idle RSS; medians of several runs.",
  npm: 'bench:startup',
  options: {
    runs: { type: 'string', default: '5', help: 'starts per case' },
    monitors: { type: 'string', default: '10000', help: 'monitors of the second case' },
    pharos: { type: 'string', default: 'dist', help: "dist or a binary's path" },
    emulator: { type: 'string', help: "run the binary through this command, e.g. 'qemu-aarch64-static -L /usr/aarch64-linux-gnu'" },
  },
});
const RUNS = Number(opt.runs);
const N = Number(opt.monitors);

/** Starts the binary on a copy of `dataDir`, returns ms until GET /v1/monitors answers 200, and the RSS 5 s later. */
async function startOnce(bin: string, dataDir: string | null): Promise<{ ms: number; idleRssMb: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'pharos-start-'));
  if (dataDir) cpSync(dataDir, join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'config.yaml'), 'log_level: warn\n');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const [cmd, ...prefix] = [...(opt.emulator?.split(' ').filter(Boolean) ?? []), bin];
  const child = startChild(cmd!, [...prefix, 'serve'], { PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_DATA_DIR: join(dir, 'data'), PHAROS_ADMIN_TOKEN: TOKEN, PHAROS_CONFIG: join(dir, 'config.yaml') });
  try {
    for (;;) {
      if (child.proc.exitCode !== null) throw new Error(`pharos exited: ${child.stderr()}`);
      const ok = await fetch(`${url}/v1/monitors`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) => r.ok, () => false);
      if (ok) break;
      await sleep(5);
    }
    const ms = performance.now() - t0;
    await sleep(5000);
    return { ms, idleRssMb: rssBytes(child.proc.pid!) / 2 ** 20 };
  } finally {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

const bin = opt.pharos === 'dist' ? join(ROOT, 'dist/pharos') : opt.pharos!;
// A database with N monitors against a local target, made once through the API.
const targetPort = await freePort();
const target = startChild(process.execPath, [join(ROOT, 'bench/target.ts'), String(targetPort)]);
await target.nextLine();
const seed = await startBenchPharos(opt.emulator ? 'dist' : opt.pharos!);
await forEachConcurrent(N, 8, async (i) => {
  const res = await seed.api('/v1/monitors', 'POST', { name: `m${i}`, url: `http://127.0.0.1:${targetPort}/m/${i}`, check_frequency: 60 });
  if (res.status !== 201) throw new Error(`create monitor: ${res.status}`);
});
await seed.stop();
const seeded = seed.dbFile.replace(/\/pharos\.db$/, '');

const empty: number[] = [];
const full: number[] = [];
const idleEmpty: number[] = [];
const idleFull: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const e = await startOnce(bin, null);
  empty.push(e.ms);
  idleEmpty.push(e.idleRssMb);
  const f = await startOnce(bin, seeded);
  full.push(f.ms);
  idleFull.push(f.idleRssMb);
}
await seed.cleanup();
await stop(target);
const sizeMb = statSync(bin).size / 2 ** 20;
console.log(`\nbinary ${bin}: ${sizeMb.toFixed(1)} MiB; medians of ${RUNS} runs${opt.emulator ? ` under ${opt.emulator}` : ''}\n`);
console.log('| database | start → first API answer (ms) | RSS 5 s after start (MB) |');
console.log('|---|---:|---:|');
console.log(`| empty | ${median(empty).toFixed(0)} | ${median(idleEmpty).toFixed(0)} |`);
console.log(`| ${N} monitors (every 60 s) | ${median(full).toFixed(0)} | ${median(idleFull).toFixed(0)} |`);
