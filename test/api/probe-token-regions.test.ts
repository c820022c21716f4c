import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/lib/logger.ts';
import { hashToken } from '../../src/core/users.ts';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestPharos, tempDir, testDatabaseUrl, type TestPharos } from '../support/pharos.ts';
import { httpTarget } from '../support/targets.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { spawnAgent, waitFor } from '../support/process.ts';

// Issue 30 point 2: a probe token is bound to the regions an admin granted it, holds a bounded number
// of agents, and an agent's result that contradicts the other regions is confirmed by them before it
// opens or resolves an outage. Real main over HTTP with a manual clock; the test speaks the agent protocol.
const OFFLINE_S = 3;
const agentId = (c: string) => 'prb_' + c.repeat(22);
const FRA = agentId('F');

let p: TestPharos;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(config: Record<string, unknown> = {}) {
  p = await startTestPharos({ probe: { agent_offline_seconds: OFFLINE_S, agent_poll_seconds: 20 }, ...config }, new ManualClock());
  cleanups.push(() => p.cleanup());
}
const probeToken = async (regions: string[], email = 'agent@example.com') => (await p.core.users.createToken({ email, name: 'agent', scope: 'probe', regions }, { type: 'system', id: 'test', name: 'test' })).token;

const hello = (agent: string, region: string, assignment: string | null = null) => ({ agent, region, name: `probe-${region}`, version: 'test', assignment });
const pollRes = (token: string, agent: string, region: string, assignment: string | null = null) =>
  p.api('/v1/probes/poll', { method: 'POST', token, json: hello(agent, region, assignment) });
type Answer = { assignment: string; checks: Array<{ monitor: string; spec: unknown }> | null; rechecks: string[] };
async function poll(token: string, agent: string, region: string, assignment: string | null = null): Promise<Answer> {
  const res = await pollRes(token, agent, region, assignment);
  assert.equal(res.status, 200, await res.clone().text());
  return res.json();
}
const push = (token: string, agent: string, region: string, batch: string, results: unknown[]) =>
  p.api('/v1/probes/results', { method: 'POST', token, json: { agent, region, batch, results } });
const result = (monitor: string, at: number, ok: boolean) => ({ monitor, at, ok, latencyMs: 12, statusCode: ok ? 200 : 503, reason: ok ? null : 'Expected 2xx, got 503' });
const createMonitor = async (json: Record<string, unknown>) => (await p.api('/v1/monitors', { method: 'POST', json: { check_frequency: 60, ...json } })).json();
const outages = async () => (await (await p.api('/v2/outages')).json()).outages;
const status = async (uuid: string) => (await (await p.api(`/v1/monitors/${uuid}`)).json()).status;
const listing = async () => (await (await p.api('/v1/probes')).json()) as Array<{ id: string; status: string }>;

async function assertRefused(res: Awaited<ReturnType<typeof pollRes>>, code: number, field: RegExp) {
  const text = await res.clone().text();
  assert.equal(res.status, code, text);
  const body = await res.json();
  assert.equal(typeof body.error, 'string', text);
  assert.equal(typeof body.message, 'string', text);
  assert.match(body.error, field);
  return text;
}

describe('a probe token serves the regions it was granted', () => {
  test('a frankfurt token polling as london (the main’s region) or as paris is refused; its specs carry no secrets of other regions', async () => {
    await setup();
    const token = await probeToken(['frankfurt']);
    const london = await createMonitor({ name: 'london', url: 'http://127.0.0.1:9/', regions: ['london'], request_headers: [{ name: 'Authorization', value: 'Bearer london-secret' }] });
    const fra = await createMonitor({ name: 'fra', url: 'http://127.0.0.1:9/', regions: ['frankfurt', 'paris'], request_headers: [{ name: 'X-Key', value: 'fra-secret' }] });

    const asLondon = await assertRefused(await pollRes(token, FRA, 'london'), 403, /region/);
    assert.doesNotMatch(asLondon, /london-secret/);
    await assertRefused(await pollRes(token, FRA, 'paris'), 403, /region/);
    assert.deepEqual((await listing()).map((x) => x.id), ['local'], 'a refused poll registers no agent');
    assert.ok(p.scheduler.nextDueAt(p.store.monitors.get(london.uuid)!.id) !== undefined, 'the main still checks london');

    const a = await poll(token, FRA, 'frankfurt');
    const text = JSON.stringify(a);
    assert.deepEqual(a.checks?.map((c) => c.monitor), [fra.uuid], 'only the monitor of its region');
    assert.match(text, /fra-secret/, 'the secret of a monitor its region serves');
    assert.doesNotMatch(text, /london-secret/);

    // Results claiming a region the token was not granted are refused as a whole.
    const res = await push(token, FRA, 'london', '1', [result(london.uuid, p.clock.now(), false)]);
    await assertRefused(res, 403, /region/);
  });

  test('a probe token needs regions; a legacy probe token (no regions) is refused until granted, and named in a warning at start', async () => {
    await setup();
    await assert.rejects(p.core.users.createToken({ email: 'a@example.com', name: 'a', scope: 'probe' }, { type: 'system', id: 'test', name: 'test' }), /regions/);
    await assert.rejects(p.core.users.createToken({ email: 'a@example.com', name: 'a', scope: 'probe', regions: ['atlantis' as never] }, { type: 'system', id: 'test', name: 'test' }), /regions/);
    // A token as migration 0019 leaves one made before it: probe scope, no region.
    const user = (await p.core.users.createToken({ email: 'old@example.com', name: 'old', scope: 'read' }, { type: 'system', id: 'test', name: 'test' })).info.user;
    p.store.users.insertToken({ id: 'key_legacyprobe1', userUuid: user.uuid, name: 'old probes', scope: 'probe', hash: hashToken('phr_legacy'), regions: [] }, p.clock.now());
    await assertRefused(await pollRes('phr_legacy', FRA, 'london'), 403, /region/);
    await p.close();

    const lines: string[] = [];
    // The same data (directory, or PostgreSQL database named after it); the first cleanup removes it.
    const again = await startTestPharos({ data_dir: p.dataDir }, new ManualClock(), createLogger('info', (l) => void lines.push(l), 'text'));
    cleanups.push(() => again.cleanup());
    assert.ok(lines.some((l) => /key_legacyprobe1/.test(l) && /no region/.test(l) && /pharos token grant/.test(l)), lines.join(''));
    await again.core.users.grantRegions('key_legacyprobe1', ['frankfurt'], { type: 'system', id: 'test', name: 'test' });
    const res = await again.api('/v1/probes/poll', { method: 'POST', token: 'phr_legacy', json: hello(FRA, 'frankfurt') });
    assert.equal(res.status, 200, await res.clone().text());
  });
});

