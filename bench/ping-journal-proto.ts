/**
 * Experiment (issue 21, ping p99; docs/PERFORMANCE.md "Session 10"): would an append-only ping journal
 * bring Pharos's ping p99 within 1.2× of the no-store baseline, end to end? A node:http server like
 * bench/ping-baseline.ts; the pings of each event-loop turn are one transaction on a journal database
 * of their own (`journal.db`: one multi-row INSERT into a table without a secondary index; the
 * healthcheck found and numbered in memory), and `200 OK` goes out after its commit. There are two
 * journal files: every FOLD_MS the event loop switches to the other one, and a fold thread moves the
 * one it left into Pharos's schema in `pharos.db` — the ping rows, each healthcheck's counter and last
 * ping, the retention (100 per healthcheck) — and empties it, so the ping path never waits for a lock.
 * Not Pharos: no state machine, no events, no reads merging unfolded pings, no fold at start-up.
 *
 *   node --import tsx bench/ping-journal-proto.ts <port> <tokensFile> [nice]   (prints "ready"; nice: the fold
 *   thread's nice value, 0 by default)
 */
import { createServer, type ServerResponse } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { openDb, openDbFile } from '../src/store/db.ts';
import { createStore } from '../src/store/index.ts';

const FOLD_MS = 250;
const KEEP = 100;
const COLUMNS = 'healthcheck_id, n, at, kind, exit_code, method, source_ip, user_agent, body, duration_ms';

/** Opens the journal database with Pharos's pragmas; checkpoints are the fold thread's. */
function openJournal(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('wal_autocheckpoint = 0');
  db.exec(`CREATE TABLE IF NOT EXISTS ping_journal (id INTEGER PRIMARY KEY, healthcheck_id INTEGER NOT NULL, n INTEGER NOT NULL,
    at INTEGER NOT NULL, kind TEXT NOT NULL, exit_code INTEGER, method TEXT NOT NULL, source_ip TEXT, user_agent TEXT, body TEXT, duration_ms INTEGER)`);
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
    const rows = db.prepare(`INSERT INTO main.pings(${COLUMNS}) SELECT ${COLUMNS} FROM j${k}.ping_journal ORDER BY healthcheck_id, n`);
    const counters = db.prepare(
      `UPDATE main.healthchecks SET pings_total = x.n, last_ping_at = x.at
       FROM (SELECT healthcheck_id, max(n) AS n, max(at) AS at FROM j${k}.ping_journal GROUP BY healthcheck_id) AS x
       WHERE healthchecks.id = x.healthcheck_id`,
    );
    const prune = db.prepare(
      `DELETE FROM main.pings WHERE rowid IN (SELECT p.rowid FROM (SELECT DISTINCT healthcheck_id FROM j${k}.ping_journal) AS t
         JOIN main.healthchecks h ON h.id = t.healthcheck_id JOIN main.pings p ON p.healthcheck_id = t.healthcheck_id AND p.n <= h.pings_total - ?)`,
    );
    const forget = db.prepare(`DELETE FROM j${k}.ping_journal`);
    return () => {
      db.transaction(() => {
        rows.run();
        counters.run();
        prune.run(KEEP);
        forget.run();
      })();
      db.pragma(`j${k}.wal_checkpoint(TRUNCATE)`);
    };
  });
  parentPort!.on('message', (k: number) => {
    folds[k]!();
    parentPort!.postMessage(k);
  });
} else {
  const [port, file, nice] = [Number(process.argv[2]), process.argv[3]!, Number(process.argv[4] ?? 0)];
  const dir = mkdtempSync(join(tmpdir(), 'ping-journal-proto-'));
  // Pharos's schema and healthchecks (period 1 day, grace 1 hour), created through its store.
  const seed = openDb(dir);
  const store = createStore(seed);
  const tokens = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  store.tx(() => tokens.forEach((t, i) => store.healthchecks.insert(t, `hc_proto${i}`, { name: `job ${i}`, periodValue: 1, periodType: 'days', cron: null, timezone: 'UTC', graceValue: 1, graceType: 'hours', escalationPolicyUuid: null }, Date.now())));
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
    if (!s) inserts[current]!.set(size, (s = journals[current]!.prepare(`INSERT INTO ping_journal(${COLUMNS}) VALUES ${Array.from({ length: size }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`)));
    return s;
  };
  const answer = (res: ServerResponse, ok: boolean) => {
    res.writeHead(ok ? 200 : 404, { 'content-type': 'text/plain' });
    res.end(ok ? 'OK' : 'Not found');
  };
  let queue: Array<[token: string, at: number, res: ServerResponse]> = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const q = queue;
    queue = [];
    const params: unknown[] = [];
    const known = q.map(([token, at]) => {
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
    q.forEach(([, , res], i) => answer(res, known[i]!));
  };
  const server = createServer((req, res) => {
    req.resume();
    queue.push([req.url!.slice('/ping/'.length).split('/')[0]!, Date.now(), res]);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });
  server.keepAliveTimeout = 60_000;
  server.listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
  process.on('SIGTERM', () => process.exit(0));
}
