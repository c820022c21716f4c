import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/pharos.ts';
import { prepareBinary, releaseBuild, serveSmoke, type BinaryUnderTest } from '../support/binary.ts';
import { freePort, waitFor } from '../support/process.ts';
import { httpTarget } from '../support/targets.ts';
import { Walker, samlKeys, startOidcProvider } from '../support/idp.ts';
import { startPostgres } from '../support/postgres.ts';

// The single executable for this machine (issue 6 smoke test, issue 20 addon folders): build.sh
// makes dist/pharos; a copy in an empty directory, with no node_modules and a PATH without node,
// serves the API, checks a local target and stops cleanly on SIGTERM. test/build/release.test.ts
// does the same for the arm64 binary of the release, under qemu.
const dir = tempDir('pharos-binary-');
const TOKEN = 'binary-smoke-token-0123456789';
let b: BinaryUnderTest;
let bin: string;
const bareEnv = (extra: Record<string, string> = {}) => b.env(extra);

before(async () => {
  b = prepareBinary(dir, await releaseBuild());
  bin = b.bin;
  chmodSync(dir, 0o755); // the tests run as a system user too (uid 65534)
});
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

test('pharos version prints the Pharos, Node and SQLite versions and the target without node or node_modules', () => {
  const out = execFileSync(bin, ['version'], { cwd: dir, env: bareEnv(), encoding: 'utf8' });
  assert.match(out, /^pharos \d+\.\d+\.\d+\nnode v24\.\d+\.\d+\nsqlite 3\.\d+\.\d+\ntarget linux-x64 \(single executable\)\n$/);
  assert.ok(existsSync(join(dir, 'home', '.cache', 'pharos')), 'without a data dir the SQLite addon is cached under ~/.cache/pharos');
});

