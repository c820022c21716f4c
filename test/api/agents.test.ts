import { rmSync } from 'node:fs';
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '../../src/lib/clock.ts';
import { ONCE_IN_SQLITE_RUN, startTestPharos, tempDir, type TestPharos } from '../support/pharos.ts';
import { freePort, spawnAgent, waitFor, type AgentProcess } from '../support/process.ts';
import { httpTarget } from '../support/targets.ts';

// Real `pharos agent` processes against a real main on the real clock, all on loopback: each agent
// checks from its own source address (127.0.0.2, .3, .4), so a target can fail for one of them only.
const FREQ_MS = 10_000;
const OFFLINE_S = 3;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function startMain(listen: string, dataDir?: string, offlineS = OFFLINE_S): Promise<TestPharos> {
  const p = await startTestPharos({ listen, ...(dataDir ? { data_dir: dataDir } : {}), probe: { region: 'london', agent_offline_seconds: offlineS } }, systemClock);
  cleanups.push(() => p.cleanup());
  return p;
}

async function agent(token: string, main: TestPharos, region: string, address: string): Promise<AgentProcess> {
  const a = await spawnAgent(token, ['--server', main.url, '--region', region, '--source-address', address, '--name', `${region}-probe`]);
  cleanups.push(async () => {
    if (a.child.exitCode === null && a.child.signalCode === null) a.child.kill('SIGKILL');
    await a.exited;
  });
  return a;
}

/** Starts a paris agent, waits until the main has it online, then creates a paris-only monitor of `url`. */
async function parisAgentWithMonitor(main: TestPharos, token: string, url: string) {
  const a = await agent(token, main, 'paris', '127.0.0.2');
  await waitFor('the agent online', async () => (await probes(main)).some((p) => p.id === a.id && p.status === 'online'));
  const m = await (await main.api('/v1/monitors', { method: 'POST', json: { name: 'api', url, check_frequency: 10, regions: ['paris'] } })).json();
  return { agent: a, uuid: m.uuid as string, id: main.store.monitors.get(m.uuid)!.id };
}

type Listing = Array<{ id: string; region: string; status: string; sourceAddress: string | null; monitors: number }>;
const probes = async (main: TestPharos): Promise<Listing> => (await main.api('/v1/probes')).json();
const outages = async (main: TestPharos) => (await (await main.api('/v2/outages')).json()).outages;
/** Stored results of a monitor, oldest first. */
const results = async (main: TestPharos, monitorId: number) => {
  await main.core.checks.flush();
  return main.store.checks.latestResults(monitorId, 10_000).reverse();
};

/**
 * No check lost or counted twice: consecutive results of one region are one frequency apart, give
 * or take a hand-over (agent_offline_seconds) — a lost check leaves a gap of two frequencies, a
 * double one of about zero.
 */
function assertEveryCheckOnce(rs: Array<{ at: number }>, what: string) {
  for (let i = 1; i < rs.length; i++) {
    const gap = rs[i]!.at - rs[i - 1]!.at;
    assert.ok(gap > FREQ_MS / 2 && gap < FREQ_MS * 1.5, `${what}: results ${i - 1} and ${i} are ${gap} ms apart (every check once means ~${FREQ_MS} ms)`);
  }
}

