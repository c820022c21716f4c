import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TimerQueue } from '../../../src/lib/timer-queue.ts';
import { ManualClock } from '../../support/manual-clock.ts';

test('fires in due order with the due time, one timer per key', async () => {
  const clock = new ManualClock(0);
  const q = new TimerQueue(clock);
  const fired: Array<[number, number, number]> = [];
  for (const [key, at] of [[1, 300], [2, 100], [3, 200], [4, 100]] as const) q.schedule(key, at, (due) => fired.push([key, due, clock.now()]));
  q.schedule(3, 50, (due) => fired.push([3, due, clock.now()])); // replaces key 3's timer
  assert.equal(q.size, 4);
  await clock.advance(1000);
  assert.deepEqual(fired, [[3, 50, 50], [2, 100, 100], [4, 100, 100], [1, 300, 300]]);
  assert.equal(q.size, 0);
});

test('cancel drops a timer; a callback may reschedule its own key', async () => {
  const clock = new ManualClock(0);
  const q = new TimerQueue(clock);
  const fired: number[] = [];
  q.schedule(1, 10, () => fired.push(1));
  q.schedule(2, 20, () => fired.push(2));
  q.cancel(1);
  const tick = (due: number) => {
    fired.push(due);
    if (due < 50) q.schedule(7, due + 10, tick);
  };
  q.schedule(7, 30, tick);
  await clock.advance(100);
  assert.deepEqual(fired, [2, 30, 40, 50]);
  assert.equal(q.dueAt(1), undefined);
});

test('10,000 keys rescheduled many times keep order and a bounded heap', async () => {
  const clock = new ManualClock(0);
  const q = new TimerQueue(clock);
  let last = -1;
  let count = 0;
  let largestHeap = 0;
  for (let round = 0; round < 5; round++) {
    for (let k = 0; k < 10_000; k++) {
      q.schedule(k, (k * 7919) % 10_000 + round, (due) => {
        assert.ok(due >= last, 'due times never go backwards');
        last = due;
        count++;
      });
      largestHeap = Math.max(largestHeap, q.heapSize);
    }
  }
  assert.equal(q.size, 10_000);
  assert.ok(largestHeap <= 2 * 10_000 + 64, `the heap stays within twice the live timers (largest: ${largestHeap}; 50,000 entries without compaction)`);
  await clock.advance(20_000);
  assert.equal(count, 10_000, 'only the newest timer of each key fires');
  assert.equal(q.heapSize, 0);
});
