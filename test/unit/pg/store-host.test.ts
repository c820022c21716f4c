import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../src/lib/errors.ts';
import type { Store } from '../../../src/store/index.ts';
import { openStore } from '../../../src/store/open.ts';
import { syncCallCount } from '../../../src/store/sync-trace.ts';
import type { Procedure } from '../../../src/store/async.ts';
import { noPharosSessionIdleInTransaction, startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { waitFor } from '../../support/process.ts';

// Issue 31, "no network round trip ever blocks the event loop": on PostgreSQL `store.async` runs the
// store's calls on the store host thread (store/host-client.ts, host-server.ts), so the main thread
// never waits on the database — not while it answers, not while it is frozen. A caller that gives up
// (deadline, AbortSignal) is answered 503 at once and nothing of its call runs later.
// A real PostgreSQL whatever PHAROS_TEST_DRIVER says.

let server: TestPostgres;
let store: Store;
before(async () => {
  server = await startPostgres('storehost');
  store = openStore({ driver: 'postgres', url: server.url, poolSize: 2, statementTimeoutMs: 400 });
  // The host thread's start (loading the store's modules) is not what these tests are about, and on a
  // busy machine it can outlast a call's deadline.
  await answeringAgain();
});
after(async () => {
  store?.close();
  await server?.cleanup();
});

const isUnavailable = (e: unknown) => e instanceof AppError && e.status === 503 && e.code === 'store.unavailable';
const invitation = (email: string) => ({ email, role: 'viewer' as const, invitedBy: 'usr_1', createdAt: 1_700_000_000_000 });

/** Runs `fn` while the whole PostgreSQL cluster is frozen (SIGSTOP: connections stay open, nothing answers). */
async function frozen<T>(fn: () => Promise<T>): Promise<T> {
  const pids = server.pids();
  for (const pid of pids) process.kill(pid, 'SIGSTOP');
  try {
    return await fn();
  } finally {
    for (const pid of pids) process.kill(pid, 'SIGCONT');
  }
}

/** Waits until calls through the host answer again (503 meanwhile) after the database woke up. */
async function answeringAgain(): Promise<void> {
  await waitFor('calls to work again after the database woke up', async () => {
    try {
      await store.async.invitations.list();
      return true;
    } catch (e) {
      if (isUnavailable(e)) return false;
      throw e;
    }
  });
}

/** Counts timer ticks of this event loop while `p` is pending. */
async function ticksWhile(p: Promise<unknown>): Promise<number> {
  let ticks = 0;
  const t = setInterval(() => ticks++, 5);
  try {
    await p.catch(() => undefined);
  } finally {
    clearInterval(t);
  }
  return ticks;
}

test('module calls answer through the host thread with what the synchronous store returns, and run no synchronous statement on this thread', async () => {
  store.invitations.put(invitation('a@example.com'));
  const before = syncCallCount();
  const got = await store.async.invitations.list();
  const one = await store.async.invitations.get('a@example.com');
  await store.async.invitations.put(invitation('b@example.com'));
  assert.equal(syncCallCount(), before, 'no synchronous statement on the main thread');
  assert.deepEqual(got, [invitation('a@example.com')]);
  assert.deepEqual(one, invitation('a@example.com'));
  assert.deepEqual(store.invitations.list().map((i) => i.email), ['a@example.com', 'b@example.com'], 'the host committed the write');
});

test('errors cross the thread as they were thrown: an unknown procedure names the host entry to fix', async () => {
  const nope = { name: 'test.nope', run: () => 1 } as Procedure<object, number>;
  await assert.rejects(store.async.tx(nope, {}), /no procedure named test\.nope .*store-host\.ts/);
});

test('while the database is frozen a call is given up at its deadline with 503, the event loop runs meanwhile, and calls work again once it wakes', { timeout: 60_000 }, async () => {
  await frozen(async () => {
    const call = store.async.with({ timeoutMs: 700 }).invitations.list();
    const ticks = await ticksWhile(call);
    await assert.rejects(call, isUnavailable);
    assert.ok(ticks >= 10, `the event loop kept running while the call waited (${ticks} ticks of 5 ms)`);
    // A call queued behind the given-up one is given up too, not run later.
    await assert.rejects(store.async.with({ timeoutMs: 300 }).invitations.put(invitation('late@example.com')), isUnavailable);
  });
  await answeringAgain();
  assert.equal(store.invitations.get('late@example.com'), undefined, 'a write given up on never ran later');
});

test('a write given up on while its statement is at a frozen server answers store.outcome_unknown through the host, not store.unavailable (it may run when the server wakes)', { timeout: 60_000 }, async () => {
  // A read first: the pool holds a connected idle client, so the write's INSERT is sent at once.
  await store.async.invitations.list();
  await frozen(async () => {
    await assert.rejects(store.async.with({ timeoutMs: 300 }).invitations.put(invitation('maybe@example.com')), (e: unknown) => e instanceof AppError && e.status === 503 && e.code === 'store.outcome_unknown');
  });
  await answeringAgain();
});

test('an AbortSignal gives the call up at once: 503, and what it started is abandoned on the server', { timeout: 60_000 }, async () => {
  await frozen(async () => {
    const ctl = new AbortController();
    const abortable = store.async.with({ signal: ctl.signal, timeoutMs: 30_000 });
    // A transaction (BEGIN, DELETE, INSERT, COMMIT: cluster.register) waiting on the frozen server, and
    // a call queued behind it. (A lone statement already sent may still run when the server wakes: the
    // ambiguity of a commit whose answer was lost, docs/architecture.md.)
    const inTx = abortable.cluster.register({ id: 'ins_aborted', address: 'h:1', version: 'x', startedAt: 1, lastSeenAt: 1, leader: false });
    const queued = abortable.invitations.put(invitation('aborted@example.com'));
    setTimeout(() => ctl.abort(), 50);
    await assert.rejects(inTx, isUnavailable);
    await assert.rejects(queued, isUnavailable);
  });
  await answeringAgain();
  assert.equal(store.invitations.get('aborted@example.com'), undefined, 'the queued call never ran');
  assert.deepEqual(store.cluster.list(0).map((i) => i.id), [], 'the abandoned transaction did not commit later');
  const admin = server.admin('storehost');
  await admin.connect();
  try {
    await noPharosSessionIdleInTransaction(admin);
  } finally {
    await admin.end();
  }
});
