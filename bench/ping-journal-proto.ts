/**
 * Experiment (issue 21, ping p99; "Session 10" in `git show 37139ec:docs/PERFORMANCE.md`): would an append-only ping journal
 * bring Pharos's ping p99 within 1.2× of the no-store baseline, end to end? A node:http server like
 * bench/ping-baseline.ts; the pings of each event-loop turn are one transaction on a journal database
 * of their own (one multi-row INSERT into a table without a secondary index; the
 * healthcheck found and numbered in memory), and `200 OK` goes out after its commit. There are two
 * journal files: every FOLD_MS the event loop switches to the other one, and a fold thread moves the
 * one it left into Pharos's schema in `pharos.db` — the ping rows, each healthcheck's counter and last
 * ping, the retention (100 per healthcheck) — and empties it, so the ping path never waits for a lock.
 * Not Pharos: no state machine, no events, no reads merging unfolded pings, no fold at start-up.
 *
 *   node --import tsx bench/ping-journal-proto.ts <port> <tokensFile> [nice]   (prints "ready"; nice: the fold
 *   thread's nice value, 0 by default)
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { openDb, openDbFile } from '../src/store/db.ts';
import { createStore } from '../src/store/index.ts';
import { JOURNAL_TABLE_SQL, journalFold, journalInsertSql, seedHealthchecks, servePings } from './ping-protos.ts';
import { benchArgs } from './args.ts';

const FOLD_MS = 250;
const KEEP = 100;

/** Opens a journal database the way Pharos opens its own (openDbFile: WAL, synchronous=NORMAL), no schema but the journal; checkpoints are the fold thread's. */
function openJournal(file: string): Database.Database {
  const db = openDbFile(file, []).sqlite;
  db.pragma('wal_autocheckpoint = 0');
  db.exec(JOURNAL_TABLE_SQL);
  return db;
}

if (!isMainThread) {
  // The fold thread: pharos.db through Pharos's own opening (its checkpoints inside these commits, off
  // the event loop), both journals attached. It folds the journal the main thread has just left.
  const { dbFile, journalFiles, nice } = workerData as { dbFile: string; journalFiles: string[]; nice: number };
  // On Linux, priority 0 = the calling thread: with a positive nice value the fold yields the CPU to
  // the event loop (and anything else) whenever both want it.
  if (nice) setPriority(0, nice);
  const db = openDbFile(dbFile).sqlite;
  journalFiles.forEach((f, k) => db.exec(`ATTACH DATABASE '${f}' AS j${k}`));
  const folds = journalFiles.map((_, k) => {
    const fold = journalFold(db, `j${k}`, KEEP);
    return () => {
      fold();
      db.pragma(`j${k}.wal_checkpoint(TRUNCATE)`);
    };
  });
  parentPort!.on('message', (k: number) => {
    folds[k]!();
    parentPort!.postMessage(k);
  });
} else {
  const { positionals } = benchArgs({
    about: 'Experiment (not Pharos): a node:http ping server appending pings to a journal database, folded into the schema by a thread (prints "ready").',
    positionals: [
      { name: 'port', help: 'the port to listen on' },
      { name: 'tokensFile', help: 'one token per line' },
      { name: 'nice', help: "the fold thread's nice value (0 by default, 0–19)", optional: true },
    ],
    options: {},
  });
  const [port, file, nice] = [Number(positionals[0]), positionals[1]!, Number(positionals[2] ?? 0)];
  const dir = mkdtempSync(join(tmpdir(), 'ping-journal-proto-'));
  // Pharos's schema and healthchecks (period 1 day, grace 1 hour), created through its store.
  const seed = openDb(dir);
  const store = createStore(seed);
  const tokens = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  seedHealthchecks(store, tokens, 'hc_proto');
  const idOf = new Map(store.healthchecks.list().map((h) => [h.uuid, h.id]));
  const counted = new Map<number, number>();
  seed.close();
  // Two journals: the event loop appends to one while the fold thread empties the other, so neither
  // ever waits for the other's lock.
  const journalFiles = [join(dir, 'journal-0.db'), join(dir, 'journal-1.db')];
  const journals = journalFiles.map(openJournal);
  let current = 0;
  let folding = false;
  const worker = new Worker(new URL(import.meta.url), { workerData: { dbFile: join(dir, 'pharos.db'), journalFiles, nice }, execArgv: ['--import', 'tsx'] });
  worker.on('message', () => (folding = false));
  setInterval(() => {
    if (folding) return;
    folding = true;
    worker.postMessage(current);
    current = 1 - current;
  }, FOLD_MS);

  const inserts = journals.map(() => new Map<number, Database.Statement>());
  const insertOf = (size: number) => {
    let s = inserts[current]!.get(size);
    if (!s) inserts[current]!.set(size, (s = journals[current]!.prepare(journalInsertSql(size))));
    return s;
  };
  servePings(port, (batch, done) => {
    const params: unknown[] = [];
    const known = batch.map(([token, at]) => {
      const id = idOf.get(token);
      if (id === undefined) return false;
      const n = (counted.get(id) ?? 0) + 1;
      counted.set(id, n);
      params.push(id, n, at, 'success', null, 'GET', '127.0.0.1', null, null, null);
      return true;
    });
    if (params.length > 0) {
      const journal = journals[current]!;
      journal.exec('BEGIN IMMEDIATE');
      insertOf(params.length / 10).run(...params);
      journal.exec('COMMIT');
    }
    done(known);
  });
}
