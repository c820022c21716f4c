import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import { tempDir } from '../support/pharos.ts';
import { freePort, spawnPharos } from '../support/process.ts';

// Issue #20: the CLI from source: help for every command, unknown commands, version, maintenance
// commands without the runtime secrets, install-service/uninstall-service without systemd (--root,
// --dry-run; the unit checked by systemd-analyze verify), public_url following listen.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const dir = tempDir('pharos-cli-');
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `pharos <args>` from source; resolves with stdout/stderr and the exit code. */
async function pharos(args: string[], env: Record<string, string | undefined> = {}) {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd: ROOT, env: { ...process.env, PHAROS_CONFIG: undefined, ...env } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

test('pharos --help lists every command; pharos <command> --help prints its usage; unknown commands say so', async () => {
  const help = await pharos(['--help']);
  assert.equal(help.code, 0);
  const names = [...help.stdout.matchAll(/^ {2}([a-z-]+) {2,}\S/gm)].map((m) => m[1]!);
  assert.deepEqual(names, ['agent', 'alert', 'backup', 'healthcheck', 'import', 'install-service', 'restore', 'serve', 'storage', 'token', 'uninstall-service', 'user', 'version']);
  for (const name of names) {
    const r = await pharos([name, '--help']);
    assert.equal(r.code, 0, `${name} --help: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^Usage: pharos ${name}\\b`), name);
  }
  assert.match((await pharos(['help', 'backup'])).stdout, /^Usage: pharos backup /, 'pharos help <command> is the same');
  const unknown = await pharos(['frobnicate']);
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stderr, "pharos: unknown command 'frobnicate' (pharos --help lists the commands)\n");
  const none = await pharos([]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /^Usage: pharos <command>/);
  const badOption = await pharos(['token', 'list', '--frob']);
  assert.equal(badOption.code, 1);
  assert.match(badOption.stderr, /^pharos: Unknown option '--frob'/);
});

test('pharos healthcheck (the container image\'s HEALTHCHECK): exit 0 on a 2xx /healthz at the listen address (0.0.0.0 asked on 127.0.0.1), 1 when nothing answers', { timeout: 60_000 }, async () => {
  const port = await freePort();
  const down = await pharos(['healthcheck'], { PHAROS_LISTEN: `0.0.0.0:${port}` });
  assert.equal(down.code, 1);
  assert.match(down.stdout, new RegExp(`^http://127\\.0\\.0\\.1:${port}/healthz: no answer: `));
  // A stand-in /healthz (test/build/image.test.ts runs it against a real server in the container).
  const server = createServer((req, res) => res.writeHead(req.url === '/healthz' ? 200 : 404, { 'Content-Type': 'application/json' }).end('{"status":"ok"}'));
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  try {
    const up = await pharos(['healthcheck'], { PHAROS_LISTEN: `0.0.0.0:${port}` });
    assert.equal(up.code, 0, up.stdout);
    assert.match(up.stdout, new RegExp(`^http://127\\.0\\.0\\.1:${port}/healthz: 200 \\{"status":"ok"\\}`));
    const wrong = await pharos(['healthcheck', '--url', `http://127.0.0.1:${port}/nope`]);
    assert.equal(wrong.code, 1, 'a non-2xx answer is unhealthy');
  } finally {
    server.close();
  }
});

test('pharos version prints the Pharos, Node and SQLite versions and the target', async () => {
  const r = await pharos(['version'], { PHAROS_DATA_DIR: join(dir, 'never-created') });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^pharos \d+\.\d+\.\d+\nnode v24\.\d+\.\d+\nsqlite 3\.\d+\.\d+\ntarget linux-(x64|arm64) \(from source\)\n$/);
  assert.ok(!existsSync(join(dir, 'never-created')), 'version needs no data dir');
});

