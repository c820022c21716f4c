import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from '../support/process.ts';
import { ONCE_IN_SQLITE_RUN, tempDir } from '../support/pharos.ts';

// Issue 21: a real `pharos serve` under `ulimit -n 256` checking more distinct origins (addresses of
// 127.0.0.0/8, one listener each) than it may open descriptors, each answering after 6 s so several
// hundred checks would be in flight at once. Every monitor must be checked, none reported down, and
// the target must never see more connections at once than the descriptor limit allows.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LIMIT = 256;
const MONITORS = 500;
const DELAY_MS = 6_000;
const TOKEN = 'phr_descriptors' + 'x'.repeat(32);

const servers: Server[] = [];
const cleanups: Array<() => void | Promise<void>> = [];
after(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** 127.1.x.y for monitor i (never 127.0.0.1, where Pharos itself listens). */
const address = (i: number) => `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`;

test(`under ulimit -n ${LIMIT}, ${MONITORS} distinct-origin monitors are all checked, none reported down, sockets bounded`, { skip: ONCE_IN_SQLITE_RUN }, async () => {
  const port = await freePort();
  const hits = new Set<string>();
  let open = 0;
  let peakOpen = 0;
  cleanups.push(async () => {
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });
  for (let i = 0; i < MONITORS; i++) {
    const s = createServer((req, res) => {
      req.resume();
      hits.add(req.socket.localAddress!);
      const t = setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'), DELAY_MS);
      res.once('close', () => clearTimeout(t));
    });
    s.on('connection', (sock) => {
      open++;
      peakOpen = Math.max(peakOpen, open);
      sock.once('close', () => open--);
    });
    s.keepAliveTimeout = 60_000;
    servers.push(s);
    await new Promise<void>((r) => s.listen(port, address(i), () => r()));
  }

  const dir = tempDir('pharos-nofile-');
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'config.yaml'), 'log_level: info\n');
  const apiPort = await freePort();
  const url = `http://127.0.0.1:${apiPort}`;
  const child = spawn('bash', ['-c', `ulimit -n ${LIMIT}; exec "${process.execPath}" --import tsx src/main.ts serve`], {
    cwd: ROOT,
    env: { ...process.env, PHAROS_LISTEN: `127.0.0.1:${apiPort}`, PHAROS_DATA_DIR: join(dir, 'data'), PHAROS_ADMIN_TOKEN: TOKEN, PHAROS_CONFIG: join(dir, 'config.yaml') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  cleanups.push(() => {
    child.kill('SIGKILL');
  });
  await waitFor('pharos to start', async () => fetch(url + '/healthz').then((r) => r.ok, () => false), 30_000);
  const api = (path: string, init: { method?: string; json?: unknown } = {}) =>
    fetch(url + path, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });

  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < MONITORS) {
        const i = next++;
        const res = await api('/v1/monitors', { method: 'POST', json: { name: `origin ${i}`, url: `http://${address(i)}:${port}/`, check_frequency: 10, timeout: 10 } });
        assert.equal(res.status, 201, await res.text());
      }
    }),
  );

  const metric = (text: string, re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
  const metrics = async () => (await api('/metrics')).text();
  // Every origin received its check and Pharos recorded every one of them as up.
  await waitFor(
    `every one of ${MONITORS} origins checked`,
    async () => hits.size === MONITORS && metric(await metrics(), /^pharos_checks_total\{protocol="http",result="up"\} (\d+)$/m) >= MONITORS,
    120_000,
  );
  const text = await metrics();
  assert.equal(metric(text, /^pharos_checks_total\{protocol="http",result="down"\} (\d+)$/m), 0, 'no check reported down');
  const monitors = (await (await api('/v1/monitors')).json()) as { monitors: Array<{ status: string }> };
  const list = Array.isArray(monitors) ? (monitors as Array<{ status: string }>) : monitors.monitors;
  assert.equal(list.filter((m) => m.status === 'down').length, 0, 'no monitor down');
  const outages = (await (await api('/v2/outages')).json()) as { outages: unknown[] };
  assert.deepEqual(outages.outages, [], 'no outage opened');
  assert.ok(peakOpen < LIMIT, `connections at once at the targets (${peakOpen}) stay under the descriptor limit ${LIMIT}`);
  assert.ok(log.split('running out of file descriptors').length - 1 <= 1, 'descriptor trouble logged at most once');
});
