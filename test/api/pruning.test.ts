import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CheckResult } from '../../src/domain/check.ts';
import { startTestPharos } from '../support/pharos.ts';

// Issue #14 point 14: pruning a large backlog of raw results must not stall the process. A real
// Pharos on a manual clock with 50,000 results past the retention window and 10 inside it.
const DAY = 86_400_000;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

test('pruning deletes what is past the retention in slices, letting the event loop run between them', async () => {
  const p = await startTestPharos({ storage: { raw_retention_days: 7, prune_interval_minutes: 60 } });
  cleanups.push(() => p.cleanup());
  const m = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'old', url: 'http://127.0.0.1:9/', check_frequency: 600, paused: true } })).json();
  const id = p.store.monitors.get(m.uuid)!.id;
  const now = p.clock.now();
  const result = (at: number): CheckResult => ({ monitorId: id, at, ok: true, latencyMs: 5, statusCode: 200, reason: null, region: 'london', probe: 'local' });
  p.store.tx(() => p.store.checks.insertResults(Array.from({ length: 50_000 }, (_, i) => result(now - 8 * DAY + i))));
  p.store.tx(() => p.store.checks.insertResults(Array.from({ length: 10 }, (_, i) => result(now - DAY + i))));

  // Turns of the event loop while the prune runs: a synchronous prune allows none.
  let turns = 0;
  let spinning = true;
  const spin = () => {
    if (!spinning) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  let requestAnswered = false;
  const during = p.api('/healthz').then((r) => (requestAnswered = r.ok));
  const pruned = await p.core.pruneResults();
  const answeredWhilePruning = requestAnswered;
  spinning = false;
  await during;

  assert.equal(pruned, 50_000, 'everything past the retention is deleted');
  assert.equal(p.store.checks.countResults(id), 10, 'results inside the retention stay');
  // A slice holds at most 5,000 rows: at least 10 slices, so at least 9 turns in between.
  assert.ok(turns >= 9, `the event loop turned between slices (${turns} turns)`);
  assert.ok(answeredWhilePruning, 'an HTTP request was answered before the prune finished');
});

test('the hourly prune runs on the configured interval', async () => {
  const p = await startTestPharos({ storage: { raw_retention_days: 1, prune_interval_minutes: 5 } });
  cleanups.push(() => p.cleanup());
  const m = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'old', url: 'http://127.0.0.1:9/', check_frequency: 600, paused: true } })).json();
  const id = p.store.monitors.get(m.uuid)!.id;
  p.store.tx(() => p.store.checks.insertResults([{ monitorId: id, at: p.clock.now() - 2 * DAY, ok: true, latencyMs: 5, statusCode: 200, reason: null, region: 'london', probe: 'local' }]));
  await p.advance(5 * 60_000 - 1);
  assert.equal(p.store.checks.countResults(id), 1);
  await p.advance(1);
  await new Promise((r) => setImmediate(r));
  assert.equal(p.store.checks.countResults(id), 0, 'pruned at the 5-minute mark');
});
