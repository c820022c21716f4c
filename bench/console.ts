/**
 * Bench: the console's overview at N monitors (issue 16: p99 under 50 ms at 1,000), and the cost of
 * live updates. N paused monitors (no checks run) plus 30 days of hourly rollups and one stored
 * check each, written straight into the database while Pharos is stopped. The first admin is made
 * through the setup link the log prints; then sequential GETs of `/` (every row), `/?status=down`
 * (filtered) and /healthz (the HTTP floor). Live: `--streams` open /events streams, then monitor
 * renames through the API; each change renders one row once and reaches every stream (timed from
 * the PUT to the last stream's receipt). See docs/PERFORMANCE.md.
 *
 *   npm run bench:console -- [--monitors 1000] [--requests 300] [--streams 20] [--changes 100] [--pharos dist|src|<binary>]
 */
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { checksStore } from '../src/store/checks.ts';
import { sqliteDb } from '../src/store/db.ts';
import { cpuSeconds, median, quantile } from './proc.ts';
import { timeRequests } from './history.ts';
import { forEachConcurrent, startBenchPharos } from './pharos.ts';

const { values: opt } = parseArgs({
  options: {
    monitors: { type: 'string', default: '1000' },
    requests: { type: 'string', default: '300' },
    streams: { type: 'string', default: '20' },
    changes: { type: 'string', default: '100' },
    pharos: { type: 'string', default: 'dist' },
  },
});
const N = Number(opt.monitors);
const REQUESTS = Number(opt.requests);
const STREAMS = Number(opt.streams);
const CHANGES = Number(opt.changes);
const HOUR = 3_600_000;
const PW = 'bench password 123';

const seed = await startBenchPharos(opt.pharos!);
const uuids: string[] = new Array(N);
await forEachConcurrent(N, 8, async (i) => {
  const res = await seed.api('/v1/monitors', 'POST', { name: `Service ${i}`, url: `http://127.0.0.1:9/m${i}`, check_frequency: 3600, paused: true });
  if (res.status !== 201) throw new Error(`create monitor: ${res.status}`);
  uuids[i] = ((await res.json()) as { uuid: string }).uuid;
});
await seed.stop();

const db = new Database(seed.dbFile);
const now = Date.now();
const ids = db.prepare('SELECT id FROM monitors ORDER BY id').all() as Array<{ id: number }>;
const rollup = db.prepare('INSERT INTO check_rollups_hourly(monitor_id, hour_start, checks, failures, latency_sum_ms, latency_max_ms) VALUES (?, ?, 60, ?, 6000, 200)');
const checks = checksStore(sqliteDb(db));
db.transaction(() => {
  // Unpaused in the database only: the overview shows up/down and uptime as for live monitors.
  db.prepare('UPDATE monitors SET paused = 0').run();
  for (const { id } of ids) {
    for (let h = now - (now % HOUR) - 30 * 24 * HOUR; h < now; h += HOUR) rollup.run(id, h, (h / HOUR + id) % 50 === 0 ? 3 : 0);
    checks.insertResults([{ monitorId: id, at: now - (id % 60) * 1000, region: 'london', probe: 'local', ok: true, latencyMs: 100, statusCode: 200, reason: null }]);
  }
  db.prepare("UPDATE monitors SET status = 'down' WHERE id % 100 = 0").run();
  // Keep the scheduler idle: checks would compete with the requests being timed.
  db.prepare('UPDATE monitors SET paused = 1 WHERE id % 100 <> 0').run();
})();
db.close();

const p = await startBenchPharos(opt.pharos!, undefined, seed);
try {
  const link = /open (\S+\/setup\/[0-9A-Za-z]+) to create/.exec(p.child.stderr())?.[1];
  if (!link) throw new Error(`no setup link in the log: ${p.child.stderr()}`);
  const setup = await fetch(p.url + new URL(link).pathname, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: p.url }, body: new URLSearchParams({ email: 'bench@example.com', password: PW }) });
  if (setup.status !== 303) throw new Error(`setup: ${setup.status}`);
  const cookie = setup.headers.getSetCookie()[0]!.split(';')[0]!;
  const get = (path: string) => () => fetch(p.url + path, { headers: { cookie } });

  // CPU time of the Pharos process per request: unlike wall time, it does not depend on what else the machine runs.
  const pid = p.child.proc.pid!;
  const withCpu = async (send: () => Promise<Response>) => {
    const before = cpuSeconds(pid);
    const r = await timeRequests(send, REQUESTS, 20);
    return { ...r, cpuMs: ((cpuSeconds(pid) - before) * 1000) / (REQUESTS + 20) };
  };
  const floor = await withCpu(() => fetch(p.url + '/healthz'));
  const all = await withCpu(get('/'));
  const down = await withCpu(get('/?status=down'));

  // Live updates: STREAMS open streams; each rename is timed until every stream has its row.
  const waiting = new Map<string, { left: number; done: () => void }>();
  const controllers: AbortController[] = [];
  await Promise.all(
    Array.from({ length: STREAMS }, async () => {
      const ac = new AbortController();
      controllers.push(ac);
      const res = await fetch(p.url + '/events', { headers: { cookie }, signal: ac.signal });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let buf = '';
      void (async () => {
        for (;;) {
          const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
          if (done) return;
          buf += decoder.decode(value, { stream: true });
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const msg = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const name = /Renamed (\d+)/.exec(msg)?.[1];
            const w = name && waiting.get(name);
            if (w && --w.left === 0) w.done();
          }
        }
      })();
    }),
  );
  await new Promise((r) => setTimeout(r, 200));
  const liveMs: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    const uuid = uuids[(i * 37) % N]!;
    const arrived = new Promise<void>((done) => waiting.set(String(i), { left: STREAMS, done }));
    const t = performance.now();
    const res = await p.api(`/v1/monitors/${uuid}`, 'PUT', { name: `Renamed ${i}`, url: 'http://127.0.0.1:9/' });
    if (!res.ok) throw new Error(`rename: ${res.status}`);
    await arrived;
    liveMs.push(performance.now() - t);
  }
  for (const ac of controllers) ac.abort();

  const f = (n: number) => n.toFixed(1);
  const kb = (n: number) => `${Math.round(n / 1024)} KiB`;
  console.log(`\n${N} monitors (30 days of hourly rollups each; 1 % down); ${REQUESTS} sequential requests each\n`);
  console.log('| request | p50 ms | p99 ms | CPU ms/request | size |');
  console.log('|---|---:|---:|---:|---:|');
  console.log(`| GET /healthz (HTTP floor) | ${f(floor.p50)} | ${f(floor.p99)} | ${f(floor.cpuMs)} | |`);
  console.log(`| GET / (overview, every monitor) | ${f(all.p50)} | ${f(all.p99)} | ${f(all.cpuMs)} | ${kb(all.bytes)} |`);
  console.log(`| GET /?status=down (filtered) | ${f(down.p50)} | ${f(down.p99)} | ${f(down.cpuMs)} | ${kb(down.bytes)} |`);
  console.log(`| PUT a monitor → its row on all ${STREAMS} SSE streams (${CHANGES} changes) | ${f(median(liveMs))} | ${f(quantile(liveMs, 0.99))} | | |`);
} finally {
  await p.cleanup();
}
