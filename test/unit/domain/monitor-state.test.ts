import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CheckOutcome } from '../../../src/domain/check.ts';
import { applyCheck, type ConfirmationRules, type MonitorRuntimeState } from '../../../src/domain/monitor-state.ts';

const pass: CheckOutcome = { ok: true, latencyMs: 5, statusCode: 200, reason: null };
const fail = (reason: string): CheckOutcome => ({ ok: false, latencyMs: 5, statusCode: 503, reason });
const up: MonitorRuntimeState = { status: 'up', round: null };
const single: ConfirmationRules = { locations: ['london'], confirmations: 2, consecutiveChecks: 3, recheckIntervalMs: 3000, roundTtlMs: 70_000 };
const three: ConfirmationRules = { ...single, locations: ['london', 'paris', 'tokyo'] };

test('one location: up stays up on a pass; down needs N consecutive failures, re-checked after the interval', () => {
  let r = applyCheck(up, { at: 0, region: 'london', outcome: pass }, single);
  assert.deepEqual(r.decision, { kind: 'none' });
  r = applyCheck(r.state, { at: 10, region: 'london', outcome: fail('a') }, single);
  assert.deepEqual(r.decision, { kind: 'recheck', ask: ['london'], delayMs: 3000, cleared: 0 });
  r = applyCheck(r.state, { at: 13, region: 'london', outcome: fail('b') }, single);
  assert.equal(r.decision.kind, 'recheck');
  r = applyCheck(r.state, { at: 16, region: 'london', outcome: fail('c') }, single);
  assert.equal(r.decision.kind, 'down');
  if (r.decision.kind !== 'down') return;
  assert.equal(r.decision.detected.at, 10, 'the outage starts at the first failure');
  assert.equal(r.decision.last.outcome.reason, 'c');
  assert.deepEqual(r.decision.confirmedLocations, ['london']);
  const s = r.state;
  assert.deepEqual(s, { status: 'down', round: null });
  assert.deepEqual(applyCheck(s, { at: 26, region: 'london', outcome: fail('d') }, single).decision, { kind: 'none' }, 'down stays down without a new flip');
  assert.deepEqual(applyCheck(s, { at: 26, region: 'london', outcome: pass }, single), { state: up, decision: { kind: 'up' } });
});

test('one location: a pass during confirmation clears the failures without a flip', () => {
  let r = applyCheck(up, { at: 0, region: 'london', outcome: fail('x') }, single);
  r = applyCheck(r.state, { at: 3, region: 'london', outcome: pass }, single);
  assert.deepEqual(r, { state: up, decision: { kind: 'cleared', failures: 1 } });
});

test('confirmation_checks 1 flips at the first failure', () => {
  assert.equal(applyCheck(up, { at: 0, region: 'london', outcome: fail('x') }, { ...single, consecutiveChecks: 1 }).decision.kind, 'down');
});

test('regions: a failure asks every other location at once; two agreeing locations confirm', () => {
  let r = applyCheck(up, { at: 100, region: 'paris', outcome: fail('503 at paris') }, three);
  assert.deepEqual(r.decision, { kind: 'recheck', ask: ['london', 'tokyo'], delayMs: 0, cleared: 0 });
  r = applyCheck(r.state, { at: 150, region: 'paris', outcome: fail('again') }, three);
  assert.deepEqual(r.decision, { kind: 'none' }, 'the same location failing twice is still one location');
  r = applyCheck(r.state, { at: 200, region: 'tokyo', outcome: fail('503 at tokyo') }, three);
  assert.equal(r.decision.kind, 'down');
  if (r.decision.kind !== 'down') return;
  assert.deepEqual(r.decision.confirmedLocations, ['paris', 'tokyo']);
  assert.equal(r.decision.detected.region, 'paris');
  assert.equal(r.decision.detected.at, 100);
  assert.equal(r.decision.last.outcome.reason, '503 at tokyo');
});

