/**
 * Bench: the console's overview at N monitors (issue 16: p99 under 50 ms at 1,000; issue 33 point 5:
 * at 2,000 and 10,000 the first page under 100 KB compressed and 50 ms server time), and the cost of
 * live updates. For each N of `--monitors` (a comma list): N monitors (checked hourly, the next check
 * an hour after the stored one: none runs during the bench) with 30 days of hourly rollups and one
 * stored check each, written straight into the database while Pharos is stopped (1 % down). The first admin is made through the setup link the log prints; then
 * sequential GETs with the session cookie of: /healthz (the HTTP floor), the overview's first page,
 * a search, a sort by response time, the last page, the down filter, and the API's monitor list
 * (`GET /v1/monitors`, every monitor: its own, smaller request count). Per route: wall p50/p99, the
 * Pharos process's CPU ms per request (/proc), the bytes on the wire as the browser gets them
 * (brotli; gzip and uncompressed given too) and the page's elements (start tags: each is a DOM
 * element). Live: `--streams` open /events streams, then monitor renames through the API; each change
 * renders one row once and reaches every stream (timed from the PUT to the last stream's receipt).
 * See docs/PERFORMANCE.md.
 *
 *   npm run bench:console -- [--monitors 2000,10000] [--requests 100] [--streams 20] [--changes 50] [--pharos dist|src|<binary>]
 */
import { request } from 'node:http';
import { benchArgs } from './args.ts';
import Database from 'better-sqlite3';
import { checksStore } from '../src/store/checks.ts';
import { sqliteDb } from '../src/store/db.ts';
import { cpuSeconds, median, quantile } from './proc.ts';
import { timeRequests } from './history.ts';
import { forEachConcurrent, startBenchPharos, TOKEN } from './pharos.ts';

const { values: opt } = benchArgs({
  about: "The console's overview at N monitors (server time, bytes on the wire, elements) and the cost of live updates over /events.",
  npm: 'bench:console',
  options: {
    monitors: { type: 'string', default: '2000,10000', help: 'monitor counts, one run each (comma list)' },
    requests: { type: 'string', default: '100', help: 'sequential GETs per route' },
    streams: { type: 'string', default: '20', help: 'open /events streams for the live part' },
    changes: { type: 'string', default: '50', help: 'monitor renames timed to the last stream' },
    pharos: { type: 'string', default: 'dist', help: "dist (the single executable, rebuilt when stale), src (tsx) or a binary's path" },
  },
});
const SIZES = opt.monitors!.split(',').map(Number);
const REQUESTS = Number(opt.requests);
const STREAMS = Number(opt.streams);
const CHANGES = Number(opt.changes);
const HOUR = 3_600_000;
const PW = 'bench password 123';

/** The body of `path` as sent for `acceptEncoding` (compressed bytes as they travel). */
const onTheWire = (url: string, headers: Record<string, string>, acceptEncoding: string) =>
  new Promise<{ bytes: number; encoding: string }>((resolve, reject) => {
    const req = request(url, { headers: { ...headers, 'accept-encoding': acceptEncoding } }, (res) => {
      let bytes = 0;
      res.on('data', (b: Buffer) => (bytes += b.length));
      res.on('end', () => resolve({ bytes, encoding: String(res.headers['content-encoding'] ?? 'identity') }));
    });
    req.on('error', reject);
    req.end();
  });

/** Elements of an HTML page: its start tags (server-rendered, so each is one DOM element). */
const elementsOf = (html: string) => html.match(/<[a-zA-Z][a-zA-Z0-9-]*/g)?.length ?? 0;

