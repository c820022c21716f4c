/**
 * Bench (issue 21, ping p99): what storing one ping costs, in-process, without HTTP — and how much
 * of it depends on the order in which healthchecks are pinged. 10,000 healthchecks (period 1 day);
 * pings in batches of `--batch`, one `BEGIN IMMEDIATE` transaction per batch (the group commit of
 * core/ping-ingest.ts), as fast as they go, on a fresh file-backed database (`openDb` with the
 * checkpoint worker, as `pharos serve`). `--warm` pings first (100 per healthcheck fills the
 * retention, so every later ping prunes one), then `--pings` measured. Modes:
 *
 *   store     Pharos's own store calls per ping: `healthchecks.get` by token, `countPing`, and the
 *             batch's `insertPings` (keeping `--keep` per healthcheck)
 *   memory    as `store`, the healthcheck taken from a Map instead of read by token
 *   journal   the prototype of an append-only ping journal: one multi-row INSERT per batch into a
 *             table without a secondary index; with `--fold N`, every N pings the journal is moved
 *             into `pings` and the `healthchecks` rows in one transaction (not Pharos)
 *   counted-journal  a journal that keeps the healthchecks exact: per ping Pharos's read and counter
 *             `UPDATE` as in `store`, the ping rows appended to the journal in the same transaction; the
 *             fold moves rows and prunes, nothing else (no ping state to merge into reads)
 *
 *   node --import tsx bench/ping-store-micro.ts [--mode store] [--order random|sequential] [--batch 20]
 *        [--warm 100000] [--pings 400000] [--keep 100] [--fold 0] [--cache-size -2000] [--without-rowid] [--page-size 4096]
 *
 * Prints per ping: wall µs, main-thread CPU µs (and its kernel part), process CPU µs (all threads:
 * the checkpoint worker too), and for `--fold` the longest fold in ms. See "Session 10" in
 * `git show 37139ec:docs/PERFORMANCE.md`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './args.ts';
import Database from 'better-sqlite3';
import type { Healthcheck } from '../src/domain/healthcheck.ts';
import type { Ping, StoredPing } from '../src/domain/ping.ts';
import { openDb } from '../src/store/db.ts';
import { createStore } from '../src/store/index.ts';
import { JOURNAL_TABLE_SQL, journalFold, journalInsertSql, seedHealthchecks } from './ping-protos.ts';

const { values: opt } = benchArgs({
  about: 'What storing one ping costs in-process, without HTTP, and how much depends on the order healthchecks are pinged (10,000 healthchecks).',
  options: {
    mode: { type: 'string', default: 'store', help: 'store, memory, journal or counted-journal' },
    order: { type: 'string', default: 'random', help: 'random or sequential' },
    batch: { type: 'string', default: '20', help: 'pings per transaction' },
    warm: { type: 'string', default: '100000', help: 'pings before the measured ones' },
    pings: { type: 'string', default: '400000', help: 'pings measured' },
    keep: { type: 'string', default: '100', help: 'pings kept per healthcheck' },
    fold: { type: 'string', default: '0', help: 'journal modes: fold the journal every N pings (0: never)' },
    'cache-size': { type: 'string', help: 'SQLite cache_size pragma, e.g. -2000' },
    'without-rowid': { type: 'boolean', help: 'make the pings table WITHOUT ROWID' },
    'page-size': { type: 'string', help: 'SQLite page_size, e.g. 4096' },
  },
});
const N = 10_000;
const BATCH = Number(opt.batch);
const FOLD = Number(opt.fold);
const KEEP = Number(opt.keep);
if (!['store', 'memory', 'journal', 'counted-journal'].includes(opt.mode!)) throw new Error('--mode: store, memory, journal or counted-journal');
if (opt.order !== 'random' && opt.order !== 'sequential') throw new Error('--order: random or sequential');
/** Creation order, or a fixed scatter (7919 is prime, so every healthcheck comes once per N pings). */
const STRIDE = opt.order === 'random' ? 7919 : 1;

const dir = mkdtempSync(join(tmpdir(), 'ping-store-micro-'));
if (opt['page-size']) {
  // A database file whose pages are this size (fixed once the first table exists), then Pharos's schema.
  const raw = new Database(join(dir, 'pharos.db'));
  raw.pragma(`page_size = ${Number(opt['page-size'])}`);
  raw.exec('CREATE TABLE page_size_probe(x); DROP TABLE page_size_probe;');
  raw.close();
}
const db = openDb(dir, undefined, undefined, { warn: (line) => process.stderr.write(`${line}\n`) });
const sqlite = db.sqlite;
if (opt['cache-size']) sqlite.pragma(`cache_size = ${Number(opt['cache-size'])}`);
if (opt['without-rowid']) {
  sqlite.exec(`DROP TABLE pings; CREATE TABLE pings (
    healthcheck_id INTEGER NOT NULL REFERENCES healthchecks(id) ON DELETE CASCADE, n INTEGER NOT NULL,
    at INTEGER NOT NULL, kind TEXT NOT NULL, exit_code INTEGER, method TEXT NOT NULL, source_ip TEXT,
    user_agent TEXT, body TEXT, duration_ms INTEGER, PRIMARY KEY (healthcheck_id, n)) WITHOUT ROWID`);
}
const store = createStore(db);
const tokens = Array.from({ length: N }, (_, i) => `tok_micro${String(i).padStart(10, '0')}`);
seedHealthchecks(store, tokens, 'hc_micro');
const inMemory = new Map<string, Healthcheck>(tokens.map((t) => [t, store.healthchecks.get(t)!]));