test('regions: a failure the others do not confirm is cleared once it can no longer reach the count', () => {
  let r = applyCheck(up, { at: 0, region: 'paris', outcome: fail('x') }, three);
  r = applyCheck(r.state, { at: 10, region: 'london', outcome: pass }, three);
  assert.deepEqual(r.decision, { kind: 'none' }, 'tokyo may still agree');
  r = applyCheck(r.state, { at: 12, region: 'tokyo', outcome: pass }, three);
  assert.deepEqual(r, { state: up, decision: { kind: 'cleared', failures: 1 } });
});

test('regions: the needed count is capped at the number of locations, and confirmations 3 needs all three', () => {
  const two = { ...three, locations: ['paris', 'tokyo'], confirmations: 5 };
  let r = applyCheck(up, { at: 0, region: 'paris', outcome: fail('x') }, two);
  r = applyCheck(r.state, { at: 1, region: 'tokyo', outcome: fail('y') }, two);
  assert.equal(r.decision.kind, 'down');
  const all = { ...three, confirmations: 3 };
  r = applyCheck(up, { at: 0, region: 'paris', outcome: fail('x') }, all);
  r = applyCheck(r.state, { at: 1, region: 'tokyo', outcome: fail('y') }, all);
  assert.deepEqual(r.decision, { kind: 'none' });
  r = applyCheck(r.state, { at: 2, region: 'london', outcome: pass }, all);
  assert.deepEqual(r.decision, { kind: 'cleared', failures: 2 });
});

test('regions: a location that left (agent offline) is no longer waited for; an expired round counts as unconfirmed', () => {
  let r = applyCheck(up, { at: 0, region: 'paris', outcome: fail('x') }, three);
  r = applyCheck(r.state, { at: 5, region: 'london', outcome: pass }, { ...three, locations: ['london', 'paris'] });
  assert.deepEqual(r.decision, { kind: 'cleared', failures: 1 });

  r = applyCheck(up, { at: 0, region: 'paris', outcome: fail('x') }, three);
  r = applyCheck(r.state, { at: 80_000, region: 'paris', outcome: fail('again, much later') }, three);
  assert.deepEqual(r.decision, { kind: 'recheck', ask: ['london', 'tokyo'], delayMs: 0, cleared: 1 });
});

test('regions: while down, a pass asks the others at once and sets up once confirmations locations passed (issue 30)', () => {
  const down: MonitorRuntimeState = { status: 'down', round: null };
  let r = applyCheck(down, { at: 0, region: 'tokyo', outcome: pass }, three);
  assert.deepEqual(r.decision, { kind: 'recheck', ask: ['london', 'paris'], delayMs: 0, cleared: 0 });
  assert.equal(r.state.status, 'down');
  const asked = r.state;
  r = applyCheck(asked, { at: 1, region: 'tokyo', outcome: pass }, three);
  assert.deepEqual(r.decision, { kind: 'none' }, 'the same location again does not count twice');
  r = applyCheck(r.state, { at: 2, region: 'paris', outcome: pass }, three);
  assert.deepEqual(r, { state: up, decision: { kind: 'up' } });
  // The others still fail: the recovery is dropped once it can no longer reach two, still down.
  r = applyCheck(asked, { at: 2, region: 'paris', outcome: fail('x') }, three);
  assert.equal(r.state.round?.passed.length, 1, 'london still pending');
  r = applyCheck(r.state, { at: 3, region: 'london', outcome: fail('y') }, three);
  assert.deepEqual(r, { state: down, decision: { kind: 'none' } });
  // A recovery round older than its TTL starts over.
  r = applyCheck(asked, { at: 80_000, region: 'paris', outcome: pass }, three);
  assert.deepEqual(r.decision, { kind: 'recheck', ask: ['london', 'tokyo'], delayMs: 0, cleared: 0 });
});

test('while down, one location (or confirmations 1) sets up at its first pass', () => {
  const down: MonitorRuntimeState = { status: 'down', round: null };
  assert.deepEqual(applyCheck(down, { at: 0, region: 'london', outcome: pass }, single), { state: up, decision: { kind: 'up' } });
  assert.deepEqual(applyCheck(down, { at: 0, region: 'tokyo', outcome: pass }, { ...three, confirmations: 1 }), { state: up, decision: { kind: 'up' } });
});
