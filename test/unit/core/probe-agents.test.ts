import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countRate, holdPoll, listAgents, makeRoomForAgent, newAgentState, newRate, wakeAgent } from '../../../src/core/probe-agents.ts';
import { AppError } from '../../../src/lib/errors.ts';
import { ManualClock } from '../../support/manual-clock.ts';

const info = (id: string, firstSeen: number) => ({ id, name: id, region: 'london' as const, version: '1', sourceAddress: null, firstSeen, lastSeen: firstSeen });

test('a probe rate is the rate so far until a whole minute passed, then the last whole minute', () => {
  const r = newRate(0);
  assert.equal(countRate(r, 10, 5_000), 2, '10 results in 5 s');
  assert.equal(countRate(r, 20, 30_000), 1, '30 results in 30 s');
  // The minute is over: the window's 30 results over its 60 s, then a new window counts from 0.
  assert.equal(countRate(r, 0, 60_000), 0.5);
  assert.equal(countRate(r, 600, 90_000), 0.5, 'the last whole minute, not the partial one');
});

test('a held poll ends when the agent is woken, when the hold passes, or when the connection closes', async () => {
  const clock = new ManualClock(0);
  const a = newAgentState(info('a', 0), 'key_t', 0);
  const woken = holdPoll(a, clock, 30_000, new AbortController().signal);
  assert.equal(a.waiters.size, 1);
  wakeAgent(a);
  await woken;
  assert.equal(a.waiters.size, 0);

  const timed = holdPoll(a, clock, 30_000, new AbortController().signal);
  await clock.advance(30_000);
  await timed;
  assert.equal(a.waiters.size, 0);

  const gone = new AbortController();
  const aborted = holdPoll(a, clock, 30_000, gone.signal);
  gone.abort();
  await aborted;
  assert.equal(a.waiters.size, 0);
});

test('the agents listing puts online agents first, then the earliest seen, and a held poll counts as seen now', () => {
  const late = newAgentState(info('late', 200), 'key_t', 200);
  const early = newAgentState(info('early', 100), 'key_t', 100);
  const online = newAgentState(info('online', 300), 'key_t', 300);
  online.online = true;
  online.openPolls = 1;
  const listed = listAgents([late, early, online], 1_000);
  assert.deepEqual(listed.map((l) => l.id), ['online', 'early', 'late']);
  assert.equal(listed[0]!.lastSeen, 1_000);
  assert.equal(listed[0]!.connected, true);
  assert.equal(listed[1]!.lastSeen, 100);
  assert.equal(listed[1]!.status, 'offline');
});

test('a token over its agent cap: its offline agent seen longest ago makes room; all online → 429', () => {
  const mk = (id: string, token: string, lastSeen: number, online: boolean) => {
    const a = newAgentState(info(id, lastSeen), token, lastSeen);
    a.online = online;
    return a;
  };
  const agents = [mk('old', 'key_a', 100, false), mk('older', 'key_a', 50, false), mk('on', 'key_a', 300, true), mk('x', 'key_b', 10, false)];
  assert.equal(makeRoomForAgent(agents, 'key_a', 4), null, 'room left');
  assert.equal(makeRoomForAgent(agents, 'key_a', 3)?.info.id, 'older', 'another token’s agents do not count');
  const full = [mk('on1', 'key_a', 1, true), mk('on2', 'key_a', 2, true)];
  assert.throws(() => makeRoomForAgent(full, 'key_a', 2), (e: unknown) => e instanceof AppError && e.status === 429 && e.code === 'probes.too_many_agents' && /2/.test(e.message));
});
