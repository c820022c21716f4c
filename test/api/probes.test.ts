import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, WRITE_TOKEN, type TestPharos } from '../support/pharos.ts';
import { httpTarget } from '../support/targets.ts';
import { waitFor } from '../support/process.ts';
import { ManualClock } from '../support/manual-clock.ts';

// The agent protocol driven by the test itself over HTTP (a real main, a manual clock), so assignment
// changes, idempotent batches, fallback and confirmation across regions are exact. Real `pharos agent`
// processes are in agents.test.ts.
const AGENT = 'prb_' + 'A'.repeat(22);
const OFFLINE_S = 3;

let p: TestPharos;
let probeToken: string;
let probeTokenId: string;
let readToken: string;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(clock = new ManualClock()) {
  p = await startTestPharos({ probe: { agent_offline_seconds: OFFLINE_S, agent_poll_seconds: 20 } }, clock);
  cleanups.push(() => p.cleanup());
  const created = await p.core.users.createToken({ email: 'agent@example.com', name: 'agent', scope: 'probe', regions: ['paris', 'tokyo'] }, { type: 'system', id: 'test', name: 'test' });
  probeToken = created.token;
  probeTokenId = created.info.id;
  readToken = (await p.core.users.createToken({ email: 'viewer@example.com', name: 'viewer', scope: 'read' }, { type: 'system', id: 'test', name: 'test' })).token;
}

const hello = (assignment: string | null, region = 'paris') => ({ agent: AGENT, region, name: 'probe-paris', version: 'test', sourceAddress: '127.0.0.2', assignment });
const poll = async (assignment: string | null, region = 'paris') => {
  const res = await p.api('/v1/probes/poll', { method: 'POST', token: probeToken, json: hello(assignment, region) });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as { assignment: string; checks: Array<{ monitor: string; frequencySeconds: number; nextDueAt: number | null; spec: { target: { url: string } } }> | null; rechecks: string[] };
};
const listing = async () => (await (await p.api('/v1/probes')).json()) as Array<{ id: string; status: string; connected: boolean; region: string; monitors: number }>;
/** Starts a poll and waits until the main holds it (the agent shows as connected); `answer` is its answer. */
async function heldPoll(assignment: string) {
  const answer = poll(assignment);
  await waitFor('the poll to be held', async () => (await listing()).find((x) => x.id === AGENT)?.connected);
  return { answer };
}
const push = (batch: string, results: unknown[], token = probeToken, region = 'paris') =>
  p.api('/v1/probes/results', { method: 'POST', token, json: { agent: AGENT, region, batch, results } });
const result = (monitor: string, at: number, ok: boolean) => ({ monitor, at, ok, latencyMs: 12, statusCode: ok ? 200 : 503, reason: ok ? null : 'Expected 2xx, got 503' });
const createMonitor = async (json: Record<string, unknown>) => (await p.api('/v1/monitors', { method: 'POST', json: { check_frequency: 10, ...json } })).json();
const outages = async () => (await (await p.api('/v2/outages')).json()).outages;

