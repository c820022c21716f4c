import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/lib/errors.ts';
import { rawDb } from '../../src/store/index.ts';
import { workerHooksForTests } from '../../src/store/pg/driver.ts';
import { storeHostForTests } from '../../src/store/host-client.ts';
import { sharedPostgres, startTestPharos, type TestPharos } from '../support/pharos.ts';
import { waitFor } from '../support/process.ts';

// Issue 22 / store interface (d): the PostgreSQL driver answers the synchronous store through a worker
// thread. When that thread dies, the call waiting on it and the calls until a new worker reaches the
// database fail with 503 `store.unavailable`, nothing hangs, and the store then works again by itself.
// Since issue 31 the API reaches the store through the store host thread (its own driver and worker):
// the main thread's synchronous store is driven directly here, and the host thread is killed apart. A real PostgreSQL whatever PHAROS_TEST_DRIVER says. The statement timeout is
// 60 s, so a call left waiting on a dead worker would wait 65 s (the driver's limit) instead of failing at once.
const STATEMENT_TIMEOUT_MS = 60_000;
let dbs = 0;

async function pharosOnPostgres(): Promise<TestPharos> {
  const url = await (await sharedPostgres()).createDatabase(`worker${process.pid}_${++dbs}`);
  return startTestPharos({ storage: { driver: 'postgres', postgres_url: url, postgres_statement_timeout_ms: STATEMENT_TIMEOUT_MS } });
}

const createMonitor = (p: TestPharos, name: string) => p.api('/v1/monitors', { method: 'POST', json: { name, url: 'http://127.0.0.1:9/', paused: true } });
const names = async (p: TestPharos) => ((await (await p.api('/v1/monitors')).json()) as Array<{ name: string }>).map((m) => m.name).sort();

const invite = (p: TestPharos, email: string) => p.store.invitations.put({ email, role: 'viewer', invitedBy: 'usr_test', createdAt: Date.now() });
const invited = (p: TestPharos) => p.store.invitations.list().map((i) => i.email).sort();

/** The next synchronous write throws 503 store.unavailable (the worker is being replaced), then writes work again. */
async function unavailableThenRecovers(p: TestPharos, label: string): Promise<void> {
  assert.throws(() => invite(p, `${label}-refused@example.com`), (e: unknown) => e instanceof AppError && e.status === 503 && e.code === 'store.unavailable');
  await waitFor(`a write works again after the worker died (${label})`, async () => {
    try {
      invite(p, `${label}-after@example.com`);
      return true;
    } catch (e) {
      if (e instanceof AppError && e.status === 503) return false;
      throw e;
    }
  });
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
  assert.deepEqual(invited(p), ['crash-after@example.com'], 'the refused write was not stored');
  assert.deepEqual(await names(p), ['before'], 'the earlier write survived');
});

test('a PostgreSQL store worker terminated between calls is replaced at the next call (503 meanwhile), then the store works', { timeout: 120_000 }, async (t) => {
  const p = await pharosOnPostgres();
  t.after(() => p.cleanup());
  assert.equal((await createMonitor(p, 'before')).status, 201);
  await workerHooksForTests(rawDb(p.store))!.terminate();
  await unavailableThenRecovers(p, 'terminate');
  assert.deepEqual(invited(p), ['terminate-after@example.com']);
  assert.deepEqual(await names(p), ['before']);
});

test('the store host thread killed between requests is replaced at the next one: the API keeps working, nothing written before is lost', { timeout: 120_000 }, async (t) => {
  const p = await pharosOnPostgres();
  t.after(() => p.cleanup());
  assert.equal((await createMonitor(p, 'before')).status, 201);
  const host = storeHostForTests(p.store)!;
  const answered = host.answered;
  await host.terminateForTests();
  assert.equal((await createMonitor(p, 'after')).status, 201, 'a new host thread answers');
  assert.ok(host.answered > answered, 'through the host thread');
  assert.deepEqual(await names(p), ['after', 'before']);
});
