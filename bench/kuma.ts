/**
 * Bench (issue 38 point 2): Uptime Kuma beside Pharos on this machine, in one run and in both orders.
 * N HTTP or HTTPS monitors at the same frequency on N distinct origins (127.2.x.y, one port:
 * bench/target-many.ts, or bench/target-tls.ts with one certificate per 250 addresses from a local CA
 * made for the run and trusted by BOTH processes through NODE_EXTRA_CA_CERTS). Whole processes,
 * measured from /proc (CPU of all threads, peak RSS from VmHWM, peak open descriptors).
 *
 *   node --import tsx bench/kuma.ts [--kuma-dir /work/kuma-src] [--kuma-node /usr/bin/node]
 *                                   [--monitors 1000] [--frequency 10] [--duration 120] [--warmup 30]
 *                                   [--scheme https,http] [--order both] [--pharos dist] [--max-load 2.5]
 *
 * Kuma is an unpacked release (e.g. 2.5.3) with its production dependencies installed (setup commands:
 * docs/PERFORMANCE.md) and a `dist/index.html` (the built frontend or a stub: the server exits without
 * one). Each Kuma run starts `node server/server.js` in `--kuma-dir` on a fresh data dir (SQLite,
 * `UPTIME_KUMA_DB_TYPE=sqlite`), creates the admin and the monitors through Kuma's own socket.io API
 * (`setup`, `login`, `add`; socket.io-client is loaded from Kuma's node_modules, the version its
 * server speaks), then disconnects, so no open dashboard is fed during the window. Kuma 2.x accepts
 * intervals down to 1 s (src/util.ts MIN_INTERVAL_SECOND); Pharos gets the same frequency.
 *
 * Checks done are each side's own count over the window: rows added to Kuma's `heartbeat` table (it
 * stores every beat), Pharos's `pharos_checks_total`. HTTPS rows also say how many handshakes the target
 * saw, full and resumed, as a cross-check (Kuma opens a new connection per check with session reuse
 * off, `maxCachedSessions: 0`). DB B/check: pages of the check tables (dbstat) / checks stored (Kuma:
 * `heartbeat` and its `stat_*` aggregates; Pharos: bench/results-db.ts). A Markdown table is printed
 * and the rows written to bench/results/kuma-<N>-<time>.json (not committed).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { benchArgs } from './args.ts';
import { ProcessWindow, fdSampler, sleep, startChild, type Child } from './proc.ts';
import { metric } from './prom.ts';
import { ROOT, forEachConcurrent, freePort, startBenchPharos, stop } from './pharos.ts';
import { startCheckTarget, type CheckTarget } from './check-target.ts';
import { countResults, resultBytes } from './results-db.ts';

const { values: opt } = benchArgs({
  about: 'Uptime Kuma beside Pharos: N HTTP or HTTPS monitors on N distinct origins at the same frequency, both orders in one run; CPU, CPU ms/check, peak RSS, checks done vs due.',
  options: {
    'kuma-dir': { type: 'string', default: '/work/kuma-src', help: 'an unpacked Uptime Kuma release with `npm ci --omit=dev` done and dist/index.html present' },
    'kuma-node': { type: 'string', default: '/usr/bin/node', help: 'the Node that runs Kuma (Kuma 2.x: Node >= 20.4)' },
    monitors: { type: 'string', default: '1000', help: 'monitors, one distinct origin each' },
    frequency: { type: 'string', default: '10', help: 'check interval of both, seconds (Kuma 2.x accepts >= 1)' },
    duration: { type: 'string', default: '120', help: 'seconds measured' },
    warmup: { type: 'string', default: '30', help: 'seconds after the last monitor is created, before the window' },
    scheme: { type: 'string', default: 'https,http', help: 'http, https, or both comma-separated in the order to run them (each against its own target)' },
    order: { type: 'string', default: 'both', help: 'the runs against each target, in turn: kuma and pharos comma-separated; both = kuma,pharos,pharos,kuma' },
    pharos: { type: 'string', default: 'dist', help: "dist (the single executable, rebuilt when stale), src, or a binary's path" },
    'max-load': { type: 'string', default: '0', help: 'before each run, wait (at most 2 min) until the 1-minute load average is below this (0: no wait)' },
  },
});
const N = Number(opt.monitors);
const FREQ_S = Number(opt.frequency);
const DURATION_S = Number(opt.duration);
const WARMUP_S = Number(opt.warmup);
const KUMA_DIR = opt['kuma-dir'];
const SCHEMES = opt.scheme.split(',') as Array<'http' | 'https'>;
const ORDER = (opt.order === 'both' ? 'kuma,pharos,pharos,kuma' : opt.order).split(',') as Array<'kuma' | 'pharos'>;
if (SCHEMES.some((x) => x !== 'http' && x !== 'https')) throw new Error(`--scheme: http or https, comma-separated (got ${opt.scheme})`);
if (ORDER.some((x) => x !== 'kuma' && x !== 'pharos')) throw new Error(`--order: kuma and pharos, comma-separated (got ${opt.order})`);
if (ORDER.includes('kuma') && !existsSync(join(KUMA_DIR, 'server/server.js'))) throw new Error(`--kuma-dir ${KUMA_DIR}: no server/server.js (see the file's doc comment)`);

/** One measured run. */
interface Row {
  what: string;
  scheme: string;
  monitors: number;
  frequencyS: number;
  duePerS: number;
  donePerS: number;
  cpuCores: number;
  /** CPU per check done, ms. */
  cpuMsPerCheck: number;
  peakRssMb: number;
  /** RSS at the end of the window. */
  rssMb: number;
  peakFds: number;
  dbBytesPerCheck: number;
  /** Seconds to create the N monitors through the product's own API. */
  createS: number;
  /** The 1-minute load average before and after the run (the machine is shared). */
  load: [number, number];
  notes: string;
}



