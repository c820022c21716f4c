/**
 * The loop the floor processes share (bench/baseline.ts, bench/fresh-floor.ts): one `setTimeout` per
 * URL, phased evenly over the period from 1 s after start, each timer sampling its lag (ms between due
 * time and start, at most 5,000,000 samples) before it calls `check(i)` and re-arms itself. Prints
 * `ready` once armed. The protocol bench/monitors.ts reads: on SIGUSR2 it prints `counts()` as one JSON
 * line and clears the lag samples (the window starts); on SIGTERM it prints `{...counts(), lagMs}` and
 * exits.
 * @param n URLs
 * @param periodMs each URL's period, ms
 * @param check starts check i (its outcome is counted by the caller, into what `counts()` returns)
 * @param counts the caller's counters, e.g. `{done, failed}`
 */
export function runFloorLoop(n: number, periodMs: number, check: (i: number) => void, counts: () => Record<string, number>): void {
  let lags: number[] = [];
  const schedule = (i: number, due: number): void => {
    setTimeout(() => {
      if (lags.length < 5_000_000) lags.push(Date.now() - due);
      check(i);
      schedule(i, due + periodMs);
    }, Math.max(0, due - Date.now()));
  };
  const t0 = Date.now() + 1000;
  for (let i = 0; i < n; i++) schedule(i, t0 + Math.floor((i * periodMs) / n));
  process.stdout.write('ready\n');
  process.on('SIGUSR2', () => {
    lags = [];
    process.stdout.write(JSON.stringify(counts()) + '\n');
  });
  process.on('SIGTERM', () => {
    process.stdout.write(JSON.stringify({ ...counts(), lagMs: lags }) + '\n', () => process.exit(0));
  });
}
