import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { rmSync } from 'node:fs';
import { createLogger } from '../../src/lib/logger.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { startTestPharos, tempDir, type TestPharos } from '../support/pharos.ts';
import { consoleClient, setupAdmin } from '../support/console.ts';
import { freePort, spawnPharos, type PharosProcess } from '../support/process.ts';

// Issue 33 point 10, first run: before any console user exists, `/` and `/login` say how to finish
// setup (the one-time link in the log, or `pharos user create`) instead of a sign-in form answering
// "Wrong email or password"; the setup-link line and the start line name every address Pharos
// listens on (each interface's when listening on 0.0.0.0), not only public_url (localhost by default).
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** This machine's IPv4 addresses, as `listen: 0.0.0.0` reaches them. */
const ipv4 = () =>
  Object.values(networkInterfaces())
    .flatMap((l) => l ?? [])
    .filter((i) => i.family === 'IPv4')
    .map((i) => i.address);

describe('first run', () => {
  let p: TestPharos;
  const lines: string[] = [];
  test('before setup, / and /login say how to finish it; a sign-in try gets the same, not "Wrong email or password"', async () => {
    p = await startTestPharos({ listen: '0.0.0.0:0' }, new ManualClock(), createLogger('info', (l) => void lines.push(l), 'text'));
    cleanups.push(() => p.cleanup());
    const anon = consoleClient(p);
    for (const path of ['/', '/login', '/login?next=%2Foutages']) {
      const res = await anon.get(path);
      assert.equal(res.status, 200, path);
      assert.match(res.html, /<h1>Finish setting up Pharos<\/h1>/, path);
      assert.match(res.html, /no console user yet: open …\/setup\/…/);
      assert.match(res.html, /pharos user create --email you@example.com --role admin/);
      assert.match(res.html, new RegExp(`${p.url.replace(/\./g, '\\.')}/setup/…`), 'the address this page was reached at');
      assert.doesNotMatch(res.html, /name="password"/, `${path}: no sign-in form`);
    }
    const tried = await anon.post('/login', { email: 'me@example.com', password: 'whatever it is' }, { csrf: null });
    assert.equal(tried.status, 401);
    assert.match(tried.html, /Finish setting up Pharos/);
    assert.doesNotMatch(tried.html, /Wrong email or password/);
  });

  test('the setup-link line names public_url and every address it listens on', () => {
    const line = lines.find((l) => l.includes('no console user yet'))!;
    assert.ok(line, lines.join('\n'));
    const token = p.setupToken!;
    assert.ok(line.includes(`open http://localhost:8080/setup/${token}`), line);
    for (const a of ipv4()) assert.ok(line.includes(`http://${a}:${p.port}/setup/${token}`), `${a} in: ${line}`);
    assert.deepEqual(p.urls, [...new Set(p.urls)]);
    assert.equal(p.urls[0], `http://127.0.0.1:${p.port}`, 'loopback first');
  });

  test('once an admin exists, / is the sign-in form again and a wrong password says so', async () => {
    await setupAdmin(p);
    const anon = consoleClient(p);
    const home = await anon.get('/');
    assert.match(home.html, /Sign in to Pharos/);
    assert.doesNotMatch(home.html, /Finish setting up/);
    const wrong = await anon.post('/login', { email: 'admin@example.com', password: 'not the password' }, { csrf: null });
    assert.equal(wrong.status, 401);
    assert.match(wrong.html, /Wrong email or password/);
  });

  test('pharos serve on 0.0.0.0: the start line and the setup line name each interface address', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const proc: PharosProcess = await spawnPharos({ PHAROS_LISTEN: `0.0.0.0:${port}`, PHAROS_DATA_DIR: dataDir });
    cleanups.push(async () => {
      proc.child.kill('SIGTERM');
      await proc.exited;
      rmSync(dataDir, { recursive: true, force: true });
    });
    const log = proc.stderr();
    const start = log.split('\n').find((l) => l.includes(' listening on '))!;
    const setup = log.split('\n').find((l) => l.includes('no console user yet'))!;
    for (const a of ipv4()) {
      assert.ok(start.includes(`http://${a}:${port}`), `${a} in: ${start}`);
      assert.match(setup, new RegExp(`http://${a.replace(/\./g, '\\.')}:${port}/setup/[0-9A-Za-z]+`), `${a} in: ${setup}`);
    }
    const res = await fetch(`${proc.url}/`);
    assert.match(await res.text(), /Finish setting up Pharos/);
  });
});
