import { rmSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProbeAgent } from '../../src/agent/agent.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { startTestPharos, tempDir, type TestPharos } from '../support/pharos.ts';
import { freePort, waitFor } from '../support/process.ts';
import { httpTarget } from '../support/targets.ts';

// The agent in-process on the same manual clock as the main, so its checks run exactly when the test
// says; its HTTP to the main and to the target is real.
test('while the main is down the agent keeps checking, keeps at most --buffer results (dropping and counting the rest) and delivers them when the main is back', async (t) => {
  const listen = `127.0.0.1:${await freePort()}`;
  const dataDir = tempDir();
  const clock = new ManualClock();
  let main: TestPharos = await startTestPharos({ listen, data_dir: dataDir }, clock);
  const target = await httpTarget(200);
  const token = main.core.users.createToken({ email: 'agent@example.com', name: 'agent', scope: 'probe' }).token;
  const agent = new ProbeAgent(
    { server: main.url, token, region: 'paris', name: 'buffering', version: 'test', userAgent: 'pharos-test', maxConcurrentChecks: 10, bufferLimit: 3, batchSize: 100, pushIntervalMs: 1000 },
    { clock, logger: silentLogger },
  );
  t.after(async () => {
    await agent.stop();
    await main.cleanup();
    await target.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  agent.start();
  await waitFor('the agent connected', async () => agent.stats().connected);
  const m = await (await main.api('/v1/monitors', { method: 'POST', json: { name: 'api', url: target.url, check_frequency: 10, regions: ['paris'] } })).json();
  await waitFor('the agent got its check', async () => agent.stats().checks === 1);
  const stored = (p: TestPharos) => {
    p.core.checks.flush();
    return p.store.checks.countResults(p.store.monitors.get(m.uuid)!.id);
  };
  const advance = (ms: number) => clock.advance(ms, () => agent.settled());
  await advance(10_000);
  await waitFor('the first result delivered', async () => agent.stats().delivered === 1 && stored(main) === 1);

  await main.close();
  for (let i = 0; i < 5; i++) await advance(10_000);
  const hitsWhileDown = target.hits;
  await waitFor('five checks while the main is down, three kept', async () => {
    const s = agent.stats();
    return !s.connected && s.buffered === 3 && s.dropped === 2;
  });
  assert.equal(hitsWhileDown, 6, 'the agent kept checking every 10 s');

  main = await startTestPharos({ listen, data_dir: dataDir }, clock);
  // The agent retries on its (manual) clock: let time pass, half a second per look, until it is back.
  const tick = () => clock.advance(500);
  await waitFor('the buffer delivered', async () => (await tick(), agent.stats().delivered === 4 && stored(main) === 4));
  assert.equal(agent.stats().buffered, 0);
  await waitFor('the dropped count reported', async () => {
    await tick();
    const probes = (await (await main.api('/v1/probes')).json()) as Array<{ id: string; droppedResults: number; status: string }>;
    return probes.find((p) => p.id === agent.id)?.droppedResults === 2;
  }, 5000).catch(async (e) => {
    throw new Error(e.message + (await (await main.api('/v1/probes')).text()) + JSON.stringify(agent.stats()));
  });
});
