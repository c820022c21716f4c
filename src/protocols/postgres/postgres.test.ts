import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { appendFileSync, chownSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { createProbes } from '../../engine/probes/index.ts';
import { daemonDir, freePort, runAs, setupAs, startDaemon, type Daemon } from '../../../test/support/daemons.ts';
import { startTestPharos, type TestPharos } from '../../../test/support/pharos.ts';
import { upDownRecover } from '../../../test/support/monitor-flow.ts';
import { pick, probeContract, specOf } from '../../../test/support/probe-contract.ts';

// A real PostgreSQL 15 (Debian) in a temp dir on a loopback port: initdb with a password for
// TCP (scram-sha-256), started by the test, stopped at the end.
const BIN = '/usr/lib/postgresql/15/bin';
let server: Daemon;
let url = '';
let socketDir = '';
/** A superuser session over the Unix socket (trust), unaffected by the password the test rotates. */
const admin = () => new pg.Client({ host: socketDir, port: server.port, user: 'pharos', database: 'postgres' });
const setPassword = async (password: string) => {
  const c = admin();
  await c.connect();
  try {
    await c.query(`ALTER USER pharos PASSWORD '${password}'`);
  } finally {
    await c.end();
  }
};
before(async () => {
  const dir = daemonDir('postgres');
  const data = join(dir, 'data');
  writeFileSync(join(dir, 'pw'), 's3cret\n');
  const ids = runAs('postgres');
  if (ids.uid !== undefined) chownSync(join(dir, 'pw'), ids.uid, ids.gid!);
  setupAs('postgres', `${BIN}/initdb`, ['-D', data, '-U', 'pharos', `--pwfile=${join(dir, 'pw')}`, '--auth-host=scram-sha-256', '--auth-local=trust', '-E', 'UTF8', '--no-sync']);
  // Every loopback address may connect with a password (probe.source_address checks use 127.0.0.3).
  appendFileSync(join(data, 'pg_hba.conf'), 'host all all 127.0.0.0/8 scram-sha-256\n');
  socketDir = dir;
  const port = await freePort();
  const args = ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'log_connections=on'];
  server = await startDaemon('postgres', `${BIN}/postgres`, args, port, { signal: 'SIGINT' });
  url = `postgres://pharos:s3cret@127.0.0.1:${port}/postgres`;
});
after(() => server?.stop());

const probes = createProbes({ userAgent: 'pharos-test' });
after(() => probes.postgres.close());
const pgSpec = (u = url) => specOf({ url: u, protocol: 'postgres', timeoutSeconds: 5 });

probeContract('postgres', () => probes.postgres, { pass: async () => pgSpec(), fail: async () => pgSpec(url.replace('s3cret', 'wrong')) });

describe('postgres probe', () => {
  test('a wrong password, an unknown database and a closed port are named', async () => {
    assert.deepEqual(pick(await probes.postgres.check(pgSpec(url.replace('s3cret', 'wrong')))), { ok: false, statusCode: 0, reason: 'password authentication failed for user "pharos"' });
    assert.equal((await probes.postgres.check(pgSpec(url.replace(/\/postgres$/, '/nope')))).reason, 'database "nope" does not exist');
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    assert.equal((await probes.postgres.check(pgSpec(`postgres://pharos:s3cret@127.0.0.1:${port}/postgres`))).reason, 'Connection refused');
  });
  test('probe.source_address: the session comes from the configured address (the server logs connections)', async () => {
    const from = createProbes({ userAgent: 'pharos-test', sourceAddress: '127.0.0.3' });
    try {
      assert.equal((await from.postgres.check(pgSpec())).ok, true);
    } finally {
      await from.postgres.close();
    }
    assert.match(server.output(), /connection received: host=127\.0\.0\.3 /);
  });
});

describe('postgres monitor over the API', () => {
  let p: TestPharos;
  before(async () => (p = await startTestPharos()));
  after(() => p.cleanup());
  test('up, down with "password authentication failed …" after the password changed, recovery', async () => {
    const m = await upDownRecover(p, { name: 'Orders DB', url, protocol: 'postgres', timeout: 5 }, {
      breakIt: () => setPassword('rotated'),
      reason: 'password authentication failed for user "pharos"',
      fixIt: () => setPassword('s3cret'),
    });
    assert.equal(m.protocol, 'postgres');
    const [o] = (await (await p.api('/v2/outages')).json()).outages;
    assert.equal(o.monitor.url, url.replace(':s3cret@', ':***@'), 'outages (and the alerts built from them) never show the password');
    const bad = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url: 'mysql://a@127.0.0.1/x', protocol: 'postgres' } });
    assert.equal((await bad.json()).message, 'url: must be a connection URL postgres://user:password@host:port/db');
  });
});
