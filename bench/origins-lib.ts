/**
 * Helpers of the issue-21 benches (distinct origins, status-page rush, outage storm): addresses of
 * distinct origins, peak RSS from VmHWM, scheduler-lag quantiles from the histogram over a window,
 * Pharos under a `nofile` limit.
 */

/** The address of distinct origin i: 127.2.x.y, 250 per /24 (never 127.0.0.1). */
export function originAddress(i: number): string {
  return `127.2.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

/** Peak resident set size of a process so far (`VmHWM`), bytes: proc.ts's, under the name the benches use. */
export { peakRssBytes as peakRss } from './proc.ts';

/** Cumulative bucket counts of a Prometheus histogram (`name_bucket{le=…}`), by upper bound (s). */
export function histogram(text: string, name: string): Map<number, number> {
  const out = new Map<number, number>();
  const re = new RegExp(`^${name}_bucket\\{[^}]*le="([^"]+)"[^}]*\\} (\\S+)$`, 'gm');
  for (const m of text.matchAll(re)) out.set(m[1] === '+Inf' ? Infinity : Number(m[1]), (out.get(m[1] === '+Inf' ? Infinity : Number(m[1])) ?? 0) + Number(m[2]));
  return out;
}

/**
 * The q-quantile over a window from two scrapes of a histogram: the upper bound (ms) of the first
 * bucket whose cumulative count reaches q of the window's observations (so "≤ this"), and the count.
 */
export function windowQuantile(before: Map<number, number>, after: Map<number, number>, q: number): { ms: number; count: number } {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const total = (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0);
  for (const b of bounds) {
    if ((after.get(b) ?? 0) - (before.get(b) ?? 0) >= q * total) return { ms: b * 1000, count: total };
  }
  return { ms: Infinity, count: total };
}

/** Sum of a Prometheus metric's samples (all labels), or of those whose line contains `label`. */
export function metric(text: string, name: string, label?: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + ' ') && !line.startsWith(name + '{')) continue;
    if (label && !line.includes(label)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
