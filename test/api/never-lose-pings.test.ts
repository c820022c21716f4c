import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, testDatabaseUrl, type JsonResponse } from '../support/pharos.ts';
import { freePort, spawnPharos, type PharosProcess } from '../support/process.ts';

// Issue 21: a real `pharos serve` process takes pings while its WAL is checkpointed by the checkpoint
// worker thread (store/checkpointer.ts), and is killed with SIGKILL in the middle: on the next start
// every acknowledged ping is there (each healthcheck's ping numbers reach its acknowledged count).
const TOKEN = 'never-lose-pings-token-0123456789';
const dataDir = tempDir();
const cleanups: Array<() => unknown> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(dataDir, { recursive: true, force: true });
});

test('SIGKILL under pings while the worker checkpoints the WAL: every acknowledged ping is stored after restart', { timeout: 180_000 }, async () => {
  const port = await freePort();
  const databaseUrl = await testDatabaseUrl(dataDir);
  // The checkpoint thread from the start (by default it waits for SQLite's own checkpoints to come often, issue 38).
  const config = join(dataDir, 'config.yaml');
  writeFileSync(config, 'storage:\n  checkpoint_thread: always\n');
  const env = { PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_DATA_DIR: dataDir, PHAROS_ADMIN_TOKEN: TOKEN, PHAROS_DATABASE_URL: databaseUrl ?? '', PHAROS_CONFIG: config };
  let proc: PharosProcess = await spawnPharos(env);
  cleanups.push(() => proc.child.kill('SIGKILL'));
  const api = (path: string, init: RequestInit = {}) =>
    fetch(proc.url + path, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', ...init.headers } }) as Promise<JsonResponse>;

  const uuids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const res = await api('/v1/healthchecks', { method: 'POST', body: JSON.stringify({ name: `job ${i}`, period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' }) });
    assert.equal(res.status, 201);
    uuids.push((await res.json()).healthcheck.uuid);
  }

  // On SQLite the kill waits until the database file has grown by checkpoints (the main connection
  // never checkpoints while the worker runs) and pings keep coming, so it lands among them.
  const dbFile = join(dataDir, 'pharos.db');
  const size = () => (existsSync(dbFile) ? statSync(dbFile).size : 0);
  const start = size();
  const acked = new Map<string, number>(uuids.map((u) => [u, 0]));
  let total = 0;
  let killed = false;
  await Promise.all(
    Array.from({ length: 16 }, async (_, w) => {
      for (let i = w; !killed; i += 16) {
        const uuid = uuids[i % uuids.length]!;
        try {
          const res = await fetch(`${proc.url}/ping/${uuid}`);
          if (res.status === 200) {
            acked.set(uuid, acked.get(uuid)! + 1);
            total++;
          }
        } catch {
          return; // the connection died with the process
        }
        if (!killed && total >= 2000 && (databaseUrl || size() > start)) {
          killed = true;
          proc.child.kill('SIGKILL');
        }
      }
    }),
  );
  assert.equal(await proc.exited, 'SIGKILL');
  assert.ok(total >= 2000);

  proc = await spawnPharos(env);
  for (const uuid of uuids) {
    const pings: Array<{ n: number }> = (await (await api(`/v1/healthchecks/${uuid}/pings`)).json()).pings;
    const stored = Math.max(0, ...pings.map((p) => p.n));
    assert.ok(stored >= acked.get(uuid)!, `healthcheck ${uuid}: ${acked.get(uuid)} pings acknowledged, ${stored} stored`);
  }
  proc.child.kill('SIGTERM');
  assert.equal(await proc.exited, 0);
});
