import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../src/lib/errors.ts';
import { cronProblem, isIanaTimeZone, nextCronTime } from '../../../src/lib/cron.ts';
import { deadlineAt, dueAt, resolveHealthcheckSettings, type HealthcheckBodyInput } from '../../../src/domain/healthcheck.ts';
import { applyPing, parsePingSignal } from '../../../src/domain/ping.ts';

const body = (b: Partial<HealthcheckBodyInput>): HealthcheckBodyInput => ({ name: 'x', grace_period_value: 5, grace_period_type: 'minutes', ...b });
const resolve = (b: Partial<HealthcheckBodyInput>) => resolveHealthcheckSettings(body(b), null, () => false);
const fieldOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof AppError);
    return e.details![0]!.path;
  }
  return 'no error';
};

test('settings: exactly one mode; grace at least 60 s; the timezone defaults to UTC', () => {
  assert.deepEqual(resolve({ period_value: 2, period_type: 'hours' }), {
    name: 'x', periodValue: 2, periodType: 'hours', cron: null, timezone: 'UTC', graceValue: 5, graceType: 'minutes', escalationPolicyUuid: null,
  });
  assert.equal(resolve({ cron: '*/5 * * * *', timezone: 'America/New_York' }).cron, '*/5 * * * *');
  assert.equal(fieldOf(() => resolve({})), 'period_value');
  assert.equal(fieldOf(() => resolve({ period_value: 1, period_type: 'days', cron: '0 0 * * *' })), 'cron');
  assert.equal(fieldOf(() => resolve({ period_value: 1, period_type: 'days', grace_period_value: 59, grace_period_type: 'seconds' })), 'grace_period_value');
  assert.equal(resolve({ period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'minutes' }).graceValue, 1);
  assert.equal(fieldOf(() => resolve({ cron: '0 0 * * *', timezone: 'Europe/Nowhere' })), 'timezone');
});

test('cron: 5 fields and 6 fields with seconds first; bad patterns name the problem', () => {
  assert.equal(cronProblem('0 2 * * *', 'UTC'), null);
  assert.equal(cronProblem('30 0 2 * * *', 'UTC'), null);
  assert.equal(nextCronTime('30 0 2 * * *', 'UTC', Date.UTC(2026, 0, 1)), Date.UTC(2026, 0, 1, 2, 0, 30));
  assert.match(cronProblem('0 2 * *', 'UTC')!, /five, six/);
  assert.match(cronProblem('0 0 0 2 * * 2030', 'UTC')!, /5 or 6 parts/);
  assert.match(cronProblem('0 25 * * *', 'UTC')!, /hour/);
  assert.equal(cronProblem('0 0 30 2 *', 'UTC'), 'never matches a date');
  assert.equal(isIanaTimeZone('Europe/Kiev'), true, 'links are IANA names too');
  assert.equal(isIanaTimeZone('+02:00'), false);
});

test('due and deadline: period from the clock start, or the next cron time in the zone', () => {
  const simple = { periodValue: 10, periodType: 'seconds' as const, cron: null, timezone: 'UTC', clockStartAt: 1_000_000, graceValue: 1, graceType: 'minutes' as const };
  assert.equal(dueAt(simple), 1_010_000);
  assert.equal(deadlineAt(simple), 1_070_000);
  const berlin = { periodValue: null, periodType: null, cron: '0 2 * * *', timezone: 'Europe/Berlin', graceValue: 1, graceType: 'hours' as const };
  // Spring gap (29 March 2026): 03:00 CEST. Autumn repeat (25 October 2026): the first 02:00 (CEST) only.
  assert.equal(dueAt({ ...berlin, clockStartAt: Date.UTC(2026, 2, 28, 12) }), Date.UTC(2026, 2, 29, 1));
  assert.equal(dueAt({ ...berlin, clockStartAt: Date.UTC(2026, 9, 24, 12) }), Date.UTC(2026, 9, 25, 0));
  assert.equal(dueAt({ ...berlin, clockStartAt: Date.UTC(2026, 9, 25, 0, 0, 1) }), Date.UTC(2026, 9, 26, 1));
  assert.equal(deadlineAt({ ...berlin, clockStartAt: Date.UTC(2026, 9, 24, 12) }), Date.UTC(2026, 9, 25, 1));
});

test('ping signals: none, start, fail, exit codes 0–255; anything else is not a signal', () => {
  assert.deepEqual(parsePingSignal(undefined), { kind: 'success', exitCode: null });
  assert.deepEqual(parsePingSignal('start'), { kind: 'start', exitCode: null });
  assert.deepEqual(parsePingSignal('fail'), { kind: 'fail', exitCode: null });
  assert.deepEqual(parsePingSignal('0'), { kind: 'success', exitCode: 0 });
  assert.deepEqual(parsePingSignal('255'), { kind: 'fail', exitCode: 255 });
  for (const s of ['256', '-1', '1.5', 'log', 'START', '0x1']) assert.equal(parsePingSignal(s), null, s);
});

test('ping state machine: success restarts the clock and flips up; fail flips down; start and paused change nothing', () => {
  const up = { status: 'up' as const, paused: false, clockStartAt: 100 };
  assert.deepEqual(applyPing(up, { kind: 'success', at: 500 }), { status: 'up', clockStartAt: 500, flip: null });
  assert.deepEqual(applyPing(up, { kind: 'fail', at: 500 }), { status: 'down', clockStartAt: 100, flip: 'down' });
  assert.deepEqual(applyPing(up, { kind: 'start', at: 500 }), { status: 'up', clockStartAt: 100, flip: null });
  const down = { ...up, status: 'down' as const };
  assert.deepEqual(applyPing(down, { kind: 'success', at: 700 }), { status: 'up', clockStartAt: 700, flip: 'up' });
  assert.deepEqual(applyPing(down, { kind: 'fail', at: 700 }), { status: 'down', clockStartAt: 100, flip: null });
  assert.deepEqual(applyPing({ ...down, paused: true }, { kind: 'success', at: 700 }), { status: 'down', clockStartAt: 100, flip: null });
});