async function run(N: number): Promise<string[]> {
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
  const rollup = db.prepare('INSERT INTO check_rollups_hourly(monitor_id, hour_start, checks, failures, latency_sum_ms, latency_max_ms) VALUES (?, ?, 60, ?, ?, 200)');
  const checks = checksStore(sqliteDb(db));
  db.transaction(() => {
    db.prepare('UPDATE monitors SET paused = 0').run();
    for (const { id } of ids) {
      for (let h = now - (now % HOUR) - 30 * 24 * HOUR; h < now; h += HOUR) rollup.run(id, h, (h / HOUR + id) % 50 === 0 ? 3 : 0, 6000 + (id % 97) * 60);
      checks.insertResults([{ monitorId: id, at: now - (id % 60) * 1000, region: 'london', probe: 'local', ok: true, latencyMs: 100, statusCode: 200, reason: null }]);
    }
    db.prepare("UPDATE monitors SET status = 'down' WHERE id % 100 = 0").run();
    // Left unpaused (a paused row skips the reads that tell pending from checked, which flattered an
    // earlier run): each monitor's next check is due one frequency (1 h) after its stored one, so the
    // scheduler stays idle while the requests are timed.
  })();
  db.close();

  const p = await startBenchPharos(opt.pharos!, undefined, seed);
  try {
    const link = /open (\S+\/setup\/[0-9A-Za-z]+) to create/.exec(p.child.stderr())?.[1];
    if (!link) throw new Error(`no setup link in the log: ${p.child.stderr()}`);
    const setup = await fetch(p.url + new URL(link).pathname, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: p.url }, body: new URLSearchParams({ email: 'bench@example.com', password: PW }) });
    if (setup.status !== 303) throw new Error(`setup: ${setup.status}`);
    const cookie = setup.headers.getSetCookie()[0]!.split(';')[0]!;

    // CPU time of the Pharos process per request: unlike wall time, it does not depend on what else the machine runs.
    const pid = p.child.proc.pid!;
    const withCpu = async (send: () => Promise<Response>, requests = REQUESTS) => {
      const before = cpuSeconds(pid);
      const r = await timeRequests(send, requests, 10);
      return { ...r, cpuMs: ((cpuSeconds(pid) - before) * 1000) / (requests + 10) };
    };
    const f = (n: number) => n.toFixed(1);
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
    const lastPage = Math.ceil(N / 50);
    const routes: Array<[string, string, Record<string, string>, number]> = [
      ['overview, first page (50 rows)', '/', { cookie }, REQUESTS],
      ['search `?q=Service 12`', '/?q=Service%2012', { cookie }, REQUESTS],
      ['sort by response time, slowest first', '/?sort=response&dir=desc', { cookie }, REQUESTS],
      [`last page (\`?page=${lastPage}\`)`, `/?page=${lastPage}`, { cookie }, REQUESTS],
      ['filter `?status=down`', '/?status=down', { cookie }, REQUESTS],
      ['API monitor list `GET /v1/monitors` (every monitor)', '/v1/monitors', { authorization: `Bearer ${TOKEN}` }, Math.max(5, Math.round(REQUESTS / 10))],
    ];
    const lines = [
      `\n${N.toLocaleString('en-US')} monitors (30 days of hourly rollups each; 1 % down); sequential requests after 10 warm-up\n`,
      '| request | p50 ms | p99 ms | CPU ms/request | on the wire (br) | gzip | uncompressed | elements |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
    ];
    const floor = await withCpu(() => fetch(p.url + '/healthz'));
    lines.push(`| GET /healthz (HTTP floor) | ${f(floor.p50)} | ${f(floor.p99)} | ${f(floor.cpuMs)} | | | | |`);
    for (const [label, path, headers, n] of routes) {
      const r = await withCpu(() => fetch(p.url + path, { headers }), n);
      const [br, gz, plain] = await Promise.all(['br', 'gzip', 'identity'].map((e) => onTheWire(p.url + path, headers, e)));
      const body = await (await fetch(p.url + path, { headers })).text();
      const els = path.startsWith('/v1/') ? '' : String(elementsOf(body));
      const brText = br!.encoding === 'br' ? kb(br!.bytes) : `${kb(br!.bytes)} (${br!.encoding})`;
      lines.push(`| GET ${label} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.cpuMs)} | ${brText} | ${kb(gz!.bytes)} | ${kb(plain!.bytes)} | ${els} |`);
    }

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
    lines.push(`| PUT a monitor → its row on all ${STREAMS} SSE streams (${CHANGES} changes; counts follow) | ${f(median(liveMs))} | ${f(quantile(liveMs, 0.99))} | | | | | |`);
    return lines;
  } finally {
    await p.cleanup();
  }
}

for (const n of SIZES) console.log((await run(n)).join('\n'));
