import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/pharos.ts';
import { freePort, spawnPharos, waitFor } from '../support/process.ts';

// SIGHUP to a real `pharos serve` (issue #14 point 17: one log line per config reload).
test('SIGHUP re-reads the config: log_level applies at once, other changes are named for the next restart, a broken file is refused', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const file = join(dir, 'config.yaml');
  const secret = 'https://hooks.example.com/very-secret-path';
  const write = (text: string) => writeFileSync(file, text);
  write('log_level: info\n');
  const proc = await spawnPharos({ PHAROS_CONFIG: file, PHAROS_DATA_DIR: join(dir, 'data'), PHAROS_LISTEN: `127.0.0.1:${await freePort()}`, PHAROS_ADMIN_TOKEN: 'phr_' + 'r'.repeat(43) });
  try {
    const lines = () => proc.stderr().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { level: string; msg: string; applied?: string[]; restart_needed?: string[] });
    const reloads = () => lines().filter((l) => /^config reload/.test(l.msg));
    const hup = async (n: number) => {
      proc.child.kill('SIGHUP');
      return waitFor(`reload line ${n}`, async () => reloads()[n - 1]);
    };
    assert.ok(!lines().some((l) => l.level === 'debug'), 'no debug lines at info');

    write(`log_level: debug\nprobe:\n  region: paris\nchannels:\n  - name: ops\n    type: webhook\n    url: ${secret}\n`);
    const first = await hup(1);
    assert.equal(first.level, 'info');
    assert.match(first.msg, /applied channels, log_level info → debug/);
    assert.deepEqual(first.applied, ['channels', 'log_level']);
    assert.deepEqual(first.restart_needed, ['probe.region']);
    assert.match(first.msg, /changed but applied at the next restart: probe\.region/);
    assert.ok(!proc.stderr().includes('very-secret-path'), 'values of changed keys are never logged');
    // debug is live: a monitor's checks now log at debug level.
    await fetch(`${proc.url}/v1/monitors`, { method: 'POST', headers: { Authorization: `Bearer phr_${'r'.repeat(43)}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'self', url: `${proc.url}/healthz`, check_frequency: 10 }) });
    await waitFor('a debug line', async () => lines().some((l) => l.level === 'debug'));

    write('log_level: [not, a, level]\n');
    const second = await hup(2);
    assert.equal(second.level, 'error');
    assert.match(second.msg, /config reload refused, the running configuration stays: config: log_level: /);
    assert.equal((await fetch(`${proc.url}/healthz`)).status, 200, 'still serving');

    write(`log_level: debug\nprobe:\n  region: paris\nchannels:\n  - name: ops\n    type: webhook\n    url: ${secret}\n`);
    const third = await hup(3);
    assert.match(third.msg, /: changed but applied at the next restart: probe\.region$/, 'log_level and channels are already in force; probe.region still waits for a restart');
  } finally {
    proc.child.kill('SIGTERM');
    await proc.exited;
  }
});
