import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendChannels, sendDueAt, stepOfSend, type PolicyTiming } from '../../../src/domain/escalation.ts';

// Rounds of a whole policy (issue 34 point 3, `policy_repeats`): hand-computed from the rule
// "round k's step i is due at start + k × (last step's minutes + pause) + its minutes".
const MIN = 60_000;
const policy: PolicyTiming = {
  steps: [
    { after_minutes: 0, channels: ['a'] },
    { after_minutes: 10, channels: ['b'] },
  ],
  repeat_policy: 2,
  repeat_every_minutes: 5,
};

test('a policy with two more rounds: steps 1, 2 at 0, 10; 15, 25; 30, 40; then nothing', () => {
  const due = [0, 1, 2, 3, 4, 5, 6].map((sent) => sendDueAt(policy, 0, sent));
  assert.deepEqual(due, [0, 10 * MIN, 15 * MIN, 25 * MIN, 30 * MIN, 40 * MIN, null]);
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((sent) => sendChannels(policy, sent)[0]), ['a', 'b', 'a', 'b', 'a', 'b']);
  assert.deepEqual(stepOfSend(policy, 3), { step: 2, round: 1, repeat: 0 });
});

test('without a pause the next round starts 5 minutes after the last step; without rounds the last step repeats', () => {
  assert.equal(sendDueAt({ ...policy, repeat_every_minutes: undefined }, 0, 2), 15 * MIN);
  const plain: PolicyTiming = { steps: policy.steps, repeat_every_minutes: 5, repeat_count: 1 };
  assert.deepEqual([0, 1, 2, 3].map((sent) => sendDueAt(plain, 0, sent)), [0, 10 * MIN, 15 * MIN, null]);
  assert.deepEqual(stepOfSend(plain, 2), { step: 2, round: 0, repeat: 1 });
});
