import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from 'redis';
import { createProbes } from '../../engine/probes/index.ts';
import { daemonDir, freePort, startDaemon, type Daemon } from '../../../test/support/daemons.ts';
import { startTestPharos, type TestPharos } from '../../../test/support/pharos.ts';
import { upDownRecover } from '../../../test/support/monitor-flow.ts';
import { pick, probeContract, specOf } from '../../../test/support/probe-contract.ts';

// A real redis-server (Debian) on a loopback port with a password, no persistence, verbose log
// (it names every accepted client's address).
let server: Daemon;
let url = '';
let password = 's3cret';
/** Changes the server's password (over a session authenticated with the current one). */
const rotate = async (next: string) => {
  const admin = createClient({ url: url.replace('s3cret', password) });
  admin.on('error', () => {});
  await admin.connect();
  try {
    await admin.configSet('requirepass', next);
    password = next;
  } finally {
    admin.destroy();
  }
};
before(async () => {
  const dir = daemonDir('redis');
  const port = await freePort();
  server = await startDaemon('redis', 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--requirepass', 's3cret', '--loglevel', 'verbose'], port);
  url = `redis://:s3cret@127.0.0.1:${port}`;
});
after(() => server?.stop());

const probes = createProbes({ userAgent: 'pharos-test' });
after(() => probes.redis.close());
const redisSpec = (u = url) => specOf({ url: u, protocol: 'redis', timeoutSeconds: 5 });

probeContract('redis', () => probes.redis, { pass: async () => redisSpec(), fail: async () => redisSpec(url.replace('s3cret', 'wrong')) });

describe('redis probe', () => {
  test('a wrong password, no password and a closed port are named', async () => {
    assert.deepEqual(pick(await probes.redis.check(redisSpec(url.replace('s3cret', 'wrong')))), { ok: false, statusCode: 0, reason: 'password authentication failed (WRONGPASS invalid username-password pair or user is disabled)' });
    assert.match((await probes.redis.check(redisSpec(url.replace(':s3cret@', '')))).reason ?? '', /^password authentication failed \(NOAUTH/);
    const closed = await freePort();
    assert.equal((await probes.redis.check(redisSpec(`redis://127.0.0.1:${closed}`))).reason, 'Connection refused');
  });
  test('probe.source_address: the server accepted the client from the configured address', async () => {
    const from = createProbes({ userAgent: 'pharos-test', sourceAddress: '127.0.0.3' });
    try {
      assert.equal((await from.redis.check(redisSpec())).ok, true);
    } finally {
      await from.redis.close();
    }
    assert.match(server.output(), /Accepted 127\.0\.0\.3:\d+/);
  });
});

describe('redis monitor over the API', () => {
  let p: TestPharos;
  before(async () => (p = await startTestPharos()));
  after(() => p.cleanup());
  test('up, down with "password authentication failed …" after the password changed, recovery', async () => {
    await upDownRecover(p, { name: 'Cache', url, protocol: 'redis', timeout: 5 }, {
      breakIt: () => rotate('rotated'),
      reason: 'password authentication failed (WRONGPASS invalid username-password pair or user is disabled)',
      fixIt: () => rotate('s3cret'),
    });
  });
});
