import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alertedStepsShown, resumeAt, sendChannels, sendDueAt } from '../../../src/domain/escalation.ts';
import { formatDuration } from '../../../src/domain/duration.ts';

const MIN = 60_000;
const policy = { steps: [{ after_minutes: 0, channels: ['a'] }, { after_minutes: 15, channels: ['b'] }], repeat_every_minutes: 60 };

test('steps are timed from the escalation start; repeats follow the last step', () => {
  assert.equal(sendDueAt(policy, 1000, 0), 1000);
  assert.equal(sendDueAt(policy, 1000, 1), 1000 + 15 * MIN);
  assert.equal(sendDueAt(policy, 1000, 2), 1000 + 75 * MIN, 'first repeat an hour after step 2');
  assert.equal(sendDueAt(policy, 1000, 3), 1000 + 135 * MIN);
  assert.equal(sendDueAt({ steps: policy.steps }, 1000, 2), null, 'no repeat configured: nothing after the last step');
  assert.deepEqual(sendChannels(policy, 0), ['a']);
  assert.deepEqual(sendChannels(policy, 5), ['b'], 'repeats use the last step');
  assert.equal(alertedStepsShown(policy, 5), 2);
});

test('unacknowledge resumes: an overdue send goes out now, a later one keeps its time', () => {
  assert.equal(resumeAt(policy, 0, 1, 20 * MIN), 20 * MIN);
  assert.equal(resumeAt(policy, 0, 1, 5 * MIN), 15 * MIN);
  assert.equal(resumeAt({ steps: policy.steps }, 0, 2, 5 * MIN), null);
});

test('durations read like the hosted service: 1d 5hr 59min 16s, zero units left out', () => {
  assert.equal(formatDuration(0), '0s');
  assert.equal(formatDuration(59.9), '59s');
  assert.equal(formatDuration(86_400 + 5 * 3600 + 59 * 60 + 16), '1d 5hr 59min 16s');
  assert.equal(formatDuration(3600 + 16), '1hr 16s');
});

test('repeat_count caps the repeats of a stored policy; without it they go on (config.yaml repeat_every_minutes)', () => {
  const steps = [{ after_minutes: 0, channels: ['a'] }, { after_minutes: 10, channels: ['b'] }];
  const capped = { steps, repeat_every_minutes: 5, repeat_count: 2 };
  assert.equal(sendDueAt(capped, 0, 2), 15 * 60_000, 'repeat 1');
  assert.equal(sendDueAt(capped, 0, 3), 20 * 60_000, 'repeat 2');
  assert.equal(sendDueAt(capped, 0, 4), null, 'no third repeat');
  assert.equal(sendDueAt({ steps, repeat_every_minutes: 5 }, 0, 40), (10 + 39 * 5) * 60_000);
});
