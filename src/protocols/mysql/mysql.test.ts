import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { createProbes } from '../../engine/probes/index.ts';
import { daemonDir, freePort, setupAs, startDaemon, type Daemon } from '../../../test/support/daemons.ts';
import { startTestPharos, type TestPharos } from '../../../test/support/pharos.ts';
import { upDownRecover } from '../../../test/support/monitor-flow.ts';
import { pick, probeContract, specOf } from '../../../test/support/probe-contract.ts';

// A real MariaDB (Debian mariadb-server) in a temp dir on a loopback port, with a user `pharos`
// allowed from any loopback address; root administers it over the Unix socket.
let server: Daemon;
let dir = '';
let url = '';
const asRoot = async (sql: string): Promise<unknown> => {
  const c = await createConnection({ socketPath: join(dir, 'sock'), user: 'root' });
  try {
    return (await c.query(sql))[0];
  } finally {
    await c.end();
  }
};
before(async () => {
  dir = daemonDir('mysql');
  const data = join(dir, 'data');
  setupAs('mysql', 'mariadb-install-db', ['--no-defaults', `--datadir=${data}`, '--user=mysql', '--auth-root-authentication-method=normal', '--skip-test-db']);
  const port = await freePort();
  server = await startDaemon('mysql', 'mariadbd', [
    '--no-defaults', `--datadir=${data}`, `--port=${port}`, '--bind-address=127.0.0.1', `--socket=${join(dir, 'sock')}`, '--user=mysql',
    '--skip-name-resolve', '--skip-log-bin', '--innodb-buffer-pool-size=16M', '--general-log=1', '--log-output=TABLE',
  ], port);
  await asRoot(`CREATE USER 'pharos'@'127.0.0.%' IDENTIFIED BY 's3cret'`);
  await asRoot(`CREATE DATABASE shop`);
  await asRoot(`GRANT ALL ON shop.* TO 'pharos'@'127.0.0.%'`);
  url = `mysql://pharos:s3cret@127.0.0.1:${port}/shop`;
});
after(() => server?.stop());

const probes = createProbes({ userAgent: 'pharos-test' });
after(() => probes.mysql.close());
const mySpec = (u = url) => specOf({ url: u, protocol: 'mysql', timeoutSeconds: 5 });

probeContract('mysql', () => probes.mysql, { pass: async () => mySpec(), fail: async () => mySpec(url.replace('s3cret', 'wrong')) });

describe('mysql probe', () => {
  test('a wrong password and an unknown database are named by the server', async () => {
    assert.deepEqual(pick(await probes.mysql.check(mySpec(url.replace('s3cret', 'wrong')))), { ok: false, statusCode: 0, reason: "Access denied for user 'pharos'@'127.0.0.1' (using password: YES)" });
    assert.match((await probes.mysql.check(mySpec(url.replace('/shop', '/nope')))).reason ?? '', /Access denied for user 'pharos'@'127\.0\.0\.%' to database 'nope'|Unknown database 'nope'/);
  });
  test('probe.source_address: the session comes from the configured address (the server\'s general log)', async () => {
    const from = createProbes({ userAgent: 'pharos-test', sourceAddress: '127.0.0.3' });
    try {
      assert.equal((await from.mysql.check(mySpec())).ok, true);
    } finally {
      await from.mysql.close();
    }
    const connects = (await asRoot(`SELECT CONVERT(argument USING utf8) AS a FROM mysql.general_log WHERE command_type = 'Connect'`)) as Array<{ a: string }>;
    assert.ok(connects.some((c) => c.a.startsWith('pharos@127.0.0.3 ')), connects.map((c) => c.a).join('\n'));
  });
});

describe('mysql monitor over the API', () => {
  let p: TestPharos;
  before(async () => (p = await startTestPharos()));
  after(() => p.cleanup());
  test('up, down with the server\'s "Access denied …" after the password changed, recovery', async () => {
    await upDownRecover(p, { name: 'Shop DB', url, protocol: 'mysql', timeout: 5 }, {
      breakIt: async () => void (await asRoot(`ALTER USER 'pharos'@'127.0.0.%' IDENTIFIED BY 'rotated'`)),
      reason: "Access denied for user 'pharos'@'127.0.0.1' (using password: YES)",
      fixIt: async () => void (await asRoot(`ALTER USER 'pharos'@'127.0.0.%' IDENTIFIED BY 's3cret'`)),
    });
  });
});
