/**
 * Bench: what dropping one hour's results table costs on the event loop (issue 14 point 14), in-process:
 * N monitors, one hour of their results (one check each every 10 s → N × 360 rows), then time the
 * prune's DROP TABLE (dropMs, with its count of results from the rollups) and, for comparison, a
 * count(*) of the table (countMs: a pass over its pages), and read VmRSS around it.
 *
 *   node --import tsx bench/drop-hour.ts [--monitors 10000]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './args.ts';
import type { CheckResult } from '../src/domain/check.ts';
import { openDb } from '../src/store/db.ts';
import { createStore } from '../src/store/index.ts';

const { values: opt } = benchArgs({
  about: "What dropping one hour's results table costs on the event loop, in-process: N monitors' hour of results, then the prune's DROP TABLE timed.",
  options: {
    monitors: { type: 'string', default: '10000', help: "monitors (N \u00d7 360 rows in the hour)" },
  },
});
const N = Number(opt.monitors);
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;
const dir = mkdtempSync(join(tmpdir(), 'pharos-drop-'));
const handle = openDb(dir);
const db = handle.sqlite;
const store = createStore(handle);
const ins = db.prepare(`INSERT INTO monitors(uuid, name, url, protocol, check_frequency_s, regions, status, paused, alerts_wait_min, timeout_s, created_at, updated_at)
  VALUES (?, 'm', 'http://127.0.0.1/', 'http', 10, '["london"]', 'up', 0, 0, 10, 1, 2)`);
db.transaction(() => { for (let i = 0; i < N; i++) ins.run(`mon_${i}`); })();
const ids = (db.prepare('SELECT id FROM monitors').all() as Array<{ id: number }>).map((r) => r.id);
const hourStart = Math.floor((Date.now() - 9 * 86_400_000) / 3_600_000) * 3_600_000;
// As the flushes write them: every 100 ms the checks of that moment, across monitors.
for (let s = 0; s < 3600; s += 1) {
  const batch: CheckResult[] = [];
  for (let k = 0; k < N / 10; k++) {
    const i = (s % 10) * (N / 10) + k;
    batch.push({ monitorId: ids[i]!, at: hourStart + s * 1000 + (k % 1000), region: 'london', probe: 'local', ok: true, latencyMs: 10 + (k % 90), statusCode: 200, reason: null });
  }
  store.tx(() => store.checks.insertResults(batch));
}
db.pragma('wal_checkpoint(TRUNCATE)');
const pages = db.prepare("SELECT sum(pageno > 0) AS p, sum(pgsize) AS b FROM dbstat WHERE name GLOB 'check_results_h*'").get() as { p: number; b: number };
const rows = N * 360;
const rss0 = rss();
let t0 = performance.now();
db.prepare(`SELECT count(*) FROM check_results_h${hourStart / 3_600_000}`).pluck().get();
const countMs = performance.now() - t0;
t0 = performance.now();
const dropped = store.tx(() => store.checks.dropHour(hourStart / 3_600_000));
const ms = performance.now() - t0;
console.log(JSON.stringify({ monitors: N, rows, dropped, pages: pages.p, bytesPerRow: +(pages.b / rows).toFixed(1), countMs: +countMs.toFixed(1), dropMs: +ms.toFixed(1), rssBeforeMb: +rss0.toFixed(0), rssAfterMb: +rss().toFixed(0) }));
db.close();
rmSync(dir, { recursive: true, force: true });