describe('probe tokens and the agent routes', () => {
  test('a probe token can call nothing but poll and results; read and write tokens cannot call those', async () => {
    await setup();
    for (const [method, path] of [['GET', '/v1/monitors'], ['POST', '/v1/monitors'], ['GET', '/v1/probes'], ['GET', '/v2/outages'], ['GET', '/metrics'], ['DELETE', '/v2/statuspages/x']]) {
      const res = await p.api(path!, { method, token: probeToken, ...(method === 'POST' ? { json: { name: 'x', url: 'http://127.0.0.1/' } } : {}) });
      assert.equal(res.status, 403, `${method} ${path} with a probe token`);
      assert.match((await res.json()).error, /probe scope/);
    }
    for (const token of [WRITE_TOKEN, readToken]) {
      assert.equal((await p.api('/v1/probes/poll', { method: 'POST', token, json: hello(null) })).status, 403);
      const res = await push('1', [], token);
      assert.equal(res.status, 403);
      assert.match((await res.json()).error, /only a probe-scope token/);
    }
    assert.equal((await p.api('/v1/probes', { token: readToken })).status, 200, 'a read token lists probes');
    assert.equal((await p.api('/v1/probes/results', { method: 'POST', token: null, json: {} })).status, 401);
  });

  test('bad agent input gets a 400 naming the field; nothing is stored', async () => {
    await setup();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ agent: AGENT, region: 'mars', batch: '1', results: [] }, /region/],
      [{ agent: 'nope', region: 'paris', batch: '1', results: [] }, /agent/],
      [{ agent: AGENT, region: 'paris', batch: '1', results: 'x' }, /results/],
      [{ agent: AGENT, region: 'paris', batch: '1', results: [{ monitor: 'm', at: -1, ok: true, latencyMs: 1, statusCode: 200, reason: null }] }, /results\.0\.at/],
    ];
    for (const [json, field] of cases) {
      const res = await p.api('/v1/probes/results', { method: 'POST', token: probeToken, json });
      assert.equal(res.status, 400);
      assert.match(JSON.stringify(await res.json()), field);
    }
    const res = await p.api('/v1/probes/poll', { method: 'POST', token: probeToken, json: { ...hello(null), region: 'atlantis' } });
    assert.equal(res.status, 400);
    assert.equal((await listing()).length, 1, 'no agent registered from a refused poll');
    await poll(null);
    assert.deepEqual(await (await push('1', [])).json(), { stored: 0, refused: 0, duplicate: false }, 'no refused batch was claimed: its id is still new');
  });
});

