import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { openDb, openDbFile, type SqliteDb } from '../../../src/store/db.ts';
import { FALLBACK_AUTOCHECKPOINT } from '../../../src/store/checkpointer.ts';
import { walSequence, type RestartRule } from '../../../src/store/wal-restarts.ts';
import { tempDir } from '../../support/pharos.ts';
import { waitFor } from '../../support/process.ts';

// Issue 21: WAL checkpoints run on a worker thread with its own connection (store/checkpointer.ts);
// the main connection never checkpoints while the worker runs, and gets SQLite's autocheckpoint back
// when the worker cannot start or dies.

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A data dir with pharos.db opened with a checkpoint worker (small bound, short interval), and the lines it warned. */
function open(opts: { restartPages?: number; nativeBinding?: object; startAt?: RestartRule[]; now?: () => number } = {}) {
  const dir = tempDir();
  const warned: string[] = [];
  const told: string[] = [];
  const db = openDb(dir, undefined, opts.nativeBinding, { warn: (l) => warned.push(l), info: (l) => told.push(l), intervalMs: 20, restartPages: opts.restartPages ?? 256, startAt: opts.startAt, now: opts.now });
  cleanups.push(() => {
    if (db.sqlite.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  db.exec('CREATE TABLE blobs (b BLOB NOT NULL)');
  return { db, warned, told, file: join(dir, 'pharos.db'), wal: join(dir, 'pharos.db-wal') };
}

const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);
const pageSize = (db: SqliteDb) => db.sqlite.pragma('page_size', { simple: true }) as number;

/**
 * The worker's figures after a whole pass that began after this call: its passes are counted once
 * their figures are stored and run one after the other, so the second one counted from now began
 * after now (the first may have been under way). No race with a pass in flight.
 */
async function passAfterNow(db: SqliteDb): Promise<ReturnType<NonNullable<SqliteDb['checkpointer']>['stats']>> {
  const from = db.checkpointer!.stats().passes;
  await waitFor('two more passes of the checkpoint worker', async () => db.checkpointer!.stats().passes >= from + 2);
  return db.checkpointer!.stats();
}

/** Writes `pages` pages of blobs in one transaction (one commit: all of it in the WAL at once). */
function writePages(db: SqliteDb, pages: number): void {
  const insert = db.sqlite.prepare('INSERT INTO blobs (b) VALUES (randomblob(?))');
  db.tx(() => {
    for (let i = 0; i < pages; i++) insert.run(pageSize(db) - 100);
  });
}

test('the worker checkpoints the WAL and truncates it at 4× its bound; the main connection runs with wal_autocheckpoint = 0', async () => {
  const { db, warned, file, wal } = open({ restartPages: 256 });
  await waitFor('the checkpoint worker to be running', async () => db.checkpointer!.mode === 'running');
  assert.equal(db.sqlite.pragma('wal_autocheckpoint', { simple: true }), 0, 'the main connection never checkpoints by itself');
  assert.equal(db.sqlite.pragma('journal_size_limit', { simple: true }), 2 * 256 * pageSize(db));
  // What the migrations wrote may still be in the WAL, and a pass may copy it at any moment: wait
  // for a whole pass that began after every write so far (nothing is written meanwhile, no reader),
  // which copies the whole WAL, so the file's size holds from then on.
  const settled = await passAfterNow(db);
  assert.equal(settled.copiedPages, settled.walPages, 'a pass with no reader copies the whole WAL');
  const before = size(file);

  // A reader's snapshot from before the write keeps every checkpoint from copying what follows, so
  // what the commit itself did can be seen: 2,000 pages in one commit, where SQLite's autocheckpoint
  // (1,000 pages) would have copied them into the database inside that commit.
  const reader = openDbFile(file);
  reader.sqlite.exec('BEGIN');
  reader.sqlite.prepare('SELECT count(*) FROM blobs').get();
  writePages(db, 2000);
  assert.ok(size(wal) >= 2000 * pageSize(db), `the commit left the WAL holding the pages (${size(wal)} bytes)`);
  assert.equal(size(file), before, 'the commit itself copied nothing into the database file');
  reader.sqlite.exec('COMMIT');
  reader.close();

  await waitFor('the worker to copy the WAL into the database and truncate the WAL', async () => size(wal) === 0 && db.checkpointer!.stats().restarts >= 1);
  assert.ok(size(file) >= before + 2000 * pageSize(db), `the database file holds the pages (${size(file)} bytes)`);
  assert.ok(db.checkpointer!.stats().passes >= 1);
  assert.equal((db.sqlite.prepare('SELECT count(*) AS n FROM blobs').get() as { n: number }).n, 2000);
  assert.deepEqual(warned, []);
});

/** Makes the WAL start over once: a checkpoint copies all of it (no reader), the next commit writes it from its first frame. */
function restartWal(db: SqliteDb, wal: string): void {
  const before = walSequence(wal);
  db.sqlite.pragma('wal_checkpoint(PASSIVE)');
  writePages(db, 2);
  assert.equal(walSequence(wal), (before ?? 0) + 1, 'the WAL started over');
}

/** Waits for two more looks at the WAL (every WAL_LOOK_MS), so the one after now has seen every write so far. */
async function twoLooks(db: SqliteDb): Promise<void> {
  const from = db.checkpointer!.walLooks;
  await waitFor('two more looks at the WAL', async () => db.checkpointer!.walLooks >= from + 2);
}

test('with startAt the worker waits (SQLite autocheckpoint meanwhile) until the WAL started over as often as a rule says, then runs (issue 38: no thread while it writes little)', async () => {
  const { db, warned, told, wal } = open({ startAt: [{ restarts: 3, withinMs: 60_000 }] });
  assert.equal(db.checkpointer!.mode, 'waiting');
  assert.equal(db.sqlite.pragma('wal_autocheckpoint', { simple: true }), FALLBACK_AUTOCHECKPOINT, 'SQLite checkpoints by itself while no worker runs');
  writePages(db, 1500); // past SQLite's 1,000 pages: many pages alone start no thread
  restartWal(db, wal);
  restartWal(db, wal);
  await twoLooks(db);
  assert.equal(db.checkpointer!.mode, 'waiting', 'two starts over of three: no worker');
  assert.deepEqual(told, []);
  restartWal(db, wal);
  await waitFor('the checkpoint worker to be running', async () => db.checkpointer!.mode === 'running');
  assert.equal(db.sqlite.pragma('wal_autocheckpoint', { simple: true }), 0);
  assert.deepEqual(warned, []);
  assert.equal(told.length, 1, 'one operator line says why the thread started');
  assert.match(told[0]!, /^WAL checkpoints: SQLite's own checkpoints on the main thread, 3 within 1min; a thread of its own checkpoints from now on$/);
});

test("with startAt only starts over within the rule's window count: older ones do not start the worker", async () => {
  let clock = 0;
  const { db, wal } = open({ startAt: [{ restarts: 2, withinMs: 60_000 }], now: () => clock });
  restartWal(db, wal);
  await twoLooks(db);
  clock += 60_001;
  restartWal(db, wal);
  await twoLooks(db);
  assert.equal(db.checkpointer!.mode, 'waiting', 'one start over in the last minute (the other is older): no worker');
  restartWal(db, wal);
  await waitFor('the checkpoint worker to be running', async () => db.checkpointer!.mode === 'running');
});

test('close while the worker waits for the WAL: no thread was started, the WAL is checkpointed away', () => {
  const { db, wal } = open({ startAt: [{ restarts: 100_000, withinMs: 60_000 }] });
  writePages(db, 10);
  db.close();
  assert.equal(db.checkpointer!.mode, 'stopped');
  assert.equal(existsSync(wal), false);
});

test('below the bound the worker checkpoints passively: the WAL restarts from its start instead of growing', async () => {
  const { db, wal } = open({ restartPages: 100_000 });
  await waitFor('the checkpoint worker to be running', async () => db.checkpointer!.mode === 'running');
  writePages(db, 300);
  const high = size(wal);
  // Once the worker has copied every frame, the next commit writes the WAL from its first frame
  // again (the file does not grow): SQLite restarts a WAL that is wholly checkpointed.
  const copied = await passAfterNow(db);
  assert.ok(copied.walPages >= 300 && copied.copiedPages === copied.walPages, `a passive checkpoint of the worker copied the whole WAL (${JSON.stringify(copied)})`);
  for (let i = 0; i < 5; i++) writePages(db, 50);
  assert.equal(size(wal), high, 'later commits reuse the WAL file from its start');
  assert.equal(db.checkpointer!.stats().restarts, 0);
});

test('at its bound the worker makes the WAL start over (RESTART), without truncating the file', async () => {
  const { db, wal } = open({ restartPages: 1000 });
  await waitFor('the checkpoint worker to be running', async () => db.checkpointer!.mode === 'running');
  writePages(db, 1500);
  await waitFor('a RESTART checkpoint of the worker', async () => db.checkpointer!.stats().restarts >= 1);
  const high = size(wal);
  assert.ok(high >= 1500 * pageSize(db), 'a RESTART leaves the file as it is (below 4× the bound)');
  for (let i = 0; i < 5; i++) writePages(db, 50);
  assert.equal(size(wal), high, 'the next commits write the WAL from its start');
});

test('one SQLite library in the process: the worker loads the addon file the main thread loaded', async () => {
  const { db } = open();
  await waitFor('the checkpoint worker to be running', async () => db.checkpointer!.mode === 'running');
  const addons = new Set(
    readFileSync('/proc/self/maps', 'utf8')
      .split('\n')
      .map((l) => l.slice(l.indexOf('/')))
      .filter((p) => /sqlite3?[^/]*\/.*\.node$|sqlite3[^/]*\.node$/.test(p)),
  );
  assert.equal(addons.size, 1, [...addons].join(', '));
});

test('when the worker dies the main connection falls back to SQLite autocheckpoint, with one line', async () => {
  const { db, warned, file, wal } = open({ restartPages: 100_000 });
  await waitFor('the checkpoint worker to be running', async () => db.checkpointer!.mode === 'running');
  await db.checkpointer!.killForTests();
  assert.equal(db.checkpointer!.mode, 'fallback');
  assert.equal(db.sqlite.pragma('wal_autocheckpoint', { simple: true }), FALLBACK_AUTOCHECKPOINT);
  assert.equal(warned.length, 1, warned.join('\n'));
  assert.match(warned[0]!, /^WAL checkpoints: the checkpoint worker stopped \(.*\); SQLite checkpoints on the main thread again \(every 1000 WAL pages\)$/);

  // Now the commit that passes 1,000 WAL pages checkpoints itself: the database file holds the pages
  // as soon as it returns.
  const before = size(file);
  writePages(db, 1200);
  assert.ok(size(file) >= before + 1200 * pageSize(db), `the commit checkpointed (${size(file)} bytes, WAL ${size(wal)})`);
  db.close();
  assert.equal(existsSync(wal), false, 'close checkpoints and removes the WAL');
});

test('a worker that cannot load the same addon file is not started: autocheckpoint stays, one line', () => {
  // The addon better-sqlite3 uses (the file build.sh ships), loaded directly: not by lib/sea.ts, so its file is unknown.
  const addon = { exports: {} as object };
  process.dlopen(addon, join(dirname(createRequire(import.meta.url).resolve('better-sqlite3')), '..', 'prebuilds', `linux-${process.arch}.node`));
  const { db, warned } = open({ nativeBinding: addon.exports });
  assert.equal(db.checkpointer!.mode, 'fallback');
  assert.equal(db.sqlite.pragma('wal_autocheckpoint', { simple: true }), FALLBACK_AUTOCHECKPOINT);
  assert.deepEqual(warned, ['WAL checkpoints: the checkpoint worker cannot start: the file of the loaded SQLite addon is unknown; SQLite checkpoints on the main thread again (every 1000 WAL pages)']);
});

test('close stops the worker, checkpoints and removes the WAL; the data is there on the next open', async () => {
  const { db, file, wal } = open({ restartPages: 100_000 });
  await waitFor('the checkpoint worker to be running', async () => db.checkpointer!.mode === 'running');
  writePages(db, 500);
  db.close();
  assert.equal(db.checkpointer!.mode, 'stopped');
  assert.equal(existsSync(wal), false, 'the main connection closed last: SQLite checkpointed and deleted the WAL');
  const again = openDbFile(file);
  try {
    assert.equal((again.sqlite.prepare('SELECT count(*) AS n FROM blobs').get() as { n: number }).n, 500);
  } finally {
    again.close();
  }
});

test('close right after open, while the worker is still starting, leaves no WAL behind', () => {
  const { db, wal } = open();
  db.close();
  assert.equal(db.checkpointer!.mode, 'stopped');
  assert.equal(existsSync(wal), false);
});

test('an in-memory database gets no worker', () => {
  const db = openDbFile(':memory:', undefined, undefined, { warn: () => assert.fail('no worker, no warning') });
  assert.equal(db.checkpointer, undefined);
  db.close();
});
