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
import { benchArgs } from './args.ts';
import { runFloorLoop } from './floor-loop.ts';

const { positionals } = benchArgs({
  about: 'Baseline: the least a Node process does to probe N HTTP URLs every freq seconds (timers + undici keep-alive, no store). SIGUSR2 prints {done}; SIGTERM prints {done, lagMs} and exits.',
  positionals: [
    { name: 'n', help: 'URLs to probe' },
    { name: 'freqSeconds', help: 'seconds between probes of one URL' },
    { name: 'baseUrl|origins:PORT', help: 'a base URL, or origins:PORT for one distinct origin per URL (bench/origins-lib.ts)' },
  ],
  options: {},
});
const [n, freqS, target] = [Number(positionals[0]), Number(positionals[1]), positionals[2]!];
const periodMs = freqS * 1000;
const originsPort = target.startsWith('origins:') ? Number(target.slice('origins:'.length)) : null;
const baseOf = (i: number) => (originsPort === null ? target : `http://${originAddress(i)}:${originsPort}`);
// The pool settings Pharos's HTTP probe had before issue 21 (one keep-alive socket kept per origin).
const agent = new Agent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 10_000 });
let done = 0;
runFloorLoop(
  n,
  periodMs,
  (i) => {
    request(`${baseOf(i)}/m/${i}`, { dispatcher: agent, headersTimeout: 10_000, bodyTimeout: 10_000 })
      .then((r) => r.body.text())
      .then(() => done++, () => done++);
  },
  () => ({ done }),
);