describe('a real `pharos agent` with a frankfurt token', () => {
  test('as london it is refused (and says why in its log); as frankfurt it joins', async () => {
    p = await startTestPharos({ probe: { region: 'london', agent_offline_seconds: OFFLINE_S } }, systemClock);
    cleanups.push(() => p.cleanup());
    const token = await probeToken(['frankfurt']);
    const spawn = async (region: string) => {
      const a = await spawnAgent(token, ['--server', p.url, '--region', region, '--name', `${region}-1`]);
      cleanups.push(async () => {
        if (a.child.exitCode === null && a.child.signalCode === null) a.child.kill('SIGKILL');
        await a.exited;
      });
      return a;
    };
    const london = await spawn('london');
    await waitFor('the refusal in the agent’s log', async () => /poll answered 403[^\n]*may not serve london/.test(london.stderr()));
    assert.deepEqual((await listing()).map((x) => x.id), ['local'], 'the main has no agent for london');
    const fra = await spawn('frankfurt');
    await waitFor('the frankfurt agent online', async () => (await listing()).some((x) => x.id === fra.id && x.status === 'online'));
  });
});

describe('pharos token create --region, token list, token grant', () => {
  test('a probe token needs --region; list shows its regions; grant replaces them and a running main follows at the next poll', async () => {
    const dataDir = tempDir();
    const env = { ...process.env, PHAROS_CONFIG: undefined, PHAROS_DATA_DIR: dataDir, PHAROS_DATABASE_URL: (await testDatabaseUrl(dataDir)) ?? '' };
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const pharos = async (...args: string[]) => {
      try {
        const r = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main.ts', 'token', ...args], { cwd: root, env });
        return { code: 0, stdout: r.stdout, stderr: r.stderr };
      } catch (e) {
        return e as { code: number; stdout: string; stderr: string };
      }
    };
    const bare = await pharos('create', '--email', 'probes@example.com', '--scope', 'probe');
    assert.notEqual(bare.code, 0);
    assert.match(bare.stderr, /--region/);
    assert.match((await pharos('create', '--email', 'probes@example.com', '--scope', 'probe', '--region', 'mars')).stderr, /regions: 'mars' is not one of/);
    const created = await pharos('create', '--email', 'probes@example.com', '--scope', 'probe', '--region', 'frankfurt,paris', '--region', 'tokyo');
    assert.equal(created.code, 0, created.stderr);
    const token = created.stdout.trim();
    const line = (await pharos('list')).stdout.split('\n').find((l) => l.includes('probes@example.com'))!;
    assert.match(line, /\tprobe:frankfurt,paris,tokyo\t/);
    const key = line.split('\t')[0]!;

    await setup({ data_dir: dataDir });
    cleanups.unshift(async () => (await import('node:fs')).rmSync(dataDir, { recursive: true, force: true }));
    await poll(token, FRA, 'paris');
    await assertRefused(await pollRes(token, FRA, 'london'), 403, /region/);
    const granted = await pharos('grant', key, '--region', 'london');
    assert.equal(granted.code, 0, granted.stderr);
    assert.match(granted.stdout, /may serve london/);
    await poll(token, FRA, 'london');
    await assertRefused(await pollRes(token, FRA, 'paris'), 403, /region/);
  });
});

