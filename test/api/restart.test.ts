import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { tempDir, testDatabaseUrl, type JsonResponse } from '../support/pharos.ts';
import { freePort, spawnPharos, waitFor, type PharosProcess } from '../support/process.ts';

// A real `pharos serve` process on the real clock, killed with SIGKILL and stopped with SIGTERM.
const TOKEN = 'restart-test-token-0123456789';
const dataDir = tempDir();
const cleanups: Array<() => unknown> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Target answering 200 on every path and counting hits per path. */
async function countingTarget() {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1);
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, hits };
}

test('restart after SIGKILL and SIGTERM: nothing acknowledged is lost, monitors are rescheduled, outages carry over', { timeout: 180_000 }, async () => {
  const port = await freePort();
  const downPort = await freePort();
  const configFile = join(dataDir, 'config.yaml');
  writeFileSync(configFile, 'probe:\n  recheck_interval_seconds: 2\n');
  const env = { PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_DATA_DIR: dataDir, PHAROS_ADMIN_TOKEN: TOKEN, PHAROS_CONFIG: configFile, PHAROS_DATABASE_URL: (await testDatabaseUrl(dataDir)) ?? '' };
  const target = await countingTarget();
  let proc: PharosProcess = await spawnPharos(env);
  cleanups.push(() => proc.child.kill('SIGKILL'));
  const api = (path: string, init: RequestInit = {}) =>
    fetch(proc.url + path, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', ...init.headers } }) as Promise<JsonResponse>;

  // A monitor whose target is down: it must be down with an open outage before the kill.
  const down = await (await api('/v1/monitors', { method: 'POST', body: JSON.stringify({ name: 'down', url: `http://127.0.0.1:${downPort}/`, check_frequency: 10, timeout: 2 }) })).json();
  await waitFor('the down monitor to be confirmed down', async () => (await (await api(`/v1/monitors/${down.uuid}`)).json()).status === 'down');
  const openBefore = (await (await api('/v2/outages?status=ongoing')).json()).outages;
  assert.equal(openBefore.length, 1);

  // 40 creates in flight; SIGKILL as soon as 20 have been acknowledged.
  const acknowledged: string[] = [];
  let killed = false;
  await Promise.all(
    Array.from({ length: 40 }, async (_, i) => {
      try {
        const res = await api('/v1/monitors', { method: 'POST', body: JSON.stringify({ name: `m${i}`, url: `${target.url}/m${i}`, check_frequency: 10 }) });
        if (res.status === 201) acknowledged.push((await res.json()).uuid);
      } catch {
        /* the connection died with the process */
      }
      if (acknowledged.length >= 20 && !killed) {
        killed = true;
        proc.child.kill('SIGKILL');
      }
    }),
  );
  assert.equal(await proc.exited, 'SIGKILL');
  assert.ok(acknowledged.length >= 20);

  proc = await spawnPharos(env);
  const list: Array<{ uuid: string; url: string }> = await (await api('/v1/monitors')).json();
  const stored = new Set(list.map((m) => m.uuid));
  for (const uuid of acknowledged) assert.ok(stored.has(uuid), `acknowledged monitor ${uuid} survived SIGKILL`);
  const openAfter = (await (await api('/v2/outages?status=ongoing')).json()).outages;
  assert.deepEqual(openAfter.map((o: { uuid: string }) => o.uuid), [openBefore[0].uuid], 'the open outage is still open');
  assert.equal((await (await api(`/v1/monitors/${down.uuid}`)).json()).status, 'down');

  // Every monitor is scheduled again: each target path gets a check after the restart.
  target.hits.clear();
  const paths = list.filter((m) => m.url.startsWith(target.url)).map((m) => new URL(m.url).pathname);
  await waitFor('every monitor to be checked after the restart', async () => paths.every((p) => (target.hits.get(p) ?? 0) > 0));

  // The target of the down monitor comes back: the next passing check resolves the outage.
  const back: Server = createServer((_, res) => res.end('ok'));
  await new Promise<void>((r) => back.listen(downPort, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise((r) => back.close(r)));
  const resolved = await waitFor('the outage to resolve', async () => {
    const o = await (await api(`/v2/outages/${openBefore[0].uuid}`)).json();
    return o.isResolved ? o : null;
  });
  assert.equal(resolved.durationMs, Date.parse(resolved.endDate) - Date.parse(resolved.startDate));

  // SIGTERM: a clean exit with the WAL checkpointed, and everything back on the next start.
  proc.child.kill('SIGTERM');
  assert.equal(await proc.exited, 0);
  const wal = join(dataDir, 'pharos.db-wal');
  assert.ok(!existsSync(wal) || statSync(wal).size === 0, 'WAL checkpointed on SIGTERM');
  proc = await spawnPharos(env);
  const again: Array<{ uuid: string }> = await (await api('/v1/monitors')).json();
  assert.deepEqual(new Set(again.map((m) => m.uuid)), stored);
  target.hits.clear();
  await waitFor('every monitor to be checked after SIGTERM and start', async () => paths.every((p) => (target.hits.get(p) ?? 0) > 0));
  proc.child.kill('SIGTERM');
  assert.equal(await proc.exited, 0);
});