// The journal prototype's table, statement and fold.
sqlite.exec(JOURNAL_TABLE_SQL);
const journalInsert = sqlite.prepare(journalInsertSql(BATCH));
const fold = journalFold(sqlite, 'main', KEEP, { counters: opt.mode !== 'counted-journal' });
const counted = new Int32Array(N + 1);

let k = 0;
let sinceFold = 0;
let longestFoldMs = 0;
const nextIndex = () => (k++ * STRIDE) % N;
const ping = (): Ping => ({ kind: 'success', exitCode: null, at: Date.now(), method: 'GET', sourceIp: '127.0.0.1', userAgent: 'curl/8.0', body: null });

/** One batch through Pharos's store (modes store and memory). */
function storeBatch(): void {
  store.tx(() => {
    const applied: Array<{ healthcheckId: number; stored: StoredPing }> = [];
    for (let j = 0; j < BATCH; j++) {
      const token = tokens[nextIndex()]!;
      const hc = opt.mode === 'memory' ? inMemory.get(token)! : store.healthchecks.get(token)!;
      const p = ping();
      const r = store.healthchecks.countPing(hc, p, { status: 'up', clockStartAt: p.at });
      if (opt.mode === 'memory') inMemory.set(token, r.healthcheck);
      applied.push({ healthcheckId: hc.id, stored: r.stored });
    }
    store.healthchecks.insertPings(applied, KEEP);
  });
}

/** One batch into the journal (counted in memory, or by Pharos's counter UPDATE); every FOLD pings, the fold. */
function journalBatch(): void {
  const params: unknown[] = [];
  const countedByStore = opt.mode === 'counted-journal';
  sqlite.exec('BEGIN IMMEDIATE');
  for (let j = 0; j < BATCH; j++) {
    const token = tokens[nextIndex()]!;
    const p = ping();
    if (countedByStore) {
      const hc = store.healthchecks.get(token)!;
      const { stored } = store.healthchecks.countPing(hc, p, { status: 'up', clockStartAt: p.at });
      params.push(hc.id, stored.n, p.at, p.kind, p.exitCode, p.method, p.sourceIp, p.userAgent, p.body, null);
    } else {
      const id = inMemory.get(token)!.id;
      params.push(id, ++counted[id]!, p.at, p.kind, p.exitCode, p.method, p.sourceIp, p.userAgent, p.body, null);
    }
  }
  journalInsert.run(...params);
  sqlite.exec('COMMIT');
  sinceFold += BATCH;
  if (FOLD > 0 && sinceFold >= FOLD) {
    const t0 = performance.now();
    fold();
    longestFoldMs = Math.max(longestFoldMs, performance.now() - t0);
    sinceFold = 0;
  }
}

const run = (pings: number) => {
  for (let done = 0; done < pings; done += BATCH) (opt.mode!.endsWith('journal') ? journalBatch : storeBatch)();
};
run(Number(opt.warm));
longestFoldMs = 0;
const P = Number(opt.pings);
const process0 = process.cpuUsage();
const main0 = process.threadCpuUsage();
const t0 = performance.now();
run(P);
const wallUs = (performance.now() - t0) * 1000;
const main = process.threadCpuUsage(main0);
const all = process.cpuUsage(process0);
const per = (us: number) => (us / P).toFixed(2);
console.log(
  `page size ${sqlite.pragma('page_size', { simple: true })} B, ${opt.mode}${opt['without-rowid'] ? ' (pings WITHOUT ROWID)' : ''}${FOLD ? ` fold ${FOLD}` : ''}, ${opt.order} order, batch ${BATCH}, ${opt.warm} warm-up + ${P} pings, keep ${KEEP}: ` +
    `wall ${per(wallUs)} µs/ping, main-thread CPU ${per(main.user + main.system)} (kernel ${per(main.system)}), process CPU ${per(all.user + all.system)}` +
    (FOLD ? `, longest fold ${longestFoldMs.toFixed(1)} ms` : ''),
);
db.close();
rmSync(dir, { recursive: true, force: true });