test('a system user without a home runs pharos version: the addon goes to $TMPDIR/pharos-<uid>', () => {
  const tmp = join(dir, 'tmp-nobody');
  mkdirSync(tmp);
  chmodSync(tmp, 0o1777);
  const r = spawnSync(bin, ['version'], { cwd: tmp, uid: 65534, gid: 65534, env: { HOME: '/nonexistent', PATH: join(dir, 'bin'), TMPDIR: tmp }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^pharos .*\nsqlite 3\./s);
  assert.equal(readdirSync(join(tmp, 'pharos-65534')).filter((f) => /^better_sqlite3-[0-9a-f]{16}\.node$/.test(f)).length, 1);
});

test('no folder can hold the addon: one line naming the folders tried, exit 1; 30 runs, each exits by itself', { timeout: 120_000 }, () => {
  // 30 runs: with concurrent Maglev and TurboFan on the main thread (V8 flags, src/build/sea-config.ts)
  // a V8 worker was left waiting at exit in 4 of 30 runs of this command, and the process never ended.
  for (let i = 0; i < 30; i++) {
    const r = spawnSync(bin, ['token', 'list'], {
      cwd: dir,
      uid: 65534,
      gid: 65534,
      env: { HOME: '/nonexistent', PATH: join(dir, 'bin'), TMPDIR: '/proc', PHAROS_DATA_DIR: '/sys/pharos' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(r.signal, null, `run ${i + 1} did not end by itself (stopped at the test's bound)`);
    assert.equal(r.status, 1);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^pharos: cannot load the SQLite addon: tried \/sys\/pharos\/native \(not writable: .*\); \/nonexistent\/\.cache\/pharos \(not writable: .*\); \/proc\/pharos-65534 \(not writable: .*\); set PHAROS_DATA_DIR, XDG_CACHE_HOME or TMPDIR/);
  }
});

test('bad start-up input: one clear line and a non-zero exit', () => {
  writeFileSync(join(dir, 'bad.yaml'), 'listen: 127.0.0.1:0\nno_such_key: 1\n');
  try {
    execFileSync(bin, ['serve'], { cwd: dir, env: bareEnv({ PHAROS_CONFIG: join(dir, 'bad.yaml') }), encoding: 'utf8', stdio: 'pipe' });
    assert.fail('serve should exit non-zero');
  } catch (e) {
    const err = e as { status: number; stderr: string };
    assert.notEqual(err.status, 0);
    assert.match(err.stderr.trim(), /no_such_key: unknown config key/);
    assert.equal(err.stderr.trim().split('\n').length, 1);
  }
});

test('serve: the API answers, a local HTTP target is checked, a status page renders, SIGTERM exits 0 with the WAL checkpointed', { timeout: 60_000 }, async () => {
  await serveSmoke(b, dir);
});

test('install-service --root: the binary copies itself to /usr/local/bin/pharos and writes the unit; run again from there it keeps itself', () => {
  const root = join(dir, 'root');
  const first = execFileSync(bin, ['install-service', '--root', root], { cwd: dir, env: bareEnv(), encoding: 'utf8' });
  assert.match(first, new RegExp(`^copy ${bin} → /usr/local/bin/pharos$`, 'm'));
  const installed = join(root, 'usr/local/bin/pharos');
  assert.match(execFileSync(installed, ['version'], { cwd: dir, env: bareEnv(), encoding: 'utf8' }), /target linux-x64 \(single executable\)/);
  assert.match(readFileSync(join(root, 'etc/systemd/system/pharos.service'), 'utf8'), /^ExecStart=\/usr\/local\/bin\/pharos serve$/m);
  const again = execFileSync(installed, ['install-service', '--root', root], { cwd: dir, env: bareEnv(), encoding: 'utf8' });
  assert.match(again, /^\/usr\/local\/bin\/pharos is this binary: kept$/m);
});

test('agent: the same binary runs a remote probe that checks from its own source address; SIGTERM exits 0', { timeout: 60_000 }, async () => {
  const agentTarget = await httpTarget();
  const port = await freePort();
  const env = bareEnv({ PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_ADMIN_TOKEN: TOKEN, PHAROS_DATA_DIR: join(dir, 'agent-data') });
  const url = `http://127.0.0.1:${port}`;
  const server = spawn(bin, ['serve'], { cwd: dir, env, stdio: 'ignore' });
  const serverExited = new Promise<number | null>((r) => server.once('exit', (code) => r(code)));
  let agent: ReturnType<typeof spawn> | undefined;
  try {
    await waitFor('the binary to listen', async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok);
    const probeToken = execFileSync(bin, ['token', 'create', '--email', 'probes@example.com', '--scope', 'probe', '--region', 'paris'], { cwd: dir, env, encoding: 'utf8' }).trim();
    agent = spawn(bin, ['agent', '--server', url, '--region', 'paris', '--source-address', '127.0.0.2'], { cwd: dir, env: bareEnv({ PHAROS_AGENT_TOKEN: probeToken }), stdio: 'ignore' });
    const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
    await waitFor('the agent online', async () => {
      const probes = (await (await fetch(`${url}/v1/probes`, { headers })).json()) as Array<{ region: string; status: string }>;
      return probes.some((p) => p.region === 'paris' && p.status === 'online');
    });
    const created = await fetch(`${url}/v1/monitors`, { method: 'POST', headers, body: JSON.stringify({ name: 'from paris', url: agentTarget.url, check_frequency: 10, regions: ['paris'] }) });
    assert.equal(created.status, 201);
    await waitFor('a check from the agent’s address', async () => agentTarget.clients.has('127.0.0.2'), 20_000);
    assert.deepEqual([...agentTarget.clients], ['127.0.0.2'], 'only the agent checked it');
  } finally {
    const agentExited = agent && new Promise<number | null>((r) => agent!.once('exit', (code) => r(code)));
    agent?.kill('SIGTERM');
    assert.equal(await agentExited, 0);
    server.kill('SIGTERM');
    await serverExited;
    await agentTarget.stop();
  }
});

test('serve: a status page sign-in through OIDC (openid-client inside the bundle) against oidc-provider, and SAML metadata and AuthnRequest (node-saml inside the bundle)', { timeout: 60_000 }, async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const idp = await startOidcProvider([{ client_id: 'pharos', client_secret: 'binary-secret-0123456789', redirect_uris: [`${url}/sso/oidc/callback`] }]);
  idp.accounts = { alice: { email: 'alice@good.test', email_verified: true } };
  idp.signInAs = 'alice';
  const config = join(dir, 'sso.yaml');
  writeFileSync(config, `data_dir: ${join(dir, 'sso-data')}\nidentity_providers:\n  - name: google\n    type: oidc\n    issuer: ${idp.issuer}\n    client_id: pharos\n    client_secret: binary-secret-0123456789\n    allow_http: true\n`);
  const child = spawn(bin, ['serve'], { cwd: dir, env: bareEnv({ PHAROS_CONFIG: config, PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_PUBLIC_URL: url, PHAROS_ADMIN_TOKEN: TOKEN }), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    await waitFor('the binary to listen', async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok);
    const page = await fetch(`${url}/v2/statuspages`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Binary Intranet', subdomain: 'intra', authentication: { google_sso: true, google_allowed_domains: ['good.test'] } }) });
    assert.equal(page.status, 201);
    const w = new Walker();
    const done = await w.follow(`${url}/status/intra/sso/oidc`);
    assert.equal(done.res.status, 200, stderr);
    assert.match(await done.res.text(), /Binary Intranet/);
    // SAML inside the bundle too: a connection's SP metadata and an AuthnRequest redirect.
    const api = (path: string, body: unknown) => fetch(url + path, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const conn = await api('/v1/sso-connections', { name: 'IdP', entry_point: 'https://idp.example/sso', issuer: 'https://idp.example', idp_certificate: samlKeys().cert });
    assert.equal(conn.status, 201);
    const { uuid, metadata_url } = (await conn.json()) as { uuid: string; metadata_url: string };
    assert.match(await (await fetch(metadata_url)).text(), /AssertionConsumerService[^>]+\/acs"/);
    assert.equal((await api('/v2/statuspages', { name: 'SSO', subdomain: 'sso-bin', authentication: { saml_sso: true, sso_connection_uuid: uuid } })).status, 201);
    const start = await fetch(`${url}/status/sso-bin/sso/saml`, { redirect: 'manual' });
    const begin = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    assert.match(begin.headers.get('location') ?? '', /^https:\/\/idp\.example\/sso\?SAMLRequest=/);
  } finally {
    child.kill('SIGTERM');
    await idp.close();
  }
  assert.equal(await exited, 0, stderr);
});

test('serve on PostgreSQL: the driver\'s worker thread (SEA asset pg-worker.cjs) and the store host thread (store-host.cjs, with its own pg worker) run from inside the binary; storage copy too', { timeout: 90_000 }, async (t) => {
  const pg = await startPostgres();
  t.after(() => pg.cleanup());
  const target = await httpTarget();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(bin, ['serve'], { cwd: dir, env: bareEnv({ PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_ADMIN_TOKEN: TOKEN, PHAROS_DATABASE_URL: pg.url, PHAROS_DATA_DIR: join(dir, 'pg-data') }), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const api = (path: string, init: RequestInit = {}) => fetch(url + path, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' } });
  try {
    await waitFor('the binary to listen', async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, 30_000);
    // A write through the store host thread (a procedure), a read through it, then the checks' flush.
    assert.equal((await api('/v1/monitors', { method: 'POST', body: JSON.stringify({ name: 'on-pg', url: `${target.url}/health`, check_frequency: 10 }) })).status, 201);
    assert.match(await (await api('/v1/monitors')).text(), /"name":"on-pg"/);
    await waitFor('a check counted', async () => /pharos_checks_total\{protocol="http",result="up"\} [1-9]/.test(await (await api('/metrics')).text()), 20_000);
  } finally {
    child.kill('SIGTERM');
    await target.stop();
  }
  assert.equal(await exited, 0, stderr);
  assert.match(stderr, /store: postgres postgres:\/\/pharos:\*\*\*@127\.0\.0\.1/, 'the store is named, its password masked');
  assert.ok(!stderr.includes('s3cret'));
  const c = pg.admin('pharos');
  await c.connect();
  try {
    assert.equal((await c.query("SELECT name FROM monitors")).rows[0].name, 'on-pg', 'the monitor is in PostgreSQL');
    // Raw results live in one table per hour (migration 16); the hourly rollup counts what they hold.
    assert.ok(Number((await c.query('SELECT coalesce(sum(checks), 0) AS n FROM check_rollups_hourly')).rows[0].n) > 0, 'and its results');
    assert.ok((await c.query("SELECT tablename FROM pg_tables WHERE tablename LIKE 'check_results_h%'")).rows.length > 0, 'in an hourly results table');
    await c.query('CREATE DATABASE copied');
  } finally {
    await c.end();
  }
  // storage copy from the binary: the SQLite data dir of the earlier tests into an empty database.
  const copy = spawnSync(bin, ['storage', 'copy', '--from', `sqlite:${join(dir, 'pg-data')}`, '--to', pg.url.replace(/\/pharos$/, '/copied')], { cwd: dir, env: bareEnv(), encoding: 'utf8' });
  assert.equal(copy.status, 0, copy.stderr);
  assert.match(copy.stdout, /counts verified/);
});

/** Whether process `pid` has the checkpoint thread (Linux keeps 15 bytes of a thread's name). */
const hasCheckpointThread = (pid: number) => readdirSync(`/proc/${pid}/task`).some((t) => readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim() === 'pharos-checkpoi');

test('serve on SQLite: an idle binary holds no checkpoint thread (storage.checkpoint_thread auto, issue 38)', { timeout: 60_000 }, async () => {
  const port = await freePort();
  const child = spawn(bin, ['serve'], { cwd: dir, env: bareEnv({ PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_ADMIN_TOKEN: TOKEN, PHAROS_DATA_DIR: join(dir, 'idle-data') }), stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    await waitFor('the binary to listen', async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok, 30_000);
    assert.equal(hasCheckpointThread(child.pid!), false, 'idle, SQLite checkpointing rarely: no checkpoint thread');
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0);
});

test('serve on SQLite with checkpoint_thread always: WAL checkpoints run on the checkpoint worker thread from inside the binary (SEA asset checkpoint-worker.cjs), with the one addon file', { timeout: 60_000 }, async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const data = join(dir, 'ckpt-data');
  const config = join(dir, 'ckpt.yaml');
  writeFileSync(config, 'storage:\n  checkpoint_thread: always\n');
  const child = spawn(bin, ['serve'], { cwd: dir, env: bareEnv({ PHAROS_CONFIG: config, PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_ADMIN_TOKEN: TOKEN, PHAROS_DATA_DIR: data }), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const api = (path: string, init: RequestInit = {}) => fetch(url + path, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' } });
  const size = (f: string) => (existsSync(join(data, f)) ? statSync(join(data, f)).size : 0);
  try {
    await waitFor('the binary to listen', async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, 30_000);
    const pid = child.pid!;
    await waitFor('the checkpoint worker thread', async () => hasCheckpointThread(pid));
    // Pings write to the WAL; the main connection runs with wal_autocheckpoint = 0, so the database
    // file grows only by the worker's checkpoints (no warning line says it fell back).
    const created = await api('/v1/healthchecks', { method: 'POST', body: JSON.stringify({ name: 'job', period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' }) });
    assert.equal(created.status, 201);
    const uuid = ((await created.json()) as { healthcheck: { uuid: string } }).healthcheck.uuid;
    const before = size('pharos.db');
    await waitFor('the database file to grow by a checkpoint', async () => {
      await Promise.all(Array.from({ length: 200 }, async () => assert.equal((await fetch(`${url}/ping/${uuid}`)).status, 200)));
      return size('pharos.db') > before;
    });
    const addons = new Set(
      readFileSync(`/proc/${pid}/maps`, 'utf8')
        .split('\n')
        .map((l) => l.slice(l.indexOf('/')))
        .filter((p) => p.endsWith('.node')),
    );
    assert.deepEqual([...addons].map((p) => p.replace(/-[0-9a-f]{16}\.node$/, '.node')), [join(data, 'native', 'better_sqlite3.node')], 'one SQLite addon file, loaded by both threads');
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, stderr);
  assert.doesNotMatch(stderr, /WAL checkpoints/, 'the worker ran: no fallback');
  assert.equal(existsSync(join(data, 'pharos.db-wal')), false, 'the worker stopped and the main connection, closing last, checkpointed and removed the WAL');
});
