/**
 * A duration in the hosted service's words (CONTRACT.md "Reports"): `1d 5hr 59min 16s`, zero
 * units left out, `0s` for zero. Whole seconds; a library format would not match this one.
 * @param seconds duration in seconds (fractions are dropped; negatives count as 0)
 */
export function formatDuration(seconds: number): string {
  let s = Math.max(0, Math.floor(seconds));
  const parts: string[] = [];
  for (const [unit, size] of [['d', 86_400], ['hr', 3600], ['min', 60], ['s', 1]] as const) {
    const n = Math.floor(s / size);
    s -= n * size;
    if (n > 0) parts.push(`${n}${unit}`);
  }
  return parts.length ? parts.join(' ') : '0s';
}
