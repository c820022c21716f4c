import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scaleLinear } from 'd3-scale';
import { area, line } from 'd3-shape';
import { ResponseGraph } from '../../../views/graph.tsx';

// Issue 38 point 1: a status page's response graph (views/graph.tsx) draws its paths without d3, as
// d3-scale + d3-shape drew them before (the code below is that former code): the same `d` strings for
// random series and the edge cases (no point, one point, an instant-wide range, points outside it,
// zero and fractional latencies, NaN, huge values).
const W = 600;
const H = 64;

function d3Paths(points: Array<[number, number]>, from: number, to: number): { d: string; a: string } {
  const max = Math.max(1, ...points.map((p) => p[1]));
  const x = scaleLinear().domain([from, to]).range([0, W]);
  const y = scaleLinear().domain([0, max * 1.1]).range([H, 2]);
  const d = line<[number, number]>().digits(1).x((p) => x(p[0])).y((p) => y(p[1]))(points) ?? '';
  const a = area<[number, number]>().digits(1).x((p) => x(p[0])).y0(H).y1((p) => y(p[1]))(points) ?? '';
  return { d, a };
}

function ours(points: Array<[number, number]>, from: number, to: number): { d: string; a: string } {
  const html = String(ResponseGraph({ points, from, to, label: 'graph' }));
  const area = /<path class="area" d="([^"]*)"/.exec(html);
  const ln = /<path class="line" d="([^"]*)"/.exec(html);
  assert.ok(area && ln, html);
  return { d: ln[1]!, a: area[1]! };
}

/** A small seeded generator (mulberry32), so a failure repeats. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('ResponseGraph draws the paths d3 drew: random series of 0–200 hourly points', () => {
  const rand = rng(38);
  for (let n = 0; n < 2000; n++) {
    const to = 1_700_000_000_000 + Math.floor(rand() * 1e10);
    const span = [3_600_000, 86_400_000, 7 * 86_400_000, 30 * 86_400_000][n % 4]!;
    const from = to - span;
    const count = Math.floor(rand() * 200);
    const scale = [1, 50, 3000, 1e6][Math.floor(rand() * 4)]!;
    const points = Array.from({ length: count }, (_, i): [number, number] => [from + Math.floor((i / Math.max(1, count)) * span + rand() * 1000), rand() < 0.5 ? Math.round(rand() * scale) : rand() * scale]);
    assert.deepEqual(ours(points, from, to), d3Paths(points, from, to), `case ${n}`);
  }
});

test('ResponseGraph draws the paths d3 drew at the edges', () => {
  const t = 1_700_000_000_000;
  const cases: Array<[Array<[number, number]>, number, number]> = [
    [[], t - 3_600_000, t],
    [[[t - 1000, 120]], t - 3_600_000, t],
    [[[t, 0]], t, t],
    [[[t, 5], [t, 9]], t, t],
    [[[t - 7_200_000, 10], [t + 3_600_000, 30]], t - 3_600_000, t],
    [[[t - 10, 0], [t - 5, 0], [t, 0]], t - 10, t],
    [[[t - 10, 0.04], [t - 5, 0.05], [t, 0.95]], t - 10, t],
    [[[t - 10, Number.NaN], [t, 3]], t - 10, t],
    [[[t - 10, 1e12], [t, 3]], t - 10, t],
    [[[t - 10, -5], [t, 3]], t - 10, t],
    [[[t, 1], [t - 10, 2]], t, t - 10],
  ];
  for (const [points, from, to] of cases) assert.deepEqual(ours(points, from, to), d3Paths(points, from, to), JSON.stringify({ points, from, to }));
});
