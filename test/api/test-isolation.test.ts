import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestPharos, tempDir, WRITE_TOKEN } from '../support/pharos.ts';
import { freePort, spawnPharos } from '../support/process.ts';

// Issue #14 point 23: test servers run with an isolated config and environment. This file plays the
// developer whose shell exports PHAROS_* variables and whose working directory holds a config.yaml
// (as a checkout may): neither may change a server a test starts, in-process or as a child process.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOSTILE_TOKEN = 'hostile-token-0123456789abcdef';
const hostileDir = tempDir('pharos-hostile-');
const saved = { cwd: process.cwd(), env: { ...process.env } };

before(() => {
  const config = join(hostileDir, 'config.yaml');
  writeFileSync(config, ['public_url: "http://hostile-file.example"', 'probe:', '  region: tokyo', `admin_token: "${HOSTILE_TOKEN}"`, `data_dir: "${join(hostileDir, 'data')}"`, ''].join('\n'));
  process.chdir(hostileDir);
  Object.assign(process.env, { PHAROS_CONFIG: config, PHAROS_PUBLIC_URL: 'http://hostile-env.example', PHAROS_ADMIN_TOKEN: HOSTILE_TOKEN, PHAROS_LISTEN: '127.0.0.1:1' });
});
after(() => {
  process.chdir(saved.cwd);
  for (const k of Object.keys(process.env)) if (k.startsWith('PHAROS_') && !(k in saved.env)) delete process.env[k];
  Object.assign(process.env, saved.env);
  rmSync(hostileDir, { recursive: true, force: true });
});

/** What a server's defaults look like from outside: its ping URL base and a new monitor's regions. */
async function observe(url: string, token: string) {
  const call = (path: string, json: unknown) =>
    fetch(url + path, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(json) });
  const hc = await call('/v1/healthchecks', { name: 'n', period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' });
  assert.equal(hc.status, 201, await hc.clone().text());
  const m = await call('/v1/monitors', { name: 'm', url: 'http://127.0.0.1:9/' });
  const hostile = await fetch(`${url}/v1/monitors`, { headers: { Authorization: `Bearer ${HOSTILE_TOKEN}` } });
  const hcBody = (await hc.json()) as { healthcheck: { pingUrl: string } };
  const mBody = (await m.json()) as { regions: string[] };
  return { pingUrl: hcBody.healthcheck.pingUrl, regions: mBody.regions, hostileToken: hostile.status };
}

describe('a config.yaml in the working directory and PHAROS_* in the environment do not reach test servers', () => {
  test('startTestPharos (in-process)', async () => {
    const p = await startTestPharos();
    try {
      assert.match(p.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(p.port, 1);
      const seen = await observe(p.url, WRITE_TOKEN);
      assert.match(seen.pingUrl, /^http:\/\/localhost:8080\/ping\//);
      assert.deepEqual(seen.regions, ['london']);
      assert.equal(seen.hostileToken, 401);
      assert.ok(!existsSync(join(hostileDir, 'data')), 'nothing written where the hostile config points');
    } finally {
      await p.cleanup();
    }
  });

  test('spawnPharos (a `pharos serve` child process), from a working directory of its own', { timeout: 60_000 }, async () => {
    const dataDir = tempDir();
    const proc = await spawnPharos({ PHAROS_LISTEN: `127.0.0.1:${await freePort()}`, PHAROS_DATA_DIR: dataDir, PHAROS_ADMIN_TOKEN: WRITE_TOKEN });
    try {
      const cwd = readlinkSync(`/proc/${proc.child.pid}/cwd`);
      assert.notEqual(cwd, hostileDir);
      assert.notEqual(cwd.replace(/\/$/, ''), ROOT.replace(/\/$/, ''), 'not the checkout, where a config.yaml may lie');
      assert.ok(!existsSync(join(cwd, 'config.yaml')));
      const seen = await observe(proc.url, WRITE_TOKEN);
      // public_url follows listen when config.yaml does not set it (the hostile one does).
      assert.ok(seen.pingUrl.startsWith(`${proc.url}/ping/`), seen.pingUrl);
      assert.deepEqual(seen.regions, ['london']);
      assert.equal(seen.hostileToken, 401);
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