describe('assignments', () => {
  test('a poll whose connection is gone before it reaches the handler is not held (the agent can go offline)', async () => {
    // A SIGKILLed agent's connection can close while its poll waits for the loop (body read, store
    // write): the request's signal is already aborted when the hold starts, and an 'abort' listener
    // added then never fires — the poll was held for agent_poll_seconds (CI: "the agent offline" timed out).
    await setup();
    const { assignment } = await poll(null);
    let answered = false;
    const pending = p.core.probes.poll(hello(assignment) as Parameters<typeof p.core.probes.poll>[0], AbortSignal.abort(), { tokenId: probeTokenId, regions: ['paris'] }).then(() => {
      answered = true;
    });
    // The poll's store write is asynchronous (a round trip to the store host on PostgreSQL): wait up to 2 s
    // of real time, during which the manual clock stands still, so a held poll would never answer.
    for (let i = 0; i < 400 && !answered; i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(answered, 'answered at once, not held until the manual clock moves agent_poll_seconds on');
    await pending;
    assert.equal((await listing()).find((x) => x.id === AGENT)?.connected, false);
  });

  test('a held poll answers as soon as a monitor of its region is created, updated, paused, resumed or deleted', async () => {
    await setup();
    const first = await poll(null);
    assert.deepEqual(first.checks, [], 'no monitors yet');
    const [agent] = (await listing()).filter((x) => x.id === AGENT);
    assert.equal(agent?.status, 'online');
    assert.equal(agent?.region, 'paris');

    let pending = (await heldPoll(first.assignment)).answer;
    const m = await createMonitor({ name: 'api', url: 'http://127.0.0.1:9/', regions: ['paris', 'london'] });
    await createMonitor({ name: 'elsewhere', url: 'http://127.0.0.1:9/', regions: ['tokyo'] });
    let a = await pending;
    assert.deepEqual(a.checks?.map((c) => [c.monitor, c.frequencySeconds, c.spec.target.url]), [[m.uuid, 10, 'http://127.0.0.1:9/']], 'only the monitor of its region');

    pending = (await heldPoll(a.assignment)).answer;
    await p.api(`/v1/monitors/${m.uuid}`, { method: 'PUT', json: { name: 'api', url: 'http://127.0.0.1:9/', check_frequency: 30 } });
    a = await pending;
    assert.equal(a.checks?.[0]?.frequencySeconds, 30, 'the new settings');

    pending = (await heldPoll(a.assignment)).answer;
    await p.api(`/v1/monitors/${m.uuid}`, { method: 'PUT', json: { name: 'api', url: 'http://127.0.0.1:9/', paused: true } });
    a = await pending;
    assert.deepEqual(a.checks, [], 'paused: not checked');

    pending = (await heldPoll(a.assignment)).answer;
    await p.api(`/v1/monitors/${m.uuid}`, { method: 'PUT', json: { name: 'api', url: 'http://127.0.0.1:9/', paused: false } });
    a = await pending;
    assert.equal(a.checks?.length, 1);

    pending = (await heldPoll(a.assignment)).answer;
    await p.api(`/v1/monitors/${m.uuid}`, { method: 'DELETE' });
    a = await pending;
    assert.deepEqual(a.checks, []);

    pending = (await heldPoll(a.assignment)).answer;
    await p.advance(20_000);
    a = await pending;
    assert.equal(a.checks, null, 'nothing changed: answered after agent_poll_seconds without a list');
  });

  test('an offline timer that fires a few ms early still takes the agent offline', async () => {
    // Node's setTimeout runs on the event loop's cached monotonic time, the offline check on
    // clock.now() (Date.now): under load a 3,000 ms timer can fire when Date.now() moved 2,995 ms.
    // A clock whose timers fire 2 ms early does that every time (CI: "the agent offline" timed out).
    class EarlyTimers extends ManualClock {
      override setTimer(delayMs: number, fn: () => void) {
        return super.setTimer(delayMs > 2 ? delayMs - 2 : delayMs, fn);
      }
    }
    await setup(new EarlyTimers());
    await poll(null);
    assert.equal((await listing()).find((x) => x.id === AGENT)?.status, 'online');
    await p.advance(OFFLINE_S * 1000 - 2);
    assert.equal((await listing()).find((x) => x.id === AGENT)?.status, 'online', 'not before agent_offline_seconds');
    await p.advance(2);
    assert.equal((await listing()).find((x) => x.id === AGENT)?.status, 'offline', 'offline once agent_offline_seconds passed since its last poll');
  });

  test('a region is served by its agent, and by the local probe once the agent is offline; results record region and probe', async () => {
    await setup();
    const target = await httpTarget(200);
    cleanups.push(() => target.stop());
    const m = await createMonitor({ name: 'web', url: target.url, regions: ['paris'] });
    const id = p.store.monitors.get(m.uuid)!.id;
    assert.ok(p.scheduler.nextDueAt(id) !== undefined, 'no agent: the local probe checks paris');
    const a = await poll(null);
    assert.equal(a.checks?.length, 1);
    assert.equal(p.scheduler.nextDueAt(id), undefined, 'the agent took paris over');

    const t0 = p.clock.now();
    let res = await push('1', [result(m.uuid, t0, true), result(m.uuid, t0 + 10_000, true)]);
    assert.deepEqual(await res.json(), { stored: 2, refused: 0, duplicate: false });
    res = await push('1', [result(m.uuid, t0, true), result(m.uuid, t0 + 10_000, true)]);
    assert.deepEqual(await res.json(), { stored: 0, refused: 0, duplicate: true }, 'a retried batch is acknowledged, not stored again');
    assert.equal(p.store.checks.countResults(id), 2);
    assert.deepEqual(
      p.store.checks.latestResults(id, 5).map((r) => [r.region, r.probe]),
      [['paris', AGENT], ['paris', AGENT]],
    );
    const [, agent] = await listing();
    assert.equal(agent?.monitors, 1);

    // The agent stops polling: offline after agent_offline_seconds, and the local probe takes paris.
    await p.advance(OFFLINE_S * 1000);
    assert.equal((await listing()).find((x) => x.id === AGENT)?.status, 'offline');
    const due = p.scheduler.nextDueAt(id);
    assert.equal(due, t0 + 20_000, 'the local probe continues the agent’s rhythm');
    await p.advance(due! - p.clock.now());
    await p.core.checks.flush();
    assert.deepEqual(p.store.checks.latestResults(id, 1).map((r) => [r.region, r.probe, r.ok]), [['paris', 'local', 1]]);
    const [local] = await listing();
    assert.equal(local?.id, 'local');
    assert.equal(local?.monitors, 1);
  });
});

describe('several agents in one region', () => {
  test('they share its monitors, each checked by one of them; when one leaves, its monitors move to the other', async () => {
    await setup();
    const OTHER = 'prb_' + 'B'.repeat(22);
    const pollAs = async (agent: string, assignment: string | null) => {
      const res = await p.api('/v1/probes/poll', { method: 'POST', token: probeToken, json: { ...hello(assignment), agent } });
      return (await res.json()) as { assignment: string; checks: Array<{ monitor: string }> | null };
    };
    const a1 = await pollAs(AGENT, null);
    const b1 = await pollAs(OTHER, null);
    const uuids: string[] = [];
    for (let i = 0; i < 20; i++) uuids.push((await createMonitor({ name: `m${i}`, url: 'http://127.0.0.1:9/', regions: ['paris'] })).uuid);
    const a = (await pollAs(AGENT, a1.assignment)).checks!.map((c) => c.monitor);
    const b = (await pollAs(OTHER, b1.assignment)).checks!.map((c) => c.monitor);
    assert.ok(a.length > 0 && b.length > 0, `both agents have checks (${a.length} + ${b.length})`);
    assert.deepEqual([...a, ...b].sort(), [...uuids].sort(), 'every monitor exactly once');
    assert.equal(p.scheduler.scheduledCount, 0, 'the local probe has nothing to do');

    // AGENT stops polling; OTHER keeps a poll open and gets AGENT's monitors when it goes offline.
    const b2 = await pollAs(OTHER, null);
    const pending = pollAs(OTHER, b2.assignment);
    await waitFor('the poll to be held', async () => (await listing()).find((x) => x.id === OTHER)?.connected);
    await p.advance(OFFLINE_S * 1000);
    assert.deepEqual((await pending).checks!.map((c) => c.monitor).sort(), [...uuids].sort());
    assert.equal(p.scheduler.scheduledCount, 0, 'still no fallback: paris has an agent');
  });
});

describe('confirmation across regions', () => {
  test('a failure in one region makes the others re-check at once; unconfirmed opens nothing, two regions agreeing open one outage', async () => {
    await setup();
    const target = await httpTarget(200);
    cleanups.push(() => target.stop());
    let a = await poll(null);
    const m = await createMonitor({ name: 'shop', url: target.url, regions: ['paris', 'london'] });
    const id = p.store.monitors.get(m.uuid)!.id;
    a = await poll(a.assignment);
    assert.equal(a.checks?.length, 1, 'paris by the agent, london by the local probe');

    // The agent sees a failure; the local probe (london) re-checks at once and passes.
    const hitsBefore = target.hits;
    await push('1', [result(m.uuid, p.clock.now(), false)]);
    await p.advance(0);
    assert.equal(target.hits, hitsBefore + 1, 'london re-checked at once');
    assert.deepEqual(await outages(), [], 'unconfirmed: no outage');
    assert.match(await (await p.api('/metrics')).text(), /^pharos_unconfirmed_failures_total 1$/m);
    assert.equal((await (await p.api(`/v1/monitors/${m.uuid}`)).json()).status, 'up');

    // Now london fails first: paris is asked through its poll, and agrees.
    target.respond(503);
    const pending = (await heldPoll(a.assignment)).answer;
    await p.advance(p.scheduler.nextDueAt(id)! - p.clock.now());
    a = await pending;
    assert.deepEqual(a.rechecks, [m.uuid], 'the agent is asked to re-check now');
    assert.deepEqual(await outages(), [], 'one region is not enough');
    await push('2', [result(m.uuid, p.clock.now(), false)]);
    const [outage, ...more] = await outages();
    assert.equal(more.length, 0);
    assert.equal(outage.detectedLocation, 'london');
    assert.equal(outage.confirmedLocations, 'london,paris');
    assert.equal(outage.description, 'Expected 2xx, got 503');
    assert.equal((await (await p.api(`/v1/monitors/${m.uuid}`)).json()).status, 'down');

    // A passing check is confirmed by the other region before the outage resolves (issue 30): paris
    // passes while london still fails → still down; once london passes too, resolved.
    await push('3', [result(m.uuid, p.clock.now() + 1, true)]);
    await p.advance(0);
    assert.equal((await outages())[0].isResolved, false, 'london re-checked at once and still fails');
    target.respond(200);
    await push('4', [result(m.uuid, p.clock.now() + 2, true)]);
    await p.advance(0);
    assert.equal((await outages())[0].isResolved, true);
  });
});

describe('a probe token does not forge results (issue #14 point 3)', () => {
  test('results for monitors not assigned to the agent (another region, another agent, a lied region) are refused and counted; no outage opens', async () => {
    await setup();
    const TOKYO = 'prb_' + 'T'.repeat(22);
    await poll(null);
    const tokyoPoll = await p.api('/v1/probes/poll', { method: 'POST', token: probeToken, json: { ...hello(null, 'tokyo'), agent: TOKYO } });
    assert.equal(tokyoPoll.status, 200);
    // The target is up: the local probe's own checks (london, and tokyo once its agent is offline)
    // pass, so an outage could only come from the forged failures.
    const target = await httpTarget();
    cleanups.push(() => target.stop());
    const london = await createMonitor({ name: 'london only', url: target.url, regions: ['london'] });
    const tokyo = await createMonitor({ name: 'tokyo only', url: target.url, regions: ['tokyo'] });
    const now = p.clock.now();
    const fails = (uuid: string) => [result(uuid, now, false), result(uuid, now + 1, false), result(uuid, now + 2, false)];
    let res = await push('1', [...fails(london.uuid), ...fails(tokyo.uuid)]);
    assert.deepEqual(await res.json(), { stored: 0, refused: 6, duplicate: false });
    res = await push('2', fails(london.uuid), probeToken, 'london');
    assert.equal(res.status, 403, 'claiming a region the token was not granted is refused as a whole (issue 30)');
    await p.advance(10_000);
    assert.deepEqual(await outages(), []);
    await p.core.checks.flush();
    for (const m of [london, tokyo]) assert.equal(p.store.checks.latestResults(p.store.monitors.get(m.uuid)!.id, 50).filter((r) => r.probe === AGENT).length, 0, `nothing of ${AGENT} stored for ${m.name}`);
    assert.match(await (await p.api('/metrics')).text(), /^pharos_agent_results_refused_total\{reason="not_assigned"\} 6$/m);
  });

  test('results dated more than 2 min ahead or more than 24 h back are refused; within the window they are stored', async () => {
    await setup();
    let a = await poll(null);
    const m = await createMonitor({ name: 'paris', url: 'http://127.0.0.1:9/', regions: ['paris'] });
    a = await poll(a.assignment);
    assert.equal(a.checks?.length, 1);
    const now = p.clock.now();
    const DAY = 86_400_000;
    const res = await push('1', [
      result(m.uuid, now + 115 * DAY, true),
      result(m.uuid, now + 121_000, true),
      result(m.uuid, now - DAY - 1, true),
      result(m.uuid, now + 120_000, true),
      result(m.uuid, now - DAY + 60_000, true),
    ]);
    assert.deepEqual(await res.json(), { stored: 2, refused: 3, duplicate: false });
    await p.core.checks.flush();
    const stored = p.store.checks.latestResults(p.store.monitors.get(m.uuid)!.id, 10).map((r) => r.at);
    assert.ok(stored.every((at) => at >= now - DAY && at <= now + 120_000), `stored: ${stored.map((x) => new Date(x).toISOString())}`);
    assert.match(await (await p.api('/metrics')).text(), /^pharos_agent_results_refused_total\{reason="time"\} 3$/m);
  });

  test('an agent that has not polled since the server started gets 409 (it keeps its batch and retries after polling)', async () => {
    await setup();
    const res = await push('1', []);
    assert.equal(res.status, 409);
    assert.match((await res.json()).error, /has not polled this server since it started/);
    await poll(null);
    assert.equal((await push('1', [])).status, 200);
  });

  test('an agent\'s first poll is stored, so a restarted main knows it (a later poll only refreshes its last-seen time)', async () => {
    await setup();
    const before = p.clock.now();
    await poll(null);
    const saved = p.store.probes.agentsSeenSince(0);
    assert.deepEqual(saved.map((a) => [a.id, a.region, a.name, a.sourceAddress]), [[AGENT, 'paris', 'probe-paris', '127.0.0.2']]);
    p.clock.advance(5_000);
    await poll(null);
    assert.ok(p.store.probes.agentsSeenSince(before + 5_000).some((a) => a.id === AGENT), 'the second poll moved last_seen');
  });
});