/** The 1-minute load average now. */
const load1 = (): number => Number(loadavg()[0]!.toFixed(2));

/** Waits until the 1-minute load average is below `--max-load` (the machine is shared), at most 5 minutes. */
async function quieter(): Promise<void> {
  const max = Number(opt['max-load']);
  const until = Date.now() + 120_000;
  while (max > 0 && load1() >= max && Date.now() < until) await sleep(10_000);
}

/** What the measured window saw of a process: CPU, memory, descriptors, and checks counted by `count()`. */
async function measure(pid: number, count: () => Promise<number>, target: CheckTarget): Promise<{ m: ReturnType<ProcessWindow['end']>; peakFds: number; checks: number; tls: string }> {
  const c0 = await count();
  const hs0 = await target.handshakes?.();
  const win = new ProcessWindow(pid);
  const fds = fdSampler(pid);
  await sleep(DURATION_S * 1000);
  const m = win.end();
  const peakFds = fds.peak();
  const hs1 = await target.handshakes?.();
  const checks = (await count()) - c0;
  const tls = hs0 && hs1 ? `TLS handshakes at the target in the window: ${hs1.full - hs0.full} full, ${hs1.resumed - hs0.resumed} resumed` : '';
  return { m, peakFds, checks, tls };
}

/** The few socket.io-client calls used (Kuma's own copy, loaded at run time). */
interface Socket {
  emit(event: string, ...args: unknown[]): void;
  once(event: string, fn: (arg: unknown) => void): void;
  disconnect(): void;
}

