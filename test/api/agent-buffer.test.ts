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
  const token = (await main.core.users.createToken({ email: 'agent@example.com', name: 'agent', scope: 'probe', regions: ['paris'] }, { type: 'system', id: 'test', name: 'test' })).token;
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
  /** Results of this agent the main has stored (a restarted main's local probe may stand in for a while). */
  const stored = async (p: TestPharos) => {
    await p.core.checks.flush();
    return p.store.checks.latestResults(p.store.monitors.get(m.uuid)!.id, 1000).filter((r) => r.probe === agent.id).length;
  };
  const advance = (ms: number) => clock.advance(ms, () => agent.settled());
  await advance(10_000);
  // The first check runs at the monitor's phase within those 10 s and its result is pushed at the
  // agent's next push (every second of its manual clock): a check due in the window's last second has
  // its push after it. So time goes on a tenth of a second per look, for at most one push interval
  // (short of the next check, 10 s after the first).
  let pushWait = 0;
  await waitFor('the first result delivered', async () => {
    if (agent.stats().delivered === 0 && pushWait < 1_000) {
      pushWait += 100;
      await advance(100);
    }
    return agent.stats().delivered === 1 && (await stored(main)) === 1;
  });

  await main.close();
  const downAt = clock.now();
  for (let i = 0; i < 5; i++) await advance(10_000);
  const hitsWhileDown = target.hits;
  await waitFor('five checks while the main is down, three kept', async () => {
    const s = agent.stats();
    return !s.connected && s.buffered === 3 && s.dropped === 2;
  });
  assert.equal(hitsWhileDown, 6, 'the agent kept checking every 10 s');

  main = await startTestPharos({ listen, data_dir: dataDir }, clock);
  // The agent retries on its (manual) clock: let time pass, a tenth of a second per look, until it is
  // back. Small steps keep the manual time spent reconnecting short of the next check (10 s) even when
  // a loaded machine makes each look slow.
  const tick = () => clock.advance(100);
  // Reconnecting may take several ticks, and the agent keeps checking meanwhile (a tick past the next
  // due time adds a fresh result): wait until the buffer is empty and the main stored all delivered.
  await waitFor('the buffer delivered', async () => {
    await tick();
    const s = agent.stats();
    return s.buffered === 0 && s.delivered >= 4 && (await stored(main)) === s.delivered;
  }).catch(async (e) => {
    throw new Error(`${e.message}: agent ${JSON.stringify(agent.stats())}, stored ${await stored(main)}; ${(await (await main.api('/metrics')).text()).split('\n').filter((l) => l.includes('refused')).join(' ')}`);
  });
  await main.core.checks.flush();
  const kept = main.store.checks
    .latestResults(main.store.monitors.get(m.uuid)!.id, 50)
    .filter((r) => r.probe === agent.id && r.at > downAt && r.at <= downAt + 50_000)
    .map((r) => r.at - downAt)
    .sort((a, b) => a - b);
  // Five checks while down, 10 s apart (at the monitor's phase); three were kept and delivered, the
  // newest among them (the batch the agent was pushing when the main went away may be one of the three).
  // (A slow reconnect on a loaded machine may overflow the buffer once more, dropping one of them too.)
  const droppedAfter = agent.stats().dropped - 2;
  assert.equal(kept.length, 3 - droppedAfter, `results made while the main was down and delivered: ${kept}`);
  assert.ok(kept.at(-1)! > 40_000, `the newest check while down is among them: ${kept}`);
  await waitFor('the dropped count reported', async () => {
    await tick();
    const probes = (await (await main.api('/v1/probes')).json()) as Array<{ id: string; droppedResults: number; status: string }>;
    return probes.find((p) => p.id === agent.id)?.droppedResults === agent.stats().dropped;
  }, 5000).catch(async (e) => {
    throw new Error(e.message + (await (await main.api('/v1/probes')).text()) + JSON.stringify(agent.stats()));
  });
});
