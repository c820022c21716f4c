import { afterEach, test } from 'node:test';
import { waitFor } from '../support/process.ts';
import assert from 'node:assert/strict';
import type { CheckResult } from '../../src/domain/check.ts';
import { startTestPharos } from '../support/pharos.ts';
import { rawDb } from '../../src/store/index.ts';

// Issue #14 point 14: pruning drops whole hours of raw results (one table per UTC hour) instead of
// deleting rows one by one. A real Pharos on a manual clock, results around the retention boundary.
const DAY = 86_400_000;
const HOUR = 3_600_000;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

test('pruning removes exactly the results whose hour ended past the retention and keeps every other one, field for field', async () => {
  const p = await startTestPharos({ storage: { raw_retention_days: 7, prune_interval_minutes: 60 } });
  cleanups.push(() => p.cleanup());
  const make = async (name: string) => p.store.monitors.get((await (await p.api('/v1/monitors', { method: 'POST', json: { name, url: 'http://127.0.0.1:9/', check_frequency: 600, paused: true } })).json()).uuid)!.id;
  const a = await make('a');
  const b = await make('b');
  await p.advance(1_234_567); // the cutoff falls inside an hour (20 min, before any prune)
  const cutoff = p.clock.now() - 7 * DAY;
  // The hour the cutoff falls in is kept whole (retention rounds up to the hour); every earlier hour goes.
  const keptFrom = Math.floor(cutoff / HOUR) * HOUR;
  const r = (monitorId: number, at: number, ok = true, reason: string | null = null, probe = 'local', region = 'london'): CheckResult =>
    ({ monitorId, at, ok, latencyMs: 7 + (at % 50), statusCode: ok ? 200 : 503, reason, region, probe });
  const old: CheckResult[] = [];
  for (let i = 0; i < 5_000; i++) old.push(r(i % 2 ? a : b, keptFrom - 5 * HOUR + i * 3_000)); // five old hours …
  old.push(r(a, keptFrom - 1, false, 'only in an old hour'), r(b, keptFrom - 1)); // … up to the last millisecond before the kept hour
  const kept = [
    r(a, keptFrom), r(b, keptFrom), // the first millisecond of the kept hour
    r(a, cutoff - 1, false, 'Expected 2xx, got 503'), r(a, cutoff + 1, true, null, 'prb_tokyo1', 'tokyo'),
    r(b, p.clock.now() - DAY, false, 'Expected 2xx, got 503'), r(b, p.clock.now() - 1),
  ];
  p.store.tx(() => p.store.checks.insertResults([...old, ...kept]));
  const contexts = () => (rawDb(p.store).prepare('SELECT reason FROM check_contexts ORDER BY id').all() as Array<{ reason: string | null }>).map((c) => c.reason);
  assert.ok(contexts().includes('only in an old hour'));

  const pruned = await p.core.pruneResults();

  assert.equal(pruned, old.length, 'every result of an expired hour is deleted, and counted');
  const stored = (id: number) => p.store.checks.latestResults(id, 100);
  const expect = (id: number) =>
    kept.filter((k) => k.monitorId === id).sort((x, y) => y.at - x.at)
      .map((k) => ({ at: k.at, region: k.region, probe: k.probe, ok: k.ok ? 1 : 0, latency_ms: k.latencyMs, status_code: k.statusCode, reason: k.reason }));
  assert.deepEqual(stored(a), expect(a), 'monitor a keeps exactly its results from the kept hour on');
  assert.deepEqual(stored(b), expect(b), 'monitor b keeps exactly its results from the kept hour on');
  assert.equal(p.store.checks.countResults(a) + p.store.checks.countResults(b), kept.length);
  assert.ok(!contexts().includes('only in an old hour'), 'a context no kept result uses is deleted');
  assert.ok(contexts().includes('Expected 2xx, got 503'), 'a context kept results use stays');
  assert.equal(p.store.checks.lastCheckAt(b), p.clock.now() - 1);
  assert.equal(await p.core.pruneResults(), 0, 'a second prune finds nothing more');
});

test('pruning yields to the event loop between hours', async () => {
  const p = await startTestPharos({ storage: { raw_retention_days: 1, prune_interval_minutes: 60 } });
  cleanups.push(() => p.cleanup());
  const m = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'old', url: 'http://127.0.0.1:9/', check_frequency: 600, paused: true } })).json();
  const id = p.store.monitors.get(m.uuid)!.id;
  const start = p.clock.now() - 2 * DAY - 12 * HOUR;
  p.store.tx(() => p.store.checks.insertResults(Array.from({ length: 12 }, (_, i) => ({ monitorId: id, at: start + i * HOUR, ok: true, latencyMs: 5, statusCode: 200, reason: null, region: 'london', probe: 'local' }))));
  let turns = 0;
  let spinning = true;
  const spin = () => {
    if (!spinning) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  const pruned = await p.core.pruneResults();
  spinning = false;
  assert.equal(pruned, 12);
  assert.ok(turns >= 11, `the event loop turned between the 12 hours dropped (${turns} turns)`);
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
  // The prune's store calls are asynchronous (on PostgreSQL round trips to the store host thread).
  await waitFor('pruned at the 5-minute mark', async () => p.store.checks.countResults(id) === 0, 10_000);
});
