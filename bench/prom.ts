/**
 * Reading Pharos's `/metrics` in the benches: counters and gauges by name (and label), and
 * quantiles of a histogram over a window (the difference of two scrapes), the way Prometheus's
 * `histogram_quantile` does it, so a figure covers every observation of the window instead of a
 * median of sliding-window summaries.
 */

/** Sum of a metric's samples, or of the samples whose line includes `label` (e.g. `status="down"`). */
export function metric(text: string, name: string, label?: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + ' ') && !line.startsWith(name + '{')) continue;
    if (label && !line.includes(label)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Cumulative bucket counts of an unlabelled histogram: upper bound (seconds; Infinity for +Inf) → count. */
export function buckets(text: string, name: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)$`, 'gm'))) out.set(m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2]));
  return out;
}

/**
 * The q-quantile (0..1) of the observations made between two scrapes of a histogram, in the
 * histogram's unit: linear interpolation inside the bucket holding the rank (Prometheus's
 * `histogram_quantile`); the highest finite bound when the rank falls in `+Inf`; NaN for no observation.
 */
export function windowQuantile(before: Map<number, number>, after: Map<number, number>, q: number): number {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const counts = bounds.map((b) => (after.get(b) ?? 0) - (before.get(b) ?? 0));
  const total = counts.at(-1) ?? 0;
  if (total <= 0) return NaN;
  const rank = q * total;
  for (let i = 0; i < bounds.length; i++) {
    if (counts[i]! < rank) continue;
    const upper = bounds[i]!;
    const lower = i === 0 ? 0 : bounds[i - 1]!;
    if (upper === Infinity) return lower;
    const below = i === 0 ? 0 : counts[i - 1]!;
    const inBucket = counts[i]! - below;
    return inBucket <= 0 ? upper : lower + ((upper - lower) * (rank - below)) / inBucket;
  }
  return bounds.at(-2) ?? NaN;
}

/** Observations between two scrapes. */
export const windowCount = (before: Map<number, number>, after: Map<number, number>): number => (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0);
