import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { buildConnector, request } from 'undici';
import { selfSigned } from '../../../test/support/certs.ts';
import { tempDir } from '../../../test/support/pharos.ts';
import { waitFor } from '../../../test/support/process.ts';
import { checkDispatchers, type KeepAlivePolicy } from './dispatchers.ts';

// Issue 38 point 2: "where one origin takes many checks, a small bounded keep-alive pool, without
// giving back the descriptor bound". What is observed is each target's own count of connections
// (and of TLS handshakes); time is an injected clock, so "busy" does not depend on the machine's speed.
const dir = tempDir();
const servers: Server[] = [];
after(() => servers.forEach((s) => (s.closeAllConnections(), s.close())));

/** A target counting the connections it accepted and those still open; `hangUpAfterResponse` closes each socket once a response is sent (without `connection: close`). */
async function target(o: { tls?: boolean; hangUpAfterResponse?: boolean } = {}) {
  const handler = (_req: unknown, res: import('node:http').ServerResponse) => {
    res.end('ok');
    if (o.hangUpAfterResponse) res.once('finish', () => setImmediate(() => res.socket?.destroy()));
  };
  const cert = o.tls ? selfSigned(dir, 'IP:127.0.0.1') : null;
  const server: Server = cert ? createHttpsServer({ key: cert.key, cert: cert.cert }, handler) : createHttpServer(handler);
  servers.push(server);
  const t = { url: '', accepted: 0, open: 0, handshakes: 0 };
  server.on('connection', (s: Socket) => {
    t.accepted++;
    t.open++;
    s.once('close', () => t.open--);
  });
  server.on('secureConnection', () => t.handshakes++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.url = `${cert ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return t;
}

/** A keep-alive policy on a clock the test moves. */
function policy(over: Partial<KeepAlivePolicy> = {}) {
  const clock = { ms: 1_000_000 };
  return { clock, policy: { maxIdle: 32, busyWithinMs: 4_000, maxAgeMs: 600_000, now: () => clock.ms, ...over } };
}

const connector = buildConnector({ rejectUnauthorized: false });
const get = async (d: ReturnType<typeof checkDispatchers>, url: string) => {
  const res = await request(url, { dispatcher: d.direct });
  assert.equal(await res.body.text(), 'ok');
  return res.statusCode;
};

test('an origin checked again within the busy window reuses one kept connection; one checked less often gets a fresh connection per check', async () => {
  const busy = await target();
  const { clock, policy: p } = policy();
  const d = checkDispatchers(connector, p);
  for (let i = 0; i < 10; i++) {
    assert.equal(await get(d, busy.url), 200);
    clock.ms += 100; // ten monitors on one origin, a check every 100 ms
  }
  // The first check cannot know the origin is busy (connection: close); the second asks for keep-alive
  // and its connection serves every later check.
  assert.equal(busy.accepted, 2, 'two connections for ten checks');

  const quiet = await target();
  for (let i = 0; i < 4; i++) {
    assert.equal(await get(d, quiet.url), 200);
    clock.ms += 10_000; // one monitor every 10 s: never busy
  }
  assert.equal(quiet.accepted, 4, 'a fresh connection per check');
  await waitFor('every connection of the quiet origin to be closed', async () => quiet.open === 0);
  await d.close();
});

test('idle kept connections never exceed maxIdle across origins', async () => {
  const targets = await Promise.all([1, 2, 3, 4, 5].map(() => target()));
  const { clock, policy: p } = policy({ maxIdle: 2 });
  const d = checkDispatchers(connector, p);
  for (const t of targets) {
    for (let i = 0; i < 3; i++) {
      assert.equal(await get(d, t.url), 200);
      clock.ms += 100;
    }
  }
  await waitFor('connections beyond the two kept to be closed', async () => targets.reduce((n, t) => n + t.open, 0) === 2);
  assert.deepEqual(targets.map((t) => t.open), [1, 1, 0, 0, 0], 'the first two origins to find room keep theirs');
  await d.close();
});

test('a kept connection the server hung up on: the next check makes a fresh one and passes', async () => {
  const t = await target({ hangUpAfterResponse: true });
  const { clock, policy: p } = policy();
  const d = checkDispatchers(connector, p);
  for (let i = 0; i < 6; i++) {
    assert.equal(await get(d, t.url), 200, `check ${i + 1}`);
    clock.ms += 100;
    await waitFor('the server to have closed the connection', async () => t.open === 0);
  }
  assert.equal(t.accepted, 6);
  await d.close();
});

test('HTTPS: a busy origin makes one TLS handshake for many checks; a connection older than maxAgeMs is not reused', async () => {
  const t = await target({ tls: true });
  const { clock, policy: p } = policy({ maxAgeMs: 60_000 });
  const d = checkDispatchers(connector, p);
  for (let i = 0; i < 8; i++) {
    assert.equal(await get(d, t.url), 200);
    clock.ms += 100;
  }
  assert.equal(t.handshakes, 2, 'two handshakes for eight checks');
  clock.ms += 61_000;
  assert.equal(await get(d, t.url), 200, 'the old connection still serves the check that finds it');
  assert.equal(await get(d, t.url), 200);
  assert.equal(t.handshakes, 3, 'past maxAgeMs it is closed after its check and the next one connects anew');
  await d.close();
});

test('without a policy every check has its own connection (the probe\'s per-check dispatchers)', async () => {
  const t = await target();
  const d = checkDispatchers(connector);
  for (let i = 0; i < 3; i++) assert.equal(await get(d, t.url), 200);
  assert.equal(t.accepted, 3);
  await waitFor('all closed', async () => t.open === 0);
  await d.close();
});
