import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/lib/errors.ts';
import { rawDb } from '../../src/store/index.ts';
import { workerHooksForTests } from '../../src/store/pg/driver.ts';
import { sharedPostgres, startTestPharos, type TestPharos } from '../support/pharos.ts';
import { waitFor } from '../support/process.ts';

// Issue 22 / store interface (d): the PostgreSQL driver answers the synchronous store through a worker
// thread. When that thread dies, the call waiting on it and the calls until a new worker reaches the
// database fail with 503 `store.unavailable` (the API's JSON error), nothing hangs, and the store then
// works again by itself. A real PostgreSQL whatever PHAROS_TEST_DRIVER says. The statement timeout is
// 60 s, so a call left waiting on a dead worker would wait 65 s (the driver's limit) instead of failing at once.
const STATEMENT_TIMEOUT_MS = 60_000;
let dbs = 0;

async function pharosOnPostgres(): Promise<TestPharos> {
  const url = await (await sharedPostgres()).createDatabase(`worker${process.pid}_${++dbs}`);
  return startTestPharos({ storage: { driver: 'postgres', postgres_url: url, postgres_statement_timeout_ms: STATEMENT_TIMEOUT_MS } });
}

const createMonitor = (p: TestPharos, name: string) => p.api('/v1/monitors', { method: 'POST', json: { name, url: 'http://127.0.0.1:9/', paused: true } });
const names = async (p: TestPharos) => ((await (await p.api('/v1/monitors')).json()) as Array<{ name: string }>).map((m) => m.name).sort();

/** The next API write answers 503 store.unavailable (the worker is being replaced), then writes work again. */
async function unavailableThenRecovers(p: TestPharos, label: string): Promise<void> {
  const res = await createMonitor(p, `${label}-refused`);
  assert.equal(res.status, 503);
  const body = await res.json();
  assert.equal(body.code, 'store.unavailable');
  assert.equal(typeof body.error, 'string');
  await waitFor(`a write works again after the worker died (${label})`, async () => (await createMonitor(p, `${label}-after`)).status === 201);
}

test('a PostgreSQL store worker that dies during a call: that call fails with 503 at once, the next ones too until a new worker answers, then all works', { timeout: 120_000 }, async (t) => {
  const p = await pharosOnPostgres();
  t.after(() => p.cleanup());
  assert.equal((await createMonitor(p, 'before')).status, 201);
  const hooks = workerHooksForTests(rawDb(p.store))!;

  const started = Date.now();
  assert.throws(
    () => hooks.crash(),
    (e: unknown) => e instanceof AppError && e.status === 503 && e.code === 'store.unavailable',
  );
  // Not a correctness of speed: the alternative is waiting out the driver's 65 s limit.
  assert.ok(Date.now() - started < STATEMENT_TIMEOUT_MS, 'the call waiting on the dead worker was woken, not left to time out');
  assert.equal(p.store.available(), false, 'the store reports itself unavailable while the worker is replaced');

  await unavailableThenRecovers(p, 'crash');
  assert.equal(p.store.available(), true);
  assert.deepEqual(await names(p), ['before', 'crash-after'], 'the refused write was not stored; the earlier one survived');
});

test('a PostgreSQL store worker terminated between calls is replaced at the next call (503 meanwhile), then the store works', { timeout: 120_000 }, async (t) => {
  const p = await pharosOnPostgres();
  t.after(() => p.cleanup());
  assert.equal((await createMonitor(p, 'before')).status, 201);
  await workerHooksForTests(rawDb(p.store))!.terminate();
  await unavailableThenRecovers(p, 'terminate');
  assert.deepEqual(await names(p), ['before', 'terminate-after']);
});