test('maintenance commands run without the secrets config.yaml references; serve still refuses to start without them', { timeout: 60_000 }, async () => {
  const config = join(dir, 'secrets.yaml');
  writeFileSync(
    config,
    `channels:
  - { name: ops-slack, type: slack, url: "\${PHAROS_TEST_UNSET_SLACK_URL}" }
escalation_policies:
  - { uuid: ep_ops, name: ops, steps: [{ after_minutes: 0, channels: [ops-slack] }] }
`,
  );
  const env = { PHAROS_CONFIG: config, PHAROS_DATA_DIR: join(dir, 'maint-data') };
  const created = await pharos(['token', 'create', '--email', 'ops@example.com', '--scope', 'read'], env);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /^phr_\w+\n$/);
  const list = await pharos(['token', 'list'], env);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /\tread\tops@example\.com\t/);
  const backup = await pharos(['backup', join(dir, 'maint.db')], env);
  assert.equal(backup.code, 0, backup.stderr);
  assert.ok(existsSync(join(dir, 'maint.db')));
  const serve = await pharos(['serve'], { ...env, PHAROS_LISTEN: '127.0.0.1:0' });
  assert.equal(serve.code, 1);
  assert.equal(serve.stderr, 'pharos: config: channels[0].url: environment variable PHAROS_TEST_UNSET_SLACK_URL is not set\n');
});

