/**
 * What the ping experiments share (bench/ping-store-proto.ts, bench/ping-journal-proto.ts,
 * bench/ping-store-micro.ts; "Session 9" and "Session 10" in `git show 37139ec:docs/PERFORMANCE.md`): the healthchecks they
 * ping, the node:http server that answers a turn's pings after they were stored, and the SQL of the
 * append-only ping journal prototype. Not Pharos.
 */
import { createServer, type ServerResponse } from 'node:http';
import type Database from 'better-sqlite3';
import type { Store } from '../src/store/index.ts';

/** Pings of one event-loop turn: the token and the arrival time (epoch ms) of each. */
export type Batch = Array<[token: string, at: number]>;

/** Creates one healthcheck per token (period 1 day, grace 1 hour) through Pharos's store, in one transaction. */
export function seedHealthchecks(store: Store, tokens: readonly string[], publicPrefix: string): void {
  store.tx(() =>
    tokens.forEach((t, i) => store.healthchecks.insert(t, `${publicPrefix}${i}`, { name: `job ${i}`, periodValue: 1, periodType: 'days', cron: null, timezone: 'UTC', graceValue: 1, graceType: 'hours', escalationPolicyUuid: null }, Date.now())),
  );
}

/**
 * Serves `GET /ping/<token>` on 127.0.0.1:`port` like bench/ping-baseline.ts, but the pings of each
 * event-loop turn go to `store` as one batch (on the next `setImmediate`, the group commit of
 * core/ping-ingest.ts) and are answered — `200 OK`, or `404` for a ping `done` says was not stored —
 * only once `done` is called. Prints "ready" once listening; exits on SIGTERM.
 */
export function servePings(port: number, store: (batch: Batch, done: (stored: boolean[]) => void) => void): void {
  let queue: Array<[token: string, at: number, res: ServerResponse]> = [];
  let scheduled = false;
  const answer = (res: ServerResponse, ok: boolean) => {
    res.writeHead(ok ? 200 : 404, { 'content-type': 'text/plain' });
    res.end(ok ? 'OK' : 'Not found');
  };
  const flush = () => {
    scheduled = false;
    const q = queue;
    queue = [];
    store(
      q.map(([t, at]) => [t, at]),
      (stored) => q.forEach(([, , res], i) => answer(res, stored[i]!)),
    );
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

/** The columns of a ping row, in `pings` (migration 0002) and in the journal. */
export const PING_COLUMNS = 'healthcheck_id, n, at, kind, exit_code, method, source_ip, user_agent, body, duration_ms';

/** The journal: `pings`' columns in an append-only table without a secondary index. */
export const JOURNAL_TABLE_SQL = `CREATE TABLE IF NOT EXISTS ping_journal (id INTEGER PRIMARY KEY, healthcheck_id INTEGER NOT NULL,
  n INTEGER NOT NULL, at INTEGER NOT NULL, kind TEXT NOT NULL, exit_code INTEGER, method TEXT NOT NULL, source_ip TEXT,
  user_agent TEXT, body TEXT, duration_ms INTEGER)`;

/** A multi-row INSERT of `size` ping rows into the journal (10 parameters per row, {@link PING_COLUMNS}). */
export const journalInsertSql = (size: number): string =>
  `INSERT INTO ping_journal(${PING_COLUMNS}) VALUES ${Array.from({ length: size }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`;

/**
 * The fold of the journal in schema `journal` (`main`, or an attached one) into `main`'s `pings` and
 * `healthchecks`, in one transaction: every journal row copied into `pings` (ordered by healthcheck
 * and number), each pinged healthcheck's counter and last ping set from its newest journal row
 * (unless `counters` is false: the counter `UPDATE` already ran with each ping), its pings past the
 * newest `keep` dropped, the journal emptied.
 * @returns the fold; each call folds what the journal holds then
 */
export function journalFold(db: Database.Database, journal: string, keep: number, { counters = true } = {}): () => void {
  const rows = db.prepare(`INSERT INTO main.pings(${PING_COLUMNS}) SELECT ${PING_COLUMNS} FROM ${journal}.ping_journal ORDER BY healthcheck_id, n`);
  const count = db.prepare(
    `UPDATE main.healthchecks SET pings_total = x.n, last_ping_at = x.at
     FROM (SELECT healthcheck_id, max(n) AS n, max(at) AS at FROM ${journal}.ping_journal GROUP BY healthcheck_id) AS x
     WHERE healthchecks.id = x.healthcheck_id`,
  );
  const prune = db.prepare(
    `DELETE FROM main.pings WHERE rowid IN (SELECT p.rowid FROM (SELECT DISTINCT healthcheck_id FROM ${journal}.ping_journal) AS t
     JOIN main.healthchecks h ON h.id = t.healthcheck_id JOIN main.pings p ON p.healthcheck_id = t.healthcheck_id AND p.n <= h.pings_total - ?)`,
  );
  const forget = db.prepare(`DELETE FROM ${journal}.ping_journal`);
  return db.transaction(() => {
    rows.run();
    if (counters) count.run();
    prune.run(keep);
    forget.run();
  });
}