/** Emits `event` with `args` and resolves with Kuma's callback answer; throws when it is not `ok`. */
function call(socket: Socket, event: string, ...args: unknown[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kuma ${event}: no answer in 60 s`)), 60_000);
    socket.emit(event, ...args, (res: Record<string, unknown>) => {
      clearTimeout(timer);
      if (res?.ok) resolve(res);
      else reject(new Error(`kuma ${event}: ${JSON.stringify(res)}`));
    });
  });
}

/** Waits for Kuma's main server (not its migration page) to say it listens; throws if it exits first. */
async function kumaListening(child: Child): Promise<void> {
  const exited = new Promise<never>((_, reject) => child.proc.once('exit', (code) => reject(new Error(`kuma exited (${code}): ${child.stderr().slice(-2000)}`))));
  const deadline = setTimeout(() => child.proc.kill('SIGKILL'), 180_000);
  try {
    for (;;) {
      const line = (await Promise.race([child.nextLine(), exited])).replace(/\x1b\[[0-9;]*m/g, '');
      if (/\[SERVER\] INFO: Listening on/.test(line)) return;
    }
  } finally {
    clearTimeout(deadline);
  }
}

/** One Kuma run: fresh data dir, admin, N monitors through socket.io, then the window. */
async function runKuma(target: CheckTarget, scheme: string): Promise<Row> {
  const load0 = load1();
  const dataDir = mkdtempSync(join(tmpdir(), 'kuma-bench-'));
  const port = await freePort();
  const env = { ...target.env, UPTIME_KUMA_DB_TYPE: 'sqlite', DATA_DIR: `${dataDir}/`, UPTIME_KUMA_HOST: '127.0.0.1', UPTIME_KUMA_PORT: String(port), NODE_ENV: 'production' };
  // `cd` for Kuma's relative paths (./dist, ./db); `exec` keeps the pid the one measured.
  const child = startChild('bash', ['-c', 'cd "$1" && exec "$2" server/server.js', 'bash', KUMA_DIR, opt['kuma-node']], env);
  try {
    await kumaListening(child);
    const { io } = createRequire(join(KUMA_DIR, 'package.json'))('socket.io-client') as { io: (url: string, o: object) => Socket };
    const socket = io(`http://127.0.0.1:${port}`, { transports: ['websocket'], reconnection: false });
    // Kuma registers its handlers after sending `info` to a new connection: earlier emits are lost.
    await new Promise<void>((resolve, reject) => {
      socket.once('info', () => resolve());
      socket.once('connect_error', (e) => reject(e as Error));
    });
    const password = 'bench-Kuma-pass-1234';
    await call(socket, 'setup', 'admin', password);
    await call(socket, 'login', { username: 'admin', password, token: '' });
    const t0 = performance.now();
    await forEachConcurrent(N, 8, async (i) => {
      await call(socket, 'add', kumaMonitor(i, target.url(i)));
    });
    const createS = (performance.now() - t0) / 1000;
    socket.disconnect();
    await sleep(Math.max(WARMUP_S, FREQ_S + 10) * 1000);
    const db = new Database(join(dataDir, 'kuma.db'), { readonly: true, fileMustExist: true });
    const beats = db.prepare('SELECT count(*) FROM heartbeat');
    const down = db.prepare('SELECT count(*) FROM heartbeat WHERE status != 1');
    const down0 = down.pluck().get() as number;
    const { m, peakFds, checks, tls } = await measure(child.proc.pid!, async () => beats.pluck().get() as number, target);
    const downInWindow = (down.pluck().get() as number) - down0;
    db.close();
    await stopKuma(child);
    const done = new Database(join(dataDir, 'kuma.db'), { readonly: true });
    const rows = done.prepare('SELECT count(*) FROM heartbeat').pluck().get() as number;
    const bytes = done.prepare("SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name = 'heartbeat' OR tbl_name GLOB 'stat_*')").pluck().get() as number;
    done.close();
    return row(`kuma ${kumaVersion()} ${scheme}`, scheme, m, checks, peakFds, bytes / rows, createS, load0, [tls, `${downInWindow} beats not up in the window`, `created ${N} monitors in ${createS.toFixed(1)} s`, `${rows} heartbeats stored`]);
  } finally {
    await stopKuma(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** SIGTERM (Kuma shuts down gracefully), SIGKILL after 20 s. */
async function stopKuma(child: Child): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  const kill = setTimeout(() => child.proc.kill('SIGKILL'), 20_000);
  await stop(child);
  clearTimeout(kill);
}

/** The unpacked Kuma's version (its package.json). */
const kumaVersion = (): string => (JSON.parse(readFileSync(join(KUMA_DIR, 'package.json'), 'utf8')) as { version: string }).version;

/** Monitor i as Kuma's editor posts a new HTTP monitor (its defaults, EditMonitor.vue), at FREQ_S with no retries. */
function kumaMonitor(i: number, url: string): Record<string, unknown> {
  return {
    type: 'http', name: `bench ${i}`, parent: null, url, method: 'GET', ipFamily: null,
    interval: FREQ_S, retryInterval: FREQ_S, resendInterval: 0, maxretries: 0, timeout: Math.min(48, FREQ_S * 0.8),
    notificationIDList: {}, ignoreTls: false, upsideDown: false, expiryNotification: false, maxredirects: 10,
    accepted_statuscodes: ['200-299'], dns_resolve_type: 'A', dns_resolve_server: '', proxyId: null,
    httpBodyEncoding: 'json', kafkaProducerBrokers: [], kafkaProducerSaslOptions: { mechanism: 'None' },
    rabbitmqNodes: [], conditions: [], active: true,
  };
}

/** One Pharos run against the same target: N monitors through its API, then the window. */
async function runPharos(target: CheckTarget, scheme: string): Promise<Row> {
  const load0 = load1();
  const p = await startBenchPharos(opt.pharos, undefined, undefined, '', target.env);
  try {
    const t0 = performance.now();
    await forEachConcurrent(N, 8, async (i) => {
      const res = await p.api('/v1/monitors', 'POST', { name: `bench ${i}`, url: target.url(i), monitor_type: 'status', check_frequency: FREQ_S });
      if (res.status !== 201) throw new Error(`create monitor ${i}: ${res.status} ${await res.text()}`);
    });
    const createS = (performance.now() - t0) / 1000;
    await sleep(Math.max(WARMUP_S, FREQ_S + 10) * 1000);
    const scrape = async () => metric(await p.api('/metrics').then((r) => r.text()), 'pharos_checks_total');
    const { m, peakFds, checks, tls } = await measure(p.child.proc.pid!, scrape, target);
    await p.stop();
    const db = new Database(p.dbFile, { readonly: true });
    const rows = countResults(db);
    const bytes = resultBytes(db);
    db.close();
    return row(`pharos ${scheme} (${opt.pharos})`, scheme, m, checks, peakFds, bytes / rows, createS, load0, [tls, `created ${N} monitors in ${createS.toFixed(1)} s`, `${rows} results stored, file ${(statSync(p.dbFile).size / 2 ** 20).toFixed(1)} MB`]);
  } finally {
    await p.cleanup();
  }
}

/** One side's row from its measured window: `checks` done in it, `notes` joined (empty ones left out). */
function row(what: string, scheme: string, m: ReturnType<ProcessWindow['end']>, checks: number, peakFds: number, dbBytesPerCheck: number, createS: number, load0: number, notes: string[]): Row {
  const donePerS = checks / m.wallS;
  return {
    what,
    scheme,
    monitors: N,
    frequencyS: FREQ_S,
    duePerS: N / FREQ_S,
    donePerS,
    cpuCores: m.cpuCores,
    cpuMsPerCheck: (m.cpuCores * 1000) / donePerS,
    peakRssMb: m.peakRss / 2 ** 20,
    rssMb: m.rss / 2 ** 20,
    peakFds,
    dbBytesPerCheck,
    createS,
    load: [load0, load1()],
    notes: notes.filter(Boolean).join('; '),
  };
}

function table(rows: Row[]): string {
  const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');
  return [
    '| run | monitors | checks/s due | checks/s done | CPU (cores) | CPU ms/check | peak RSS MB | RSS at end MB | peak fds | DB B/check | load 1 min before/after |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r.what} | ${r.monitors} | ${f(r.duePerS)} | ${f(r.donePerS)} | ${f(r.cpuCores, 2)} | ${f(r.cpuMsPerCheck, 2)} | ${f(r.peakRssMb, 0)} | ${f(r.rssMb, 0)} | ${f(r.peakFds, 0)} | ${f(r.dbBytesPerCheck, 0)} | ${r.load[0]} / ${r.load[1]} |`),
    ...rows.map((r, i) => `\n${i + 1}. ${r.what}: ${r.notes}`),
  ].join('\n');
}

const rows: Row[] = [];
for (const scheme of SCHEMES) {
  const target = await startCheckTarget(scheme, N, true);
  try {
    for (const side of ORDER) {
      await quieter();
      const row = side === 'kuma' ? await runKuma(target, scheme) : await runPharos(target, scheme);
      rows.push(row);
      process.stderr.write(`${row.what}: ${row.donePerS.toFixed(1)} of ${row.duePerS.toFixed(1)} checks/s, ${row.cpuCores.toFixed(2)} cores, ${row.cpuMsPerCheck.toFixed(2)} ms/check, peak ${row.peakRssMb.toFixed(0)} MB\n`);
    }
  } finally {
    await target.stop();
  }
}
const out = table(rows);
console.log(`\n${N} monitors every ${FREQ_S} s on ${N} distinct origins, ${SCHEMES.join(' then ').toUpperCase()}, runs ${ORDER.join(' → ')}; ${DURATION_S} s window after ${WARMUP_S} s warm-up\n\n${out}`);
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, `bench/results/kuma-${N}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(rows, null, 2));