describe('remote agents (real processes)', { skip: ONCE_IN_SQLITE_RUN }, () => {
  test('three regions, three source addresses: a failure seen from one opens nothing; failing for all opens one outage confirmed by two regions', async () => {
    const main = await startMain(`127.0.0.1:${await freePort()}`);
    const token = (await main.core.users.createToken({ email: 'agents@example.com', name: 'agents', scope: 'probe', regions: ['paris', 'tokyo', 'sydney'] }, { type: 'system', id: 'test', name: 'test' })).token;
    const target = await httpTarget(200);
    cleanups.push(() => target.stop());
    const regions = { paris: '127.0.0.2', tokyo: '127.0.0.3', sydney: '127.0.0.4' } as const;
    const agents = Object.fromEntries(await Promise.all(Object.entries(regions).map(async ([r, addr]) => [r, await agent(token, main, r, addr)] as const)));
    await waitFor('three agents online', async () => (await probes(main)).filter((p) => p.status === 'online' && p.id !== 'local').length === 3);
    assert.deepEqual(
      Object.fromEntries((await probes(main)).filter((p) => p.id !== 'local').map((p) => [p.region, p.sourceAddress])),
      regions,
      'GET /v1/probes lists each agent with its region and source address',
    );

    target.respondTo(regions.tokyo, 503);
    const m = await (await main.api('/v1/monitors', { method: 'POST', json: { name: 'shop', url: target.url, check_frequency: 10, regions: ['paris', 'tokyo', 'sydney'] } })).json();
    const id = main.store.monitors.get(m.uuid)!.id;
    await waitFor('two failures in tokyo, each re-checked by paris and sydney', async () => {
      const metrics = await (await main.api('/metrics')).text();
      return Number(/^pharos_unconfirmed_failures_total (\d+)/m.exec(metrics)?.[1]) >= 2;
    }, 40_000).catch(async (e) => {
      throw new Error(`${e.message}\n${JSON.stringify(await results(main, id))}`);
    });
    assert.deepEqual(await outages(main), [], 'tokyo alone does not open an outage');
    assert.equal((await (await main.api(`/v1/monitors/${m.uuid}`)).json()).status, 'up');
    const rs = await results(main, id);
    for (const [region, a] of Object.entries(agents)) {
      const mine = rs.filter((r) => r.region === region);
      assert.ok(mine.length >= 2, `results from ${region}`);
      assert.ok(mine.every((r) => r.probe === a.id), `${region}'s results are its agent's`);
      assert.ok(mine.every((r) => (region === 'tokyo' ? r.ok === 0 && r.status_code === 503 : r.ok === 1)));
    }
    assert.deepEqual([...target.clients].sort(), Object.values(regions).sort(), 'every check came from an agent’s own address; none from the local probe');

    target.respondTo(regions.tokyo, null);
    target.respond(503);
    const [outage] = await waitFor('an outage', async () => {
      const os = await outages(main);
      return os.length > 0 && os;
    }, 30_000);
    const confirmed = outage.confirmedLocations.split(',');
    assert.ok(confirmed.length >= 2, `confirmed by ${outage.confirmedLocations}`);
    assert.ok(confirmed.every((r: string) => r in regions) && outage.detectedLocation in regions);
    assert.equal(outage.description, 'Expected 2xx, got 503');
    const checksAtOutage = (await results(main, id)).length;
    await waitFor('more checks while down', async () => (await results(main, id)).length >= checksAtOutage + 3, 30_000);
    assert.equal((await outages(main)).length, 1, 'still one outage');
  });

  test('SIGKILL an agent: its region falls back to the local probe, a restarted agent takes it back; no check lost or counted twice', async () => {
    const main = await startMain(`127.0.0.1:${await freePort()}`);
    const token = (await main.core.users.createToken({ email: 'agents@example.com', name: 'agents', scope: 'probe', regions: ['paris', 'tokyo', 'sydney'] }, { type: 'system', id: 'test', name: 'test' })).token;
    const target = await httpTarget(200);
    cleanups.push(() => target.stop());
    const { agent: first, id } = await parisAgentWithMonitor(main, token, target.url);
    const byProbe = async (probe: string) => (await results(main, id)).filter((r) => r.probe === probe).length;
    await waitFor('two checks by the agent', async () => (await byProbe(first.id)) >= 2, 30_000);

    first.child.kill('SIGKILL');
    await first.exited;
    await waitFor('the agent offline', async () => (await probes(main)).some((p) => p.id === first.id && p.status === 'offline'), 10_000);
    await waitFor('two checks of paris by the local probe', async () => (await byProbe('local')) >= 2, 30_000);

    const second = await agent(token, main, 'paris', '127.0.0.2');
    await waitFor('two checks by the restarted agent', async () => (await byProbe(second.id)) >= 2, 30_000);
    const rs = await results(main, id);
    assert.ok(rs.every((r) => r.region === 'paris' && r.ok === 1));
    const order = rs.map((r) => (r.probe === first.id ? 'first' : r.probe === second.id ? 'second' : r.probe));
    assert.deepEqual([...new Set(order)], ['first', 'local', 'second'], 'agent, then the local probe, then the new agent, never two at once');
    assertEveryCheckOnce(rs, 'paris');
  });

  test('the main restarts while an agent runs: the agent reconnects and delivers what it checked meanwhile', async () => {
    const listen = `127.0.0.1:${await freePort()}`;
    const dataDir = tempDir();
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    let main = await startMain(listen, dataDir);
    const token = (await main.core.users.createToken({ email: 'agents@example.com', name: 'agents', scope: 'probe', regions: ['paris', 'tokyo', 'sydney'] }, { type: 'system', id: 'test', name: 'test' })).token;
    const target = await httpTarget(200);
    cleanups.push(() => target.stop());
    const { agent: a, uuid } = await parisAgentWithMonitor(main, token, target.url);
    let id = main.store.monitors.get(uuid)!.id;
    await waitFor('a check by the agent', async () => (await results(main, id)).length >= 1, 30_000);

    await main.close();
    const downAt = Date.now();
    const hits = target.hits;
    await waitFor('two checks while the main is down', async () => target.hits >= hits + 2, 30_000).catch((e) => {
      throw new Error(`${e.message}\n${a.stderr()}`);
    });

    // The restarted main keeps known agents' regions for agent_offline_seconds (30 s here, so a loaded
    // CI machine cannot make the local probe stand in); the agent polls again within 2 s of the main listening.
    const restartAt = Date.now();
    main = await startMain(listen, dataDir, 30);
    id = main.store.monitors.get(uuid)!.id;
    await waitFor('the agent polled the restarted main', async () => main.store.probes.agentsSeenSince(restartAt).some((s) => s.id === a.id), 30_000).catch((e) => {
      throw new Error(`${e.message}\n${a.stderr()}`);
    });
    await waitFor('the buffered results delivered', async () => (await results(main, id)).filter((r) => r.at > downAt).length >= 2, 10_000);
    const rs = await results(main, id);
    assert.ok(rs.every((r) => r.probe === a.id), `the local probe never stood in, the agent was expected back: ${rs.map((r) => r.probe).join(' ')}`);
    assertEveryCheckOnce(rs, 'paris across the restart');
  });
});