test('install-service --root DIR writes the unit (dedicated user, CAP_NET_RAW, StateDirectory, hardening) and config; runs no command', async () => {
  const root = join(dir, 'root');
  const r = await pharos(['install-service', '--root', root, '--binary', '/opt/pharos/pharos']);
  assert.equal(r.code, 0, r.stderr);
  const unit = readFileSync(join(root, 'etc/systemd/system/pharos.service'), 'utf8');
  const service = Object.fromEntries(
    unit
      .slice(unit.indexOf('[Service]'), unit.indexOf('[Install]'))
      .split('\n')
      .filter((l) => /^\w+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  assert.equal(service.User, 'pharos');
  assert.equal(service.Group, 'pharos');
  assert.equal(service.ExecStart, '/opt/pharos/pharos serve');
  assert.equal(service.AmbientCapabilities, 'CAP_NET_RAW');
  assert.equal(service.CapabilityBoundingSet, 'CAP_NET_RAW');
  assert.equal(service.StateDirectory, 'pharos');
  assert.equal(service.StateDirectoryMode, '0700');
  assert.equal(service.KillSignal, 'SIGTERM');
  for (const key of ['NoNewPrivileges', 'ProtectHome', 'PrivateTmp', 'PrivateDevices', 'RestrictSUIDSGID', 'LockPersonality']) assert.equal(service[key], 'yes', key);
  assert.equal(service.ProtectSystem, 'strict');
  assert.ok(!('MemoryDenyWriteExecute' in service), 'V8 needs writable+executable memory for its JIT');
  assert.match(unit, /^Environment=PHAROS_CONFIG=\/etc\/pharos\/config\.yaml$/m);
  assert.match(unit, /^Environment=PHAROS_DATA_DIR=\/var\/lib\/pharos$/m);
  assert.match(unit, /^EnvironmentFile=-\/etc\/pharos\/secrets\.env$/m);
  assert.match(unit, /^\[Install\]\nWantedBy=multi-user\.target$/m);
  assert.equal(readFileSync(join(root, 'etc/pharos/config.yaml'), 'utf8').includes('listen: "0.0.0.0:8080"'), true);
  for (const cmd of ['useradd --system', 'systemctl daemon-reload', 'systemctl enable pharos.service', 'systemctl restart pharos.service']) {
    assert.match(r.stdout, new RegExp(`^skipped \\(--root\\): ${cmd}`, 'm'), cmd);
  }
  assert.equal((await pharos(['install-service', '--print-unit', '--binary', '/opt/pharos/pharos'])).stdout, unit, '--print-unit prints the same unit');

  // systemd's own parser knows every directive (an unknown key is reported as "Unknown key … ignoring").
  const verifyUnit = join(dir, 'verify', 'pharos.service');
  mkdirSync(join(dir, 'verify'));
  writeFileSync(verifyUnit, unit.replace('ExecStart=/opt/pharos/pharos serve', `ExecStart=${process.execPath} serve`));
  const verify = spawnSync('systemd-analyze', ['verify', verifyUnit], { encoding: 'utf8' });
  assert.equal(verify.error, undefined, 'systemd-analyze is installed (Debian systemd; .ci/run installs it)');
  assert.equal(verify.status, 0, verify.stderr);
  assert.equal(verify.stderr.trim(), '', verify.stderr);
});

test('install-service keeps an edited config; uninstall-service removes the unit and keeps config and data; --dry-run changes nothing', async () => {
  const root = join(dir, 'root2');
  assert.equal((await pharos(['install-service', '--root', root])).code, 0);
  writeFileSync(join(root, 'etc/pharos/config.yaml'), 'listen: "127.0.0.1:9999"\n');
  mkdirSync(join(root, 'var/lib/pharos'), { recursive: true });
  writeFileSync(join(root, 'var/lib/pharos/pharos.db'), 'data');
  const again = await pharos(['install-service', '--root', root]);
  assert.match(again.stdout, /^\/etc\/pharos\/config\.yaml exists: kept$/m);
  assert.match(again.stdout, /Pharos answers at http:\/\/127\.0\.0\.1:9999/, 'the printed URL comes from the config (public_url follows listen)');
  assert.equal(readFileSync(join(root, 'etc/pharos/config.yaml'), 'utf8'), 'listen: "127.0.0.1:9999"\n');

  const dry = await pharos(['uninstall-service', '--root', root, '--dry-run']);
  assert.equal(dry.code, 0);
  assert.match(dry.stdout, /^would remove \/etc\/systemd\/system\/pharos\.service$/m);
  assert.ok(existsSync(join(root, 'etc/systemd/system/pharos.service')), '--dry-run removed nothing');

  const un = await pharos(['uninstall-service', '--root', root]);
  assert.equal(un.code, 0, un.stderr);
  assert.match(un.stdout, /^skipped \(--root\): systemctl disable --now pharos\.service$/m);
  assert.ok(!existsSync(join(root, 'etc/systemd/system/pharos.service')), 'the unit is gone');
  assert.equal(readFileSync(join(root, 'var/lib/pharos/pharos.db'), 'utf8'), 'data', 'the data stays');
  assert.ok(existsSync(join(root, 'etc/pharos/config.yaml')), 'the config stays');
  assert.match(un.stdout, /^kept: \/var\/lib\/pharos \(data\)/m);

  const root3 = join(dir, 'root3');
  const dryInstall = await pharos(['install-service', '--root', root3, '--dry-run']);
  assert.equal(dryInstall.code, 0);
  assert.match(dryInstall.stdout, /^would write \/etc\/systemd\/system\/pharos\.service \(mode 644\)$/m);
  assert.ok(!existsSync(root3), '--dry-run wrote nothing');
});

test('install-service for real needs root: a normal user is told so in one line', async () => {
  const home = join(dir, 'nobody');
  mkdirSync(home);
  chmodSync(dir, 0o755);
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'install-service'], { cwd: ROOT, uid: 65534, gid: 65534, env: { PATH: process.env.PATH, HOME: home }, encoding: 'utf8' });
  assert.equal(r.status, 1, r.stderr);
  assert.equal(r.stderr, 'pharos: install-service: run it as root (sudo pharos install-service), or use --root DIR / --dry-run\n');
});

test('public_url follows listen: the ping URL the API gives names the listen address and works', { timeout: 60_000 }, async () => {
  const port = await freePort();
  const token = 'public-url-token-0123456789';
  const proc = await spawnPharos({ PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_DATA_DIR: join(dir, 'url-data'), PHAROS_ADMIN_TOKEN: token, PHAROS_PUBLIC_URL: '' });
  try {
    const res = await fetch(`${proc.url}/v1/healthchecks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'nightly', period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' }),
    });
    assert.equal(res.status, 201);
    const { healthcheck } = (await res.json()) as { healthcheck: { uuid: string; pingUrl: string } };
    assert.equal(healthcheck.pingUrl, `http://127.0.0.1:${port}/ping/${healthcheck.uuid}`);
    assert.equal((await fetch(healthcheck.pingUrl)).status, 200);
  } finally {
    proc.child.kill('SIGTERM');
    await proc.exited;
  }
});
