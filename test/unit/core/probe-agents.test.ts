import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countRate, holdPoll, listAgents, newAgentState, newRate, wakeAgent } from '../../../src/core/probe-agents.ts';
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
  const a = newAgentState(info('a', 0), 0);
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
  const late = newAgentState(info('late', 200), 200);
  const early = newAgentState(info('early', 100), 100);
  const online = newAgentState(info('online', 300), 300);
  online.online = true;
  online.openPolls = 1;
  const listed = listAgents([late, early, online], 1_000);
  assert.deepEqual(listed.map((l) => l.id), ['online', 'early', 'late']);
  assert.equal(listed[0]!.lastSeen, 1_000);
  assert.equal(listed[0]!.connected, true);
  assert.equal(listed[1]!.lastSeen, 100);
  assert.equal(listed[1]!.status, 'offline');
});
