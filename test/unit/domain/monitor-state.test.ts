import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CheckOutcome } from '../../../src/domain/check.ts';
import { applyCheck, type MonitorRuntimeState } from '../../../src/domain/monitor-state.ts';

const pass: CheckOutcome = { ok: true, latencyMs: 5, statusCode: 200, reason: null };
const fail = (reason: string): CheckOutcome => ({ ok: false, latencyMs: 5, statusCode: 503, reason });

test('up stays up on a pass; down needs N consecutive failures', () => {
  let s: MonitorRuntimeState = { status: 'up', failures: [] };
  let r = applyCheck(s, { at: 0, region: 'london', outcome: pass }, 3);
  assert.deepEqual(r.decision, { kind: 'none' });
  r = applyCheck(r.state, { at: 10, region: 'london', outcome: fail('a') }, 3);
  assert.deepEqual(r.decision, { kind: 'recheck' });
  r = applyCheck(r.state, { at: 13, region: 'london', outcome: fail('b') }, 3);
  assert.deepEqual(r.decision, { kind: 'recheck' });
  r = applyCheck(r.state, { at: 16, region: 'paris', outcome: fail('c') }, 3);
  assert.equal(r.decision.kind, 'down');
  if (r.decision.kind !== 'down') return;
  assert.equal(r.decision.detected.at, 10, 'the outage starts at the first failure');
  assert.equal(r.decision.last.outcome.reason, 'c');
  assert.deepEqual(r.decision.confirmedLocations, ['london', 'paris']);
  s = r.state;
  assert.deepEqual(s, { status: 'down', failures: [] });
  assert.deepEqual(applyCheck(s, { at: 26, region: 'london', outcome: fail('d') }, 3).decision, { kind: 'none' }, 'down stays down without a new flip');
  assert.deepEqual(applyCheck(s, { at: 26, region: 'london', outcome: pass }, 3), { state: { status: 'up', failures: [] }, decision: { kind: 'up' } });
});

test('a pass during confirmation clears the failures without a flip', () => {
  let r = applyCheck({ status: 'up', failures: [] }, { at: 0, region: 'london', outcome: fail('x') }, 3);
  r = applyCheck(r.state, { at: 3, region: 'london', outcome: pass }, 3);
  assert.deepEqual(r, { state: { status: 'up', failures: [] }, decision: { kind: 'cleared', failures: 1 } });
});

test('confirmation_checks 1 flips at the first failure', () => {
  const r = applyCheck({ status: 'up', failures: [] }, { at: 0, region: 'london', outcome: fail('x') }, 1);
  assert.equal(r.decision.kind, 'down');
});
