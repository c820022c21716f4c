import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/pharos.ts';
import { freePort, spawnPharos } from '../support/process.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Runs `pharos <args>` from source with `stdin` piped in. */
function pharos(args: string[], env: Record<string, string>, stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

const login = (url: string, email: string, password: string) =>
  fetch(`${url}/login`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url }, body: new URLSearchParams({ email, password }) });

test('first start logs a one-time setup link; pharos user create / reset-password', { timeout: 90_000 }, async () => {
  const dataDir = tempDir();
  const env = { PHAROS_DATA_DIR: dataDir, PHAROS_LISTEN: `127.0.0.1:${await freePort()}`, PHAROS_PUBLIC_URL: 'https://pharos.example.com', PHAROS_ADMIN_TOKEN: '' };
  const proc = await spawnPharos(env);
  try {
    const link = /open (https:\/\/pharos\.example\.com\/setup\/[0-9A-Za-z]{32})\b[^\n]* to create the first admin/.exec(proc.stderr())?.[1];
    assert.ok(link, `the log names the setup link: ${proc.stderr()}`);
    const setup = await fetch(proc.url + new URL(link).pathname);
    assert.equal(setup.status, 200);

    const bad = await pharos(['user', 'create', '--email', 'v@example.com', '--role', 'king'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--role: must be one of admin, editor, viewer/);
    const created = await pharos(['user', 'create', '--email', 'V@Example.com', '--role', 'viewer', '--password-stdin'], env, 'a viewer password\n');
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, 'created v@example.com\n');
    // Somebody can sign in now: the setup link is no longer offered.
    assert.equal((await fetch(proc.url + new URL(link).pathname)).status, 403);
    const r = await login(proc.url, 'v@example.com', 'a viewer password');
    assert.equal(r.status, 303);
    const cookie = r.headers.getSetCookie()[0]!.split(';')[0]!;
    assert.equal((await fetch(`${proc.url}/outages`, { headers: { cookie }, redirect: 'manual' })).status, 200);

    const reset = await pharos(['user', 'reset-password', '--email', 'v@example.com'], env);
    assert.equal(reset.code, 0, reset.stderr);
    const generated = reset.stdout.trim();
    assert.match(generated, /^[A-Za-z0-9_-]{20}$/, 'prints the generated password once');
    assert.equal((await fetch(`${proc.url}/outages`, { headers: { cookie }, redirect: 'manual' })).status, 303, 'the old session ended');
    assert.equal((await login(proc.url, 'v@example.com', 'a viewer password')).status, 401);
    assert.equal((await login(proc.url, 'v@example.com', generated)).status, 303);
    const totpOff = await pharos(['user', 'disable-totp', '--email', 'v@example.com'], env);
    assert.equal(totpOff.code, 0, totpOff.stderr);
    assert.equal(totpOff.stdout, 'two-factor sign-in off for v@example.com\n');
    const unknown = await pharos(['user', 'reset-password', '--email', 'nobody@example.com'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no user with email nobody@example.com/);
  } finally {
    proc.child.kill('SIGTERM');
    await proc.exited;
  }
});
