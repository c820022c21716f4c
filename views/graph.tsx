const W = 600;
const H = 64;

/**
 * d3-scale's `scaleLinear().domain([d0, d1]).range([r0, r1])` for two-point domains (its `bimap`,
 * `normalize` and d3-interpolate's `interpolateNumber`, same arithmetic in the same order, so the
 * same numbers to the last bit; an instant-width domain maps to the middle of the range). Written
 * out so a status page draws without loading d3 (issue 38 point 1); test/unit/views/graph.test.ts compares
 * the paths with d3's.
 */
function linear(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  let a = d0;
  let b = d1;
  let from = r0;
  let to = r1;
  if (d1 < d0) [a, b, from, to] = [d1, d0, r1, r0];
  const span = b - a;
  return span ? (v) => from * (1 - (v - a) / span) + to * ((v - a) / span) : (v) => (Number.isNaN(v) || Number.isNaN(span) ? NaN : from * 0.5 + to * 0.5);
}

/** A coordinate as d3-path writes it with `digits(1)`: rounded to a tenth. */
const r = (v: number) => Math.round(v * 10) / 10;

/**
 * d3-shape's `line().digits(1)` (curveLinear) of `xy`: `M` the first point, `L` each next one; a lone
 * point is closed (`Z`), as d3's curveLinear closes a one-point line; no points, ''.
 */
function linePath(xy: Array<[number, number]>): string {
  if (xy.length === 0) return '';
  return xy.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${r(x)},${r(y)}`).join('') + (xy.length === 1 ? 'Z' : '');
}

/** d3-shape's `area().digits(1).y0(base)` (curveLinear) of `xy`: the top line, then back along `base`, closed; no points, ''. */
function areaPath(xy: Array<[number, number]>, base: number): string {
  if (xy.length === 0) return '';
  return `${linePath(xy).replace(/Z$/, '')}${xy.toReversed().map(([x]) => `L${r(x)},${r(base)}`).join('')}Z`;
}

/**
 * A response-time graph as inline SVG (paths built on the server as d3-scale + d3-shape build them;
 * no client script). `points` are `[hour start ms, mean latency ms]`, oldest first; x spans
 * [from, to] (epoch ms), y from 0 to the highest point (+10 %). The SVG stretches to its box.
 */
export function ResponseGraph(props: { points: Array<[number, number]>; from: number; to: number; label: string }) {
  const { points, from, to } = props;
  const max = Math.max(1, ...points.map((p) => p[1]));
  const x = linear(from, to, 0, W);
  const y = linear(0, max * 1.1, H, 2);
  const xy = points.map((p): [number, number] => [x(p[0]), y(p[1])]);
  const d = linePath(xy);
  const a = areaPath(xy, H);
  return (
    <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={props.label}>
      <path class="area" d={a} />
      <path class="line" d={d} />
    </svg>
  );
}
