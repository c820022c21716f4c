import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Core } from '../../../src/core/index.ts';
import { EventBus } from '../../../src/core/events.ts';
import type { Healthcheck } from '../../../src/domain/healthcheck.ts';
import { HealthcheckDeadlines } from '../../../src/engine/deadlines.ts';
import type { Logger } from '../../../src/lib/logger.ts';
import { ManualClock } from '../../support/manual-clock.ts';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** A watched healthcheck of period 1 min and grace 1 min whose clock started at `startAt`: its deadline is startAt + 120 s. */
const hc = (id: number, startAt = T0): Healthcheck =>
  ({ id, uuid: `tok_${id}`, publicUuid: `hc_${id}`, name: `hc${id}`, periodValue: 1, periodType: 'minutes', cron: null, timezone: 'UTC', graceValue: 1, graceType: 'minutes', clockStartAt: startAt, paused: false, status: 'up' }) as unknown as Healthcheck;

function deferred() {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** A core whose `checkDeadline` calls wait for the test to settle them. */
function fakeCore(list: Healthcheck[]) {
  const bus = new EventBus(() => {});
  const calls: Array<{ id: number; done: ReturnType<typeof deferred> }> = [];
  let inFlight = 0;
  let most = 0;
  const core = {
    bus,
    healthchecks: {
      list: async () => list,
      checkDeadline: (id: number) => {
        const done = deferred();
        calls.push({ id, done });
        most = Math.max(most, ++inFlight);
        return done.promise.finally(() => inFlight--);
      },
    },
  } as unknown as Core;
  return { core, calls, most: () => most };
}

const errors: string[] = [];
const logger = { error: (m: string) => errors.push(m), warn: () => {}, info: () => {}, debug: () => {} } as unknown as Logger;
const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

test('deadline checks run one at a time; stop() resolves only after the one in flight', async () => {
  const clock = new ManualClock(T0);
  const { core, calls, most } = fakeCore([hc(1), hc(2), hc(3, T0 + 60_000)]);
  const d = new HealthcheckDeadlines({ core, clock, logger });
  await d.start();
  assert.equal(d.watchedCount, 3, 'timers set from the list read at start');
  await clock.advance(120_001);
  await turns();
  assert.deepEqual(calls.map((c) => c.id), [1], 'two deadlines passed: one check in flight, the other waits');
  calls[0]!.done.resolve();
  await turns();
  assert.deepEqual(calls.map((c) => c.id), [1, 2]);
  let stopped = false;
  const stopping = d.stop().then(() => (stopped = true));
  await turns();
  assert.equal(stopped, false, 'stop() waits for the check in flight');
  calls[1]!.done.resolve();
  await stopping;
  await clock.advance(120_000);
  assert.deepEqual(calls.map((c) => c.id), [1, 2], 'nothing checked after stop');
  assert.equal(most(), 1);
});

test('a failed deadline check is logged and tried again 5 s later, never an unhandled rejection', async () => {
  const clock = new ManualClock(T0);
  const { core, calls } = fakeCore([hc(1)]);
  const d = new HealthcheckDeadlines({ core, clock, logger });
  await d.start();
  errors.length = 0;
  await clock.advance(120_001);
  calls[0]!.done.reject(new Error('database unreachable'));
  await turns();
  assert.deepEqual(errors, ['healthcheck deadline failed']);
  assert.equal(d.timerAt(1), T0 + 120_001 + 5_000);
  await clock.advance(5_000);
  await turns();
  assert.equal(calls.length, 2, 'tried again');
  calls[1]!.done.resolve();
  await d.stop();
});

test('an event heard while the list is read wins over the list', async () => {
  const clock = new ManualClock(T0);
  const bus = new EventBus(() => {});
  let answer!: (l: Healthcheck[]) => void;
  const core = { bus, healthchecks: { list: () => new Promise<Healthcheck[]>((r) => (answer = r)), checkDeadline: async () => {} } } as unknown as Core;
  const d = new HealthcheckDeadlines({ core, clock, logger });
  const started = d.start();
  bus.emit('healthcheck.changed', { healthcheck: { ...hc(1), paused: true } });
  answer([hc(1), hc(2)]);
  await started;
  assert.equal(d.timerAt(1), undefined, 'paused by the event: the older row read at start sets no timer');
  assert.equal(d.timerAt(2), T0 + 120_001);
  await d.stop();
});