describe('agents per probe token', () => {
  test('the 6th agent id on one token is refused while the 5 are online; one that went offline makes room; another token cannot use its agent ids', async () => {
    await setup();
    const token = await probeToken(['frankfurt']);
    for (const c of 'ABCDE') await poll(token, agentId(c), 'frankfurt');
    const text = await assertRefused(await pollRes(token, agentId('G'), 'frankfurt'), 429, /agents|token/);
    assert.match(text, /5/);
    assert.equal((await listing()).length, 6, 'local + the five');

    const other = await probeToken(['frankfurt'], 'other@example.com');
    await assertRefused(await pollRes(other, agentId('A'), 'frankfurt'), 403, /agent/);
    await assertRefused(await push(other, agentId('A'), 'frankfurt', 'x', []), 403, /agent/);

    await p.advance(OFFLINE_S * 1000);
    await poll(token, agentId('G'), 'frankfurt');
    const ids = (await listing()).map((x) => x.id);
    assert.equal(ids.length, 6, 'still five agents of the token (and the local probe)');
    assert.ok(ids.includes(agentId('G')) && !ids.includes(agentId('A')), 'the new agent replaced the offline one seen longest ago');
    assert.deepEqual(p.store.probes.agentsSeenSince(0).map((a) => a.id).sort(), 'BCDEG'.split('').map(agentId), 'and the store forgot it too');
  });

  test('probe.agents_per_token is configurable', async () => {
    await setup({ probe: { agent_offline_seconds: OFFLINE_S, agents_per_token: 1 } });
    const token = await probeToken(['frankfurt']);
    await poll(token, agentId('A'), 'frankfurt');
    await assertRefused(await pollRes(token, agentId('B'), 'frankfurt'), 429, /agents|token/);
  });
});

describe('an agent’s result that contradicts the other regions is confirmed by them', () => {
  async function twoRegions(respond: number) {
    // The agent stays online while the test moves the clock to london's first check (up to 10 s) without polling.
    await setup({ probe: { agent_offline_seconds: 600 } });
    const token = await probeToken(['frankfurt']);
    const target = await httpTarget(respond);
    cleanups.push(() => target.stop());
    let a = await poll(token, FRA, 'frankfurt');
    const m = await createMonitor({ name: 'shop', url: target.url, regions: ['frankfurt', 'london'] });
    a = await poll(token, FRA, 'frankfurt', a.assignment);
    assert.equal(a.checks?.length, 1, 'frankfurt by the agent, london by the local probe');
    return { token, target, m, id: p.store.monitors.get(m.uuid)!.id as number };
  }

  test('forged failures from the frankfurt agent open no outage: london re-checks and passes', async () => {
    const { token, target, m } = await twoRegions(200);
    const hits = target.hits;
    const now = p.clock.now();
    const res = await push(token, FRA, 'frankfurt', '1', [result(m.uuid, now, false), result(m.uuid, now + 1, false), result(m.uuid, now + 2, false)]);
    assert.equal((await res.json()).stored, 3);
    await p.advance(0);
    assert.ok(target.hits > hits, 'london re-checked');
    assert.deepEqual(await outages(), []);
    assert.equal(await status(m.uuid), 'up');
  });

  test('a forged ok from the frankfurt agent does not resolve an outage london still sees; a real recovery does', async () => {
    const { token, target, m, id } = await twoRegions(503);
    // Down, confirmed by both regions: london's scheduled check fails, the agent agrees.
    await p.advance(p.scheduler.nextDueAt(id)! - p.clock.now());
    await push(token, FRA, 'frankfurt', '1', [result(m.uuid, p.clock.now(), false)]);
    const [outage] = await outages();
    assert.equal(outage?.isResolved, false);
    assert.equal(await status(m.uuid), 'down');

    // The agent claims ok: london is asked at once, still fails; the outage stays open.
    const hits = target.hits;
    await push(token, FRA, 'frankfurt', '2', [result(m.uuid, p.clock.now() + 1, true)]);
    await p.advance(0);
    assert.ok(target.hits > hits, 'london re-checked at once');
    assert.equal((await outages())[0].isResolved, false, 'one region’s ok does not resolve what the other sees down');
    assert.equal(await status(m.uuid), 'down');
    // Repeating the claim does not wear the confirmation down.
    for (let i = 0; i < 3; i++) {
      await push(token, FRA, 'frankfurt', `r${i}`, [result(m.uuid, p.clock.now() + 2 + i, true)]);
      await p.advance(0);
    }
    assert.equal((await outages())[0].isResolved, false);

    // The target recovers: the agent's ok is confirmed by london and the outage resolves.
    target.respond(200);
    await p.advance(1_000);
    await push(token, FRA, 'frankfurt', '3', [result(m.uuid, p.clock.now(), true)]);
    await p.advance(0);
    assert.equal((await outages())[0].isResolved, true);
    assert.equal(await status(m.uuid), 'up');
  });
});
