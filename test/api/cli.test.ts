import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { tempDir } from '../support/pharos.ts';
import { freePort, isolatedCwd, isolatedEnv, PHAROS_FROM_SOURCE, spawnPharos } from '../support/process.ts';

const run = promisify(execFile);
/** Runs `pharos <args>` from source (isolated: no config.yaml, no PHAROS_* but `env`); resolves with stdout/stderr and the exit code. */
async function pharos(args: string[], env: Record<string, string>) {
  try {
    const r = await run(process.execPath, [...PHAROS_FROM_SOURCE, ...args], { cwd: isolatedCwd(), env: isolatedEnv(env) });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

test('first start prints one admin token; token create/list/revoke; backup; version', { timeout: 60_000 }, async () => {
  const dataDir = tempDir();
  const env = { PHAROS_DATA_DIR: dataDir, PHAROS_LISTEN: `127.0.0.1:${await freePort()}`, PHAROS_ADMIN_TOKEN: '' };
  const proc = await spawnPharos(env);
  const api = (token: string, method = 'GET') => fetch(`${proc.url}/v1/monitors`, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: method === 'POST' ? '{"name":"x","url":"http://127.0.0.1:9/"}' : undefined });
  const admin = /^(phr_[0-9A-Za-z]{43})$/m.exec(proc.stdout())?.[1];
  assert.ok(admin, `first start printed a token: ${proc.stdout()}`);
  assert.equal((await api(admin)).status, 200);

  const created = await pharos(['token', 'create', '--email', 'Ops@Example.com', '--name', 'Ops', '--scope', 'read'], env);
  assert.equal(created.code, 0, created.stderr);
  const readToken = created.stdout.trim();
  assert.match(readToken, /^phr_[0-9A-Za-z]{43}$/, 'prints only the token');
  assert.equal((await api(readToken)).status, 200);
  assert.equal((await api(readToken, 'POST')).status, 403);

  const list = await pharos(['token', 'list'], env);
  assert.equal(list.code, 0);
  assert.ok(!list.stdout.includes(readToken) && !list.stdout.includes(admin), 'secrets are never listed');
  const line = list.stdout.split('\n').find((l) => l.includes('ops@example.com'))!;
  const id = line.split('\t')[0]!;
  assert.match(id, /^key_/);
  // Stored only as a SHA-256 hash.
  const db = new Database(join(dataDir, 'pharos.db'), { readonly: true });
  const rows = db.prepare('SELECT token_hash FROM api_tokens').all() as Array<{ token_hash: Buffer }>;
  db.close();
  assert.ok(rows.every((r) => r.token_hash.length === 32 && !r.token_hash.toString('latin1').includes('phr_')));

  assert.equal((await pharos(['token', 'revoke', id], env)).code, 0);
  assert.equal((await api(readToken)).status, 401, 'a revoked token is refused at once');
  const again = await pharos(['token', 'revoke', id], env);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /no active token/);

  const backup = join(tempDir(), 'backup.db');
  const b = await pharos(['backup', backup], env);
  assert.equal(b.code, 0, b.stderr);
  assert.ok(existsSync(backup));
  const copy = new Database(backup, { readonly: true });
  assert.equal((copy.prepare('SELECT count(*) AS n FROM api_tokens').get() as { n: number }).n, 2);
  copy.close();

  const v = await pharos(['version'], env);
  assert.match(v.stdout, /^pharos \d+\.\d+\.\d+\nnode v24\.\d+\.\d+\nsqlite 3\.\d+/);

  proc.child.kill('SIGTERM');
  assert.equal(await proc.exited, 0);
  const restarted = await spawnPharos(env);
  assert.doesNotMatch(restarted.stdout(), /phr_/, 'the token is printed only on the first start');
  restarted.child.kill('SIGTERM');
  await restarted.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

test('bad start-up input: one clear line and a non-zero exit', { timeout: 60_000 }, async () => {
  const dataDir = tempDir();
  const cfg = join(dataDir, 'c.yaml');
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PHAROS_CONFIG: join(dataDir, 'missing.yaml') }, /^pharos: config: cannot read/],
    [{ PHAROS_LISTEN: 'nonsense' }, /^pharos: config: listen: must be host:port/],
  ];
  for (const [env, expected] of cases) {
    const r = await pharos(['serve'], { PHAROS_DATA_DIR: dataDir, ...env });
    assert.equal(r.code, 1);
    assert.match(r.stderr, expected);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
  writeFileSync(cfg, 'probe:\n  regoin: london\n');
  const r = await pharos(['serve'], { PHAROS_DATA_DIR: dataDir, PHAROS_CONFIG: cfg });
  assert.match(r.stderr, /^pharos: config: probe\.regoin: unknown config key/);
  const { createServer } = await import('node:net');
  const busy = createServer();
  await new Promise<void>((res) => busy.listen(0, '127.0.0.1', () => res()));
  const inUse = await pharos(['serve'], { PHAROS_DATA_DIR: dataDir, PHAROS_LISTEN: `127.0.0.1:${(busy.address() as { port: number }).port}` });
  busy.close();
  assert.equal(inUse.code, 1);
  const db = new Database(join(dataDir, 'pharos.db'), { readonly: true });
  assert.equal((db.prepare('SELECT count(*) AS n FROM api_tokens').get() as { n: number }).n, 0, 'no unseen token was made by the failed start');
  db.close();
  // The first start on this data dir created the database and logged so (a JSON log line); the
  // failure itself is one human line, the last.
  const human = inUse.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('{'));
  assert.equal(human.length, 1, inUse.stderr);
  assert.match(human[0]!, /^pharos: cannot listen on 127\.0\.0\.1:\d+: address already in use$/);
  assert.ok(inUse.stderr.endsWith(`${human[0]}\n`), inUse.stderr);
  rmSync(dataDir, { recursive: true, force: true });
});

test('pharos agent refuses missing or bad flags with one clear line', { timeout: 60_000 }, async () => {
  const cases: Array<[string[], Record<string, string>, RegExp]> = [
    [['agent', '--region', 'paris', '--token', 'phr_x'], {}, /^pharos: --server: must be the main's URL/],
    [['agent', '--server', 'http://127.0.0.1:9', '--region', 'paris'], { PHAROS_AGENT_TOKEN: '' }, /^pharos: --token \(or PHAROS_AGENT_TOKEN\)/],
    [['agent', '--server', 'http://127.0.0.1:9', '--region', 'mars', '--token', 'phr_x'], {}, /^pharos: --region: must be one of sanfrancisco, nyc, london/],
    [['agent', '--server', 'http://127.0.0.1:9', '--region', 'paris', '--token', 'phr_x', '--buffer', '5'], {}, /^pharos: --buffer: must be a whole number of results, at least 100/],
  ];
  for (const [args, env, expected] of cases) {
    const r = await pharos(args, env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, expected);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});
