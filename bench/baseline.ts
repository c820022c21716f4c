/**
 * Baseline: the least a Node process must do to probe N HTTP URLs every `freq` seconds: one
 * `setTimeout` per URL, phased evenly over the period, and an undici keep-alive GET whose body is
 * read. No store, no state, no API. Pharos is measured against this floor (docs/PERFORMANCE.md).
 * Usage: node bench/baseline.ts <n> <freqSeconds> <baseUrl>. On SIGUSR2 prints `{done}` (requests
 * finished so far); on SIGTERM prints `{done, lagMs: number[]}` with the lag samples (ms) taken
 * since the last SIGUSR2, and exits.
 */
import { Agent, request } from 'undici';

const [n, freqS, base] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]!];
const periodMs = freqS * 1000;
// The same pool settings as Pharos's HTTP probe (src/engine/probes/http.ts).
const agent = new Agent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 10_000 });
let lags: number[] = [];
let done = 0;

function schedule(i: number, due: number): void {
  setTimeout(() => {
    const start = Date.now();
    if (lags.length < 5_000_000) lags.push(start - due);
    request(`${base}/m/${i}`, { dispatcher: agent, headersTimeout: 10_000, bodyTimeout: 10_000 })
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
