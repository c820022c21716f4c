import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { publicOnlyConnector, REFUSED_ADDRESS_CODE } from '../../../src/alerting/public-connector.ts';

// The connector of subscriber webhooks, against a real listener on 127.0.0.1: no host form that
// leads to a loopback address gets a connection (literals are checked before connecting, names on
// the addresses they resolve to).
test('publicOnlyConnector refuses loopback by literal, numeric form, mapped IPv6 and by name; the listener sees no connection', async (t) => {
  let connections = 0;
  const server = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const agent = new Agent({ connect: publicOnlyConnector(2000) });
  t.after(async () => {
    await agent.close();
    await new Promise<void>((r) => server.close(() => r()));
  });
  for (const host of ['127.0.0.1', '2130706433', '0x7f000001', '127.1', '[::ffff:127.0.0.1]', '[::1]', 'localhost']) {
    await assert.rejects(
      request(`http://${host}:${port}/`, { dispatcher: agent, method: 'POST', body: '{}' }),
      (e: Error & { code?: string; cause?: { code?: string } }) => e.code === REFUSED_ADDRESS_CODE || e.cause?.code === REFUSED_ADDRESS_CODE,
      host,
    );
  }
  assert.equal(connections, 0);
});
