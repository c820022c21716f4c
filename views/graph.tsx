import { scaleLinear } from 'd3-scale';
import { area, line } from 'd3-shape';

const W = 600;
const H = 64;

/**
 * A response-time graph as inline SVG (d3-scale + d3-shape build the paths on the server; no
 * client script). `points` are `[hour start ms, mean latency ms]`, oldest first; x spans
 * [from, to] (epoch ms), y from 0 to the highest point (+10 %). The SVG stretches to its box.
 */
export function ResponseGraph(props: { points: Array<[number, number]>; from: number; to: number; label: string }) {
  const { points, from, to } = props;
  const max = Math.max(1, ...points.map((p) => p[1]));
  const x = scaleLinear().domain([from, to]).range([0, W]);
  const y = scaleLinear().domain([0, max * 1.1]).range([H, 2]);
  const d = line<[number, number]>().digits(1).x((p) => x(p[0])).y((p) => y(p[1]))(points) ?? '';
  const a = area<[number, number]>().digits(1).x((p) => x(p[0])).y0(H).y1((p) => y(p[1]))(points) ?? '';
  return (
    <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={props.label}>
      <path class="area" d={a} />
      <path class="line" d={d} />
    </svg>
  );
}
