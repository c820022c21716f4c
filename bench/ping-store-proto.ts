/**
 * Experiment (issue 21, ping p99): how much of Pharos's gap to the no-store baseline would moving
 * the ping writes off the event loop close? A node:http ping server like bench/ping-baseline.ts
 * that also stores every ping through Pharos's own store (src/store, its schema and statements): the
 * healthcheck read by token, the counter UPDATE, the ping row (multi-row INSERT), one transaction
 * per event-loop turn (group commit), `200 OK` only after the commit. Three modes:
 *   main   — the transaction runs on the event loop, WAL checkpoints on Pharos's checkpoint worker
 *            (what `pharos serve` does today);
 *   rows   — as `main` without the healthcheck's counter UPDATE (numbers counted in memory): what a
 *            schema that derives a healthcheck's last ping from its ping rows would write;
 *   thread — the same transaction runs on a worker thread with its own connection (its checkpoints
 *            inside its commits); the event loop only parses, batches and answers.
 * Not Pharos: no state machine, no events, no deadlines. It measures the SQL's place, nothing else.
 *
 *   node --import tsx bench/ping-store-proto.ts <port> <tokensFile> main|rows|thread   (prints "ready")
 */
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { Ping, StoredPing } from '../src/domain/ping.ts';
import { openDb, openDbFile } from '../src/store/db.ts';
import { createStore, type Store } from '../src/store/index.ts';
import { seedHealthchecks, servePings, type Batch } from './ping-protos.ts';
import { benchArgs } from './args.ts';

/**
 * Pharos's ping writes through its own store (src/store/healthchecks.ts): the healthcheck read by
 * token, the counter `UPDATE` (`countPing`), the rows' multi-row `INSERT` (`insertPings`, keeping the
 * default 100 per healthcheck), one `BEGIN IMMEDIATE` transaction per batch. `rowOnly` skips the
 * counter `UPDATE` (numbers counted in memory). Returns, per ping, whether it was stored.
 */
function pingWriter(store: Store, rowOnly = false) {
  const counted = new Map<number, number>();
  return (batch: Batch): boolean[] =>
    store.tx(() => {
      const applied: Array<{ healthcheckId: number; stored: StoredPing }> = [];
      const out = batch.map(([token, at]) => {
        const hc = store.healthchecks.get(token);
        if (!hc) return false;
        const ping: Ping = { kind: 'success', exitCode: null, at, method: 'GET', sourceIp: '127.0.0.1', userAgent: null, body: null };
        let stored: StoredPing;
        if (rowOnly) {
          const n = (counted.get(hc.id) ?? hc.pingsTotal) + 1;
          counted.set(hc.id, n);
          stored = { ...ping, n, durationMs: null };
        } else stored = store.healthchecks.countPing(hc, ping, { status: 'up', clockStartAt: at }).stored;
        applied.push({ healthcheckId: hc.id, stored });
        return true;
      });
      store.healthchecks.insertPings(applied, 100);
      return out;
    });
}

if (!isMainThread) {
  // The writer thread's own connection, Pharos's pragmas; its WAL checkpoints run inside its commits
  // (SQLite's autocheckpoint), which is off the event loop here.
  const write = pingWriter(createStore(openDbFile(workerData as string)));
  parentPort!.on('message', (m: { id: number; batch: Batch }) => parentPort!.postMessage({ id: m.id, stored: write(m.batch) }));
} else {
  const { positionals } = benchArgs({
    about: "Experiment (not Pharos): a node:http ping server storing every ping through Pharos's store, one transaction per event-loop turn, on the event loop or a worker thread (prints \"ready\").",
    positionals: [
      { name: 'port', help: 'the port to listen on' },
      { name: 'tokensFile', help: 'one token per line' },
      { name: 'main|rows|thread', help: 'where and what it writes (main by default)', optional: true },
    ],
    options: {},
  });
  const [port, file, mode] = [Number(positionals[0]), positionals[1]!, positionals[2] ?? 'main'];
  // Pharos's schema, its healthchecks created through its store (period 1 day, grace 1 hour).
  // In `main` mode this connection is the writer, with Pharos's checkpoint worker as in `pharos serve`.
  const dir = mkdtempSync(join(tmpdir(), 'ping-proto-'));
  const seed = openDb(dir, undefined, undefined, mode !== 'thread' ? { warn: (line) => process.stderr.write(`${line}\n`) } : undefined);
  const store = createStore(seed);
  const tokens = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  seedHealthchecks(store, tokens, 'hc_proto');
  const dbFile = join(dir, 'pharos.db');
  if (mode === 'thread') seed.close();

  let send: (batch: Batch, done: (stored: boolean[]) => void) => void;
  if (mode === 'thread') {
    const worker = new Worker(new URL(import.meta.url), { workerData: dbFile, execArgv: ['--import', 'tsx'] });
    const waiting = new Map<number, (stored: boolean[]) => void>();
    let next = 0;
    worker.on('message', (m: { id: number; stored: boolean[] }) => {
      waiting.get(m.id)!(m.stored);
      waiting.delete(m.id);
    });
    send = (batch, done) => {
      waiting.set(++next, done);
      worker.postMessage({ id: next, batch });
    };
  } else {
    const write = pingWriter(store, mode === 'rows');
    send = (batch, done) => done(write(batch));
  }
  servePings(port, send);
}
