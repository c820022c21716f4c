import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createStore, type Store } from '../../../src/store/index.ts';
import { openDatabase, type StorageTarget } from '../../../src/store/open.ts';
import { sharedPostgres, tempDir, TEST_DRIVER } from '../../support/pharos.ts';

// Issue 22 "a transaction-scoped store handed to the function run in a transaction": `store.tx(fn)`
// hands `fn` a store of the same shape whose calls join the transaction, and that throws once the
// transaction has ended. Runs on the driver of PHAROS_TEST_DRIVER (SQLite by default).
const T0 = Date.UTC(2026, 0, 1);
let dbs = 0;

/** Two stores on one database (two connections: what one sees of the other's open transaction tells). */
async function twoStores(): Promise<{ store: Store; other: Store; done: () => void }> {
  let target: StorageTarget;
  let cleanup = () => {};
  if (TEST_DRIVER === 'postgres') {
    const url = await (await sharedPostgres()).createDatabase(`txscope${process.pid}_${++dbs}`);
    target = { driver: 'postgres', url, poolSize: 2, statementTimeoutMs: 5000 };
  } else {
    const dir = tempDir();
    target = { driver: 'sqlite', dataDir: dir };
    cleanup = () => rmSync(dir, { recursive: true, force: true });
  }
  const store = createStore(openDatabase(target));
  const other = createStore(openDatabase(target));
  return {
    store,
    other,
    done: () => {
      store.close();
      other.close();
      cleanup();
    },
  };
}

const queue = (s: Store, dueAt = T0) => s.alerts.insert({ outageUuid: null, channel: 'hook', kind: 'alert', step: 1, message: '{}', createdAt: T0, dueAt });

test(`${TEST_DRIVER}: calls through the handed store join the transaction: seen inside, invisible to another connection until commit, undone by a rollback`, async () => {
  const { store, other, done } = await twoStores();
  try {
    store.tx((tx) => {
      queue(tx);
      assert.equal(tx.alerts.pendingCount(), 1, 'the handed store reads its own uncommitted write');
      assert.equal(other.alerts.pendingCount(), 0, 'another connection does not see it before COMMIT');
    });
    assert.equal(other.alerts.pendingCount(), 1, 'committed');
    assert.throws(
      () =>
        store.tx((tx) => {
          queue(tx);
          assert.equal(tx.alerts.pendingCount(), 2);
          throw new Error('abort');
        }),
      /^Error: abort$/,
    );
    assert.equal(store.alerts.pendingCount(), 1, 'the write made through the handed store was rolled back with the transaction');
  } finally {
    done();
  }
});

test(`${TEST_DRIVER}: a nested tx through the handed store is a savepoint: its rollback keeps the outer writes`, async () => {
  const { store, done } = await twoStores();
  try {
    const n = store.tx((tx) => {
      queue(tx);
      assert.throws(() =>
        tx.tx((inner) => {
          queue(inner, T0 + 1);
          assert.equal(inner.alerts.pendingCount(), 2);
          throw new Error('inner abort');
        }),
      );
      return tx.alerts.pendingCount();
    });
    assert.equal(n, 1);
    assert.equal(store.alerts.pendingCount(), 1);
  } finally {
    done();
  }
});

test(`${TEST_DRIVER}: the handed store, a module or a function taken from it throws a clear error once the transaction ended`, async () => {
  const { store, done } = await twoStores();
  try {
    let kept: Store | undefined;
    let module: Store['alerts'] | undefined;
    let count: (() => number) | undefined;
    store.tx((tx) => {
      kept = tx;
      module = tx.alerts;
      count = tx.alerts.pendingCount;
      assert.equal(count(), 0, 'works inside');
    });
    const ended = /store: the transaction-scoped store was used after its transaction ended \(store\.alerts(\.pendingCount(\(\))?)?\)/;
    assert.throws(() => kept!.alerts.pendingCount(), ended);
    assert.throws(() => module!.pendingCount(), ended);
    assert.throws(() => count!(), ended);
    assert.throws(() => queue(kept!), ended, 'no write slips out of the transaction either');
    assert.equal(store.alerts.pendingCount(), 0);
    // Also after a rolled-back transaction.
    assert.throws(() =>
      store.tx((tx) => {
        kept = tx;
        throw new Error('abort');
      }),
    );
    assert.throws(() => kept!.alerts.pendingCount(), ended);
    assert.equal(store.tx((tx) => tx.alerts.pendingCount()), 0, 'the store itself keeps working');
  } finally {
    done();
  }
});

test(`${TEST_DRIVER}: closing the store inside a transaction is refused`, async () => {
  const { store, done } = await twoStores();
  try {
    assert.throws(() => store.tx((tx) => tx.close()), /close\(\) inside a transaction/);
    assert.throws(() => store.tx(() => store.close()), /close\(\) inside a transaction/);
    assert.equal(store.alerts.pendingCount(), 0, 'still open');
  } finally {
    done();
  }
});
