import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/pharos.ts';
import { freePort, waitFor } from '../support/process.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';
import { Walker, samlKeys, startOidcProvider } from '../support/idp.ts';

// The single executable (issue 6 smoke test): build.sh makes dist/pharos; a copy in an empty
// directory, with no node_modules and a PATH without node, serves the API, checks a local target and
// stops cleanly on SIGTERM.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = tempDir('pharos-binary-');
const bin = join(dir, 'pharos');
const TOKEN = 'binary-smoke-token-0123456789';
let target: HttpTarget;

/** An environment with only HOME and a PATH holding `ping` (no node anywhere). */
function bareEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: join(dir, 'home'), PATH: join(dir, 'bin'), ...extra };
}

before(() => {
  execFileSync('bash', [join(ROOT, 'build.sh')], { cwd: ROOT, stdio: 'ignore' });
  copyFileSync(join(ROOT, 'dist/pharos'), bin);
  mkdirSync(join(dir, 'home'));
  mkdirSync(join(dir, 'bin'));
  const ping = execFileSync('sh', ['-c', 'command -v ping'], { encoding: 'utf8' }).trim();
  symlinkSync(ping, join(dir, 'bin', 'ping'));
});
after(async () => {
  await target?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('pharos version prints the Pharos, Node and SQLite versions without node or node_modules', () => {
  const out = execFileSync(bin, ['version'], { cwd: dir, env: bareEnv(), encoding: 'utf8' });
  assert.match(out, /^pharos \d+\.\d+\.\d+\nnode v24\.\d+\.\d+\nsqlite 3\.\d+\.\d+\n$/);
  assert.ok(existsSync(join(dir, 'home', '.cache', 'pharos')), 'the SQLite addon is cached under ~/.cache/pharos');
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
  target = await httpTarget();
  const port = await freePort();
  const child = spawn(bin, ['serve'], { cwd: dir, env: bareEnv({ PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_ADMIN_TOKEN: TOKEN }), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = `http://127.0.0.1:${port}`;
  const api = (path: string, init: RequestInit = {}) => fetch(url + path, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' } });
  try {
    await waitFor('the binary to listen', async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok);
    const created = await api('/v1/monitors', { method: 'POST', body: JSON.stringify({ name: 'local', url: `${target.url}/health`, check_frequency: 10 }) });
    assert.equal(created.status, 201);
    await waitFor('a check of the local target', async () => target.hits > 0, 20_000);
    await waitFor('the check to be counted', async () => /pharos_checks_total\{protocol="http",result="up"\} [1-9]/.test(await (await api('/metrics')).text()), 20_000);
    assert.equal((await (await fetch(`${url}/docs/assets/swagger-ui.css`)).text()).length > 1000, true, '/docs assets are served from inside the binary');
    const monitor = (await created.json()) as { uuid: string };
    const page = await api('/v2/statuspages', { method: 'POST', body: JSON.stringify({ name: 'Binary Status', subdomain: 'bin', font: 'Roboto', sections: [{ name: 'Site', services: [{ monitor_uuid: monitor.uuid }] }] }) });
    assert.equal(page.status, 201);
    // Results are group-committed (every 100 ms): the page shows "no data yet" until the first is stored.
    let html = '';
    await waitFor('the page to show the checked service', async () => /data-status="operational"/.test((html = await (await fetch(`${url}/status/bin`)).text())), 10_000);
    assert.match(html, /Binary Status[\s\S]*data-service="local"[\s\S]*data-status="operational"/, 'the status page renders with its service');
    assert.match(html, /class="bar l-ok"/);
    const font = await fetch(`${url}/_pharos/fonts/roboto-latin-400-normal.woff2`);
    assert.equal(font.status, 200);
    assert.equal(Buffer.from(await font.arrayBuffer()).subarray(0, 4).toString('latin1'), 'wOF2', 'fonts are served from inside the binary');
    // Single sign-on libraries work inside the bundle: a SAML connection's SP metadata and an AuthnRequest.
    const conn = await api('/v1/sso-connections', { method: 'POST', body: JSON.stringify({ name: 'IdP', entry_point: 'https://idp.example/sso', issuer: 'https://idp.example', idp_certificate: samlKeys().cert }) });
    assert.equal(conn.status, 201);
    const { uuid, metadata_url } = (await conn.json()) as { uuid: string; metadata_url: string };
    assert.match(await (await fetch(metadata_url.replace('http://localhost:8080', url))).text(), /AssertionConsumerService[^>]+\/acs"/);
    assert.equal((await api('/v2/statuspages', { method: 'POST', body: JSON.stringify({ name: 'SSO', subdomain: 'sso-bin', authentication: { saml_sso: true, sso_connection_uuid: uuid } }) })).status, 201);
    const start = await fetch(`${url}/status/sso-bin/sso/saml`, { redirect: 'manual' });
    const begin = await fetch(start.headers.get('location')!.replace('http://localhost:8080', url), { redirect: 'manual' });
    assert.match(begin.headers.get('location') ?? '', /^https:\/\/idp\.example\/sso\?SAMLRequest=/);
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, stderr);
  const wal = join(dir, 'data', 'pharos.db-wal');
  assert.ok(!existsSync(wal) || statSync(wal).size === 0, 'the WAL was checkpointed');
  assert.ok(statSync(join(dir, 'data', 'pharos.db')).size > 0);
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
    const probeToken = execFileSync(bin, ['token', 'create', '--email', 'probes@example.com', '--scope', 'probe'], { cwd: dir, env, encoding: 'utf8' }).trim();
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

test('serve: a status page sign-in through OIDC (openid-client inside the bundle) against oidc-provider', { timeout: 60_000 }, async () => {
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
  } finally {
    child.kill('SIGTERM');
    await idp.close();
  }
  assert.equal(await exited, 0, stderr);
});
