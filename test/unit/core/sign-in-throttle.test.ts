import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../src/lib/errors.ts';
import { attemptThrottle, consoleCounters } from '../../../src/core/sign-in-throttle.ts';
import { ManualClock } from '../../support/manual-clock.ts';

// The throttle behind every password and code (issue 30): counted before the check, given back when right.
const make = () => {
  const clock = new ManualClock();
  const t = attemptThrottle({ clock, windowMs: 60_000, tooMany: (s) => new AppError(429, 'x.too_many', `wait ${s} s`) });
  return { clock, t };
};
const k = (key: string, limit: number) => [{ key, limit }];

test('reservations held at once cannot exceed the limit; the next one is refused with the seconds to wait', () => {
  const { t } = make();
  for (let i = 0; i < 3; i++) t.reserve(k('a', 3));
  assert.throws(() => t.reserve(k('a', 3)), (e: AppError) => e.status === 429 && e.message === 'wait 60 s');
  assert.doesNotThrow(() => t.reserve(k('b', 3)), 'another key has its own counter');
});

test('a right try gives its point back; a wrong one keeps it until the window ends (on the injected clock)', async () => {
  const { clock, t } = make();
  t.reserve(k('a', 2)).succeeded();
  t.reserve(k('a', 2));
  t.reserve(k('a', 2));
  assert.throws(() => t.reserve(k('a', 2)));
  await clock.advance(59_999);
  assert.throws(() => t.reserve(k('a', 2)));
  await clock.advance(1);
  assert.doesNotThrow(() => t.reserve(k('a', 2)));
});

test('a full counter charges none of the others; a refund after the window ended does not touch the new window', async () => {
  const { clock, t } = make();
  t.reserve(k('full', 1));
  assert.throws(() => t.reserve([{ key: 'other', limit: 1 }, { key: 'full', limit: 1 }]));
  const held = t.reserve(k('other', 1));
  await clock.advance(60_000);
  t.reserve(k('other', 1));
  held.succeeded();
  assert.throws(() => t.reserve(k('other', 1)), 'the new window keeps its point');
});

test('check(): the comparison runs only under a reservation', async () => {
  const { t } = make();
  let runs = 0;
  const wrong = () => t.check(k('a', 2), async () => (runs++, false));
  const settled = await Promise.allSettled([wrong(), wrong(), wrong(), wrong()]);
  assert.equal(runs, 2);
  assert.equal(settled.filter((s) => s.status === 'rejected').length, 2);
});

test('console counters: address, account+address, and the account cap only where the person is not trusted', () => {
  assert.deepEqual(consoleCounters(10, 'a@x', '1.2.3.4', false).map((c) => c.limit), [30, 10, 50]);
  assert.deepEqual(consoleCounters(10, 'a@x', '1.2.3.4', true).map((c) => c.limit), [30, 10]);
});
