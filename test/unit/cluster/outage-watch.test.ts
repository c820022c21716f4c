import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { askPeer, verdictOf } from '../../../src/cluster/outage-watch.ts';
import { freePort } from '../../support/process.ts';

// A database outage or a partition? (issue 31 point 5): the verdict over the peers' /healthz answers.

test('outage only when every running peer says the database is unreachable and none leads or keeps checks', () => {
  assert.equal(verdictOf([]), 'outage', 'no peer running: nobody could take over');
  assert.equal(verdictOf(['unreachable', 'gone', 'unreachable']), 'outage');
  for (const other of ['reachable', 'leads', 'keeps', 'unknown'] as const) assert.equal(verdictOf(['unreachable', other]), 'partition', other);
});

test('askPeer reads /healthz; a refused connection is a peer not running; silence is unknown', async (t) => {
  const answers: unknown[] = [];
  const server = createServer((req, res) => {
    const body = answers.shift();
    if (body === 'hang') return;
    res.writeHead(503, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())).then(() => undefined));
  const at = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  answers.push({ leader: false, database: 'unreachable', keepsChecks: false });
  assert.equal(await askPeer(at, 1000), 'unreachable');
  answers.push({ leader: false, database: 'reachable', keepsChecks: false });
  assert.equal(await askPeer(at, 1000), 'reachable');
  answers.push({ leader: true, database: 'reachable' });
  assert.equal(await askPeer(at, 1000), 'leads');
  answers.push({ leader: false, database: 'unreachable', keepsChecks: true });
  assert.equal(await askPeer(at, 1000), 'keeps');
  answers.push({ status: 'ok', leader: false });
  assert.equal(await askPeer(at, 1000), 'unknown', 'an older version without `database`');
  answers.push('hang');
  assert.equal(await askPeer(at, 200), 'unknown');
  server.closeAllConnections();
  assert.equal(await askPeer(`127.0.0.1:${await freePort()}`, 1000), 'gone');
});
