import { test } from 'node:test';
import assert from 'node:assert/strict';
import dns2 from 'dns2';
import { ProbeAgent } from '../../src/agent/agent.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { startTestPharos } from '../support/pharos.ts';
import { waitFor } from '../support/process.ts';

// A remote agent runs a new protocol (dns) from the same registry as the main, from its own source
// address: it detects the failure, confirms it with its re-checks, and the main opens the outage
// with the agent's region and the probe's human reason. The agent is in-process on the main's manual
// clock; its HTTP to the main and its DNS queries to a local dns2 server are real.
test('pharos agent runs a dns check from its source address: down with "NXDOMAIN for db.example.lan", then recovery', async (t) => {
  const { Packet } = dns2;
  let exists = true;
  const clients = new Set<string>();
  const dns = dns2.createServer({
    udp: true,
    handle: (request, send, rinfo) => {
      clients.add((rinfo as { address: string }).address);
      const response = Packet.createResponseFromRequest(request);
      const [q] = request.questions;
      if (!exists || q!.name !== 'db.example.lan') response.header.rcode = 3; // NXDOMAIN
      else response.answers.push({ name: q!.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 60, address: '10.0.0.5' } as unknown as (typeof response.answers)[number]);
      send(response);
    },
  });
  await dns.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const resolver = `127.0.0.1:${dns.addresses().udp!.port}`;
  const clock = new ManualClock();
  const main = await startTestPharos({}, clock);
  const token = (await main.core.users.createToken({ email: 'agent@example.com', name: 'agent', scope: 'probe', regions: ['paris'] }, { type: 'system', id: 'test', name: 'test' })).token;
  const agent = new ProbeAgent(
    { server: main.url, token, region: 'paris', name: 'paris-1', version: 'test', userAgent: 'pharos-test', sourceAddress: '127.0.0.4', maxConcurrentChecks: 10, bufferLimit: 1000, batchSize: 100, pushIntervalMs: 1000 },
    { clock, logger: silentLogger },
  );
  t.after(async () => {
    await agent.stop();
    await main.cleanup();
    await dns.close();
  });
  agent.start();
  await waitFor('the agent connected', async () => agent.stats().connected);
  const m = await (await main.api('/v1/monitors', { method: 'POST', json: { name: 'DB name', url: 'db.example.lan', protocol: 'dns', dns_resolver: resolver, timeout: 2, check_frequency: 10, regions: ['paris'] } })).json();
  await waitFor('the agent got its check', async () => agent.stats().checks === 1);
  const status = async () => (await (await main.api(`/v1/monitors/${m.uuid}`)).json()).status as string;
  const outages = async () => ((await (await main.api('/v2/outages')).json()).outages as Array<{ description: string; detectedLocation: string; isResolved: boolean; monitor: { uuid: string } }>).filter((o) => o.monitor.uuid === m.uuid);
  // Let the agent's time pass a second at a time (checks, re-checks, pushes) until the main sees the outcome.
  const until = (what: string, done: () => Promise<boolean>) => waitFor(what, async () => (await clock.advance(1000, () => agent.settled()), done()));

  await until('a passing check delivered', async () => (await main.core.checks.flush(), main.store.checks.countResults(main.store.monitors.get(m.uuid)!.id) > 0));
  assert.equal(await status(), 'up');
  assert.deepEqual([...clients], ['127.0.0.4'], 'the agent queried from its source address');

  exists = false;
  await until('the outage confirmed by the agent', async () => (await outages()).length === 1);
  const [o] = await outages();
  assert.deepEqual([o!.description, o!.detectedLocation, await status()], ['NXDOMAIN for db.example.lan', 'paris', 'down']);

  exists = true;
  await until('recovered', async () => (await status()) === 'up');
  assert.equal((await outages())[0]!.isResolved, true);
});
