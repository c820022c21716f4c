/**
 * Baseline: the least a Node process must do to probe N HTTP URLs every `freq` seconds: one
 * `setTimeout` per URL, phased evenly over the period, and an undici keep-alive GET whose body is
 * read. No store, no state, no API. Pharos is measured against this floor (docs/PERFORMANCE.md).
 * Usage: node bench/baseline.ts <n> <freqSeconds> <baseUrl | origins:PORT>; with `origins:PORT`,
 * URL i is at its own address (bench/origins-lib.ts), one origin per URL (issue 21). On SIGUSR2
 * prints `{done}` (requests finished so far); on SIGTERM prints `{done, lagMs: number[]}` with the
 * lag samples (ms) taken since the last SIGUSR2, and exits.
 */
import { Agent, request } from 'undici';
import { originAddress } from './origins-lib.ts';

const [n, freqS, target] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]!];
const periodMs = freqS * 1000;
const originsPort = target.startsWith('origins:') ? Number(target.slice('origins:'.length)) : null;
const baseOf = (i: number) => (originsPort === null ? target : `http://${originAddress(i)}:${originsPort}`);
// The pool settings Pharos's HTTP probe had before issue 21 (one keep-alive socket kept per origin).
const agent = new Agent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 10_000 });
let lags: number[] = [];
let done = 0;

function schedule(i: number, due: number): void {
  setTimeout(() => {
    const start = Date.now();
    if (lags.length < 5_000_000) lags.push(start - due);
    request(`${baseOf(i)}/m/${i}`, { dispatcher: agent, headersTimeout: 10_000, bodyTimeout: 10_000 })
      .then((r) => r.body.text())
      .then(() => done++, () => done++);
    schedule(i, due + periodMs);
  }, Math.max(0, due - Date.now()));
}

const t0 = Date.now() + 1000;
for (let i = 0; i < n; i++) schedule(i, t0 + Math.floor((i * periodMs) / n));
process.stdout.write('ready\n');
process.on('SIGUSR2', () => {
  lags = [];
  process.stdout.write(JSON.stringify({ done }) + '\n');
});
process.on('SIGTERM', () => {
  process.stdout.write(JSON.stringify({ done, lagMs: lags }) + '\n', () => process.exit(0));
});
