/**
 * Bench: what WAL checkpoints cost the event loop (issue 21, store/checkpointer.ts). The same
 * ping-like write load — per ping one UPDATE of a random row of 10,000 "healthchecks" and one INSERT
 * of a "ping" row, `--batch` pings per transaction, paced at `--rate` pings/s — on a fresh file-backed
 * database opened two ways, one after the other in the same process, `--rounds` times:
 *
 *   autocheckpoint   SQLite's own checkpoints (1,000 pages), run inside the COMMIT that passes them
 *                    on the thread that commits (main before session 8)
 *   worker           openDb(…, { checkpoints }): the checkpoint worker thread, the main connection
 *                    with wal_autocheckpoint = 0
 *
 *   node --import tsx bench/checkpoint.ts [--rate 10000] [--batch 20] [--duration 10] [--rounds 2] [--dir /tmp]
 *
 * Reports per run the transaction time on the main thread (µs histogram: p50, p99, p99.9, max, in
 * ms), the main thread's CPU (process.threadCpuUsage) and the process's (all threads), the WAL file's
 * peak size and, for the worker, its passive checkpoints and restarts. No HTTP: this isolates the
 * lever the ping bench (bench/pings.ts) sees through its noise.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHistogram } from 'node:perf_hooks';
import { benchArgs } from './args.ts';
import { openDb, type SqliteDb } from '../src/store/db.ts';
import { sleep } from './proc.ts';

const { values: opt } = benchArgs({
  about: "What WAL checkpoints cost the event loop: a paced ping-like write load with SQLite's autocheckpoint, then with Pharos's checkpoint worker.",
  options: {
    rate: { type: 'string', default: '10000', help: 'pings/s offered (one UPDATE and one INSERT each)' },
    batch: { type: 'string', default: '20', help: 'pings per transaction' },
    duration: { type: 'string', default: '10', help: 'seconds per run' },
    rounds: { type: 'string', default: '2', help: 'times each pair of runs is repeated' },
    dir: { type: 'string', default: tmpdir(), help: 'directory the databases are made under' },
  },
});
const RATE = Number(opt.rate);
const BATCH = Number(opt.batch);
const DURATION_MS = Number(opt.duration) * 1000;
const ROWS = 10_000;

interface Row {
  mode: string;
  commits: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  mainCpu: number;
  processCpu: number;
  walPeakMb: number;
  worker: string;
}

async function run(mode: 'autocheckpoint' | 'worker'): Promise<Row> {
  const dir = mkdtempSync(join(opt.dir!, 'pharos-ckpt-bench-'));
  const warned: string[] = [];
  const db: SqliteDb = openDb(dir, [], undefined, mode === 'worker' ? { warn: (l) => warned.push(l) } : undefined);
  try {
    const raw = db.sqlite;
    raw.exec(`CREATE TABLE hc (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, last_at INTEGER, state TEXT NOT NULL);
      CREATE TABLE pings (id INTEGER PRIMARY KEY, hc INTEGER NOT NULL, n INTEGER NOT NULL, at INTEGER NOT NULL, ua TEXT, body TEXT);
      CREATE INDEX pings_hc ON pings (hc, n)`);
    const fill = raw.prepare("INSERT INTO hc (id, n, state) VALUES (?, 0, 'up')");
    raw.transaction(() => {
      for (let i = 1; i <= ROWS; i++) fill.run(i);
    })();
    if (mode === 'worker') {
      const until = Date.now() + 10_000;
      while (db.checkpointer?.mode === 'starting' && Date.now() < until) await sleep(10);
      if (db.checkpointer?.mode !== 'running') throw new Error(`checkpoint worker not running: ${warned.join('; ')}`);
    }
    const update = raw.prepare('UPDATE hc SET n = n + 1, last_at = ? WHERE id = ? RETURNING n');
    const insert = raw.prepare('INSERT INTO pings (hc, n, at, ua, body) VALUES (?, ?, ?, ?, ?)');
    const write = raw.transaction((now: number) => {
      for (let i = 0; i < BATCH; i++) {
        const id = 1 + Math.floor(Math.random() * ROWS);
        const { n } = update.get(now, id) as { n: number };
        insert.run(id, n, now, 'curl/8.5.0', 'backup finished: 1234 files, 56 MB');
      }
    });
    const micros = createHistogram();
    const wal = join(dir, 'pharos.db-wal');
    let walPeak = 0;
    let commits = 0;
    const periodMs = (1000 * BATCH) / RATE;
    const cpu0 = process.cpuUsage();
    const main0 = process.threadCpuUsage();
    const t0 = performance.now();
    for (;;) {
      const now = performance.now();
      if (now - t0 >= DURATION_MS) break;
      const due = Math.floor((now - t0) / periodMs) + 1;
      while (commits < due) {
        const a = performance.now();
        write.immediate(Date.now());
        micros.record(Math.max(1, Math.round((performance.now() - a) * 1000)));
        if (++commits % 50 === 0) walPeak = Math.max(walPeak, statSync(wal).size);
      }
      await sleep(1);
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const main = process.threadCpuUsage(main0);
    const s = db.checkpointer?.stats();
    return {
      mode,
      commits,
      p50: micros.percentile(50) / 1000,
      p99: micros.percentile(99) / 1000,
      p999: micros.percentile(99.9) / 1000,
      max: micros.max / 1000,
      mainCpu: (main.user + main.system) / 1e6 / seconds,
      processCpu: (cpu.user + cpu.system) / 1e6 / seconds,
      walPeakMb: walPeak / 2 ** 20,
      worker: s ? `${s.passes} passes, ${s.restarts} restarts` : '–',
    };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows: Row[] = [];
const load0 = loadavg()[0]!.toFixed(2);
for (let round = 1; round <= Number(opt.rounds); round++) {
  rows.push(await run('autocheckpoint'));
  rows.push(await run('worker'));
}
const f = (n: number, d = 2) => n.toFixed(d);
console.log(
  [
    `\n${new Date().toISOString()}, load average ${load0} → ${loadavg().map((l) => l.toFixed(2)).join(' ')}: ${RATE} pings/s in transactions of ${BATCH}, ${opt.duration} s each, data dir under ${opt.dir}\n`,
    '| mode | commits | tx p50 ms | tx p99 ms | tx p99.9 ms | tx max ms | main thread CPU | process CPU | WAL peak MB | worker |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r.mode} | ${r.commits} | ${f(r.p50, 3)} | ${f(r.p99)} | ${f(r.p999)} | ${f(r.max)} | ${f(r.mainCpu)} | ${f(r.processCpu)} | ${f(r.walPeakMb, 1)} | ${r.worker} |`),
  ].join('\n'),
);
