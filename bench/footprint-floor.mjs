/**
 * The footprint floor (issue 38 point 1): the least a Node process holds to do Pharos's job without
 * Pharos — Node 24, better-sqlite3 on a WAL file and a hono server (@hono/node-server) answering
 * `/healthz`; with N > 0 also N HTTP checks every `freq` seconds (one `setTimeout` each, phased over
 * the period; a GET on a fresh connection, as Pharos checks, `connection: close`), each result one
 * INSERT. bench/footprint.ts measures Pharos beside it in the same run.
 * Usage: node bench/footprint-floor.mjs <port> <dbFile> [n freqSeconds baseUrl|origins:PORT]; prints
 * `ready` once listening; SIGTERM exits.
 *
 * Plain JavaScript on purpose: Node's own TypeScript stripping (what runs the other bench children)
 * loads a WebAssembly compiler that alone holds ~23 MB of RSS (a floor of 93 instead of 70 MB), and
 * bench/args.ts is TypeScript, so the arguments are read here by hand.
 */
import { request } from 'node:http';
import Database from 'better-sqlite3';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
const positionals = process.argv.slice(2);
if (positionals.includes('--help') || positionals.includes('-h') || positionals.length < 2) {
  process.stdout.write(`Usage: node bench/footprint-floor.mjs <port> <dbFile> [n] [freqSeconds] [baseUrl|origins:PORT]

Footprint floor: Node + better-sqlite3 + a hono server; with n > 0, n HTTP checks every freq seconds
on fresh connections, one INSERT each. Prints "ready"; SIGTERM exits.

Arguments:
  <port>                  the port the hono server listens on (127.0.0.1)
  <dbFile>                the SQLite file (WAL) to open
  [n]                     HTTP checks to run (0: idle, the default)
  [freqSeconds]           seconds between checks of one URL (10)
  [baseUrl|origins:PORT]  a base URL, or origins:PORT for one distinct origin per check
`);
  process.exit(positionals.length < 2 && !positionals.some((a) => a.startsWith('-')) ? 2 : 0);
}
/** bench/origins-lib.ts's originAddress (TypeScript, so not imported): 127.2.x.y, 250 per /24. */
const originAddress = (i) => `127.2.${Math.floor(i / 250)}.${(i % 250) + 1}`;
const [port, dbFile] = [Number(positionals[0]), positionals[1]];
const n = Number(positionals[2] ?? 0);
const periodMs = Number(positionals[3] ?? 10) * 1000;
const target = positionals[4] ?? '';

const db = new Database(dbFile);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE IF NOT EXISTS results (monitor INTEGER NOT NULL, at INTEGER NOT NULL, ok INTEGER NOT NULL, ms INTEGER NOT NULL, PRIMARY KEY (monitor, at)) WITHOUT ROWID');
const insert = db.prepare('INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?)');

const app = new Hono();
app.get('/healthz', (c) => c.json({ status: 'ok', results: db.prepare('SELECT count(*) AS n FROM results').get().n }));
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => process.stdout.write('ready\n'));

const originsPort = target.startsWith('origins:') ? Number(target.slice('origins:'.length)) : null;
const base = originsPort === null && target ? new URL(target) : null;

/** One check: GET on a fresh connection, its body read, then one INSERT. */
/** @param {number} i */
function check(i) {
  const started = Date.now();
  const host = originsPort === null ? base.hostname : originAddress(i);
  const req = request({ host, port: originsPort ?? base.port, path: `/m/${i}`, agent: false, headers: { connection: 'close' }, timeout: 10_000 }, (res) => {
    res.resume();
    res.once('end', () => insert.run(i, started, res.statusCode === 200 ? 1 : 0, Date.now() - started));
  });
  req.once('timeout', () => req.destroy());
  req.once('error', () => insert.run(i, started, 0, Date.now() - started));
  req.end();
}

/** @param {number} i @param {number} due */
function schedule(i, due) {
  setTimeout(() => {
    check(i);
    schedule(i, due + periodMs);
  }, Math.max(0, due - Date.now()));
}

const t0 = Date.now() + 1000;
for (let i = 0; i < n; i++) schedule(i, t0 + Math.floor((i * periodMs) / n));
process.on('SIGTERM', () => {
  db.close();
  process.exit(0);
});
