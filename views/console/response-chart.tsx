import type { scaleLinear, scaleUtc } from 'd3-scale';
import type { line } from 'd3-shape';

/**
 * The monitor page's response-time chart (issue 33 point 2): server-rendered SVG with axes — time
 * (UTC) on x with labelled ticks, milliseconds on y with labelled ticks and grid lines — one line per
 * series (a region, or all regions for the hourly means of 7 and 30 days) and an HTML legend. No
 * script: the range is a link (`?range=1h|24h|7d|30d`). The SVG keeps its aspect ratio (text is not
 * stretched) and scrolls inside its box on a narrow phone rather than shrinking its labels away.
 * d3-scale picks the ticks; d3-shape draws the lines (views/graph.tsx draws status pages' graphs as they would).
 */

/**
 * The d3 functions the chart draws with, handed in by the route (src/http/console/response-period.ts
 * `chartSeries` loads them on the first chart: issue 38 point 1, d3 is not loaded at start).
 */
export interface ChartKit {
  scaleLinear: typeof scaleLinear;
  scaleUtc: typeof scaleUtc;
  line: typeof line;
}

/** The monitor page's chart ranges (`?range=`), ms. An unknown or missing range is 24 h (a console link, read leniently; docs/api.md). */
export const CHART_RANGES = { '1h': 3_600_000, '24h': 24 * 3_600_000, '7d': 7 * 24 * 3_600_000, '30d': 30 * 24 * 3_600_000 } as const;
/** One of {@link CHART_RANGES}. */
export type ChartRange = keyof typeof CHART_RANGES;
/** `?range=` as a {@link ChartRange}: '24h' unless it names one. */
export const chartRangeOf = (q: string | undefined): ChartRange => (q !== undefined && Object.hasOwn(CHART_RANGES, q) ? (q as ChartRange) : '24h');

/** One line of the chart: its name in the legend and `[time ms, mean latency ms]` points, oldest first. */
export interface ChartSeries {
  name: string;
  points: Array<[number, number]>;
}

const W = 640;
const H = 240;
const M = { top: 10, right: 24, bottom: 26, left: 56 };
/** Series colours (classes `s0`…`s5`); more series reuse them in turn. */
const COLOURS = 6;

const pad2 = (n: number) => String(n).padStart(2, '0');
/** A time tick's label: `HH:MM` for spans up to two days, else `MM-DD` (UTC). */
export function timeTick(t: Date, spanMs: number): string {
  return spanMs <= 2 * 86_400_000 ? `${pad2(t.getUTCHours())}:${pad2(t.getUTCMinutes())}` : `${pad2(t.getUTCMonth() + 1)}-${pad2(t.getUTCDate())}`;
}

/**
 * The chart for [`from`, `to`] (epoch ms). A series breaks where a gap is longer than `gapMs` (no
 * checks then: nothing is drawn rather than a line across). Fewer than two points in all: a message.
 * @param label what the chart shows, for its accessible name ("Response time over 24 h")
 * @param kit d3's scales and line ({@link ChartKit})
 */
export function ResponseChart(props: { series: ChartSeries[]; from: number; to: number; gapMs: number; label: string; kit: ChartKit }) {
  const { series, from, to, gapMs } = props;
  const { scaleLinear, scaleUtc, line } = props.kit;
  const total = series.reduce((n, s) => n + s.points.length, 0);
  if (total < 2) return <p class="muted">Not enough checks for a chart yet.</p>;
  let max = 1;
  for (const s of series) for (const p of s.points) if (p[1] > max) max = p[1];
  const x = scaleUtc().domain([from, to]).range([M.left, W - M.right]);
  const y = scaleLinear().domain([0, max * 1.05]).nice(5).range([H - M.bottom, M.top]);
  const span = to - from;
  const xTicks = x.ticks(6);
  const yTicks = y.ticks(5);
  // A gap longer than gapMs gets a break (an undefined point): no line is drawn across it.
  const draw = line<[number, number]>()
    .digits(1)
    .defined((p) => !Number.isNaN(p[1]))
    .x((p) => x(p[0]))
    .y((p) => y(p[1]));
  const path = (pts: Array<[number, number]>) => draw(pts.flatMap((p, i): Array<[number, number]> => (i > 0 && p[0] - pts[i - 1]![0] > gapMs ? [[p[0], NaN], p] : [p]))) ?? '';
  const summary = series.map((s) => `${s.name}: mean ${mean(s.points)} ms, highest ${Math.max(0, ...s.points.map((p) => p[1]))} ms`).join('; ');
  return (
    <div class="rchart">
      {/* Scrolls sideways on a narrow phone: focusable so it can be scrolled from the keyboard. */}
      <div class="rchart-box" tabindex={0} role="region" aria-label={`${props.label}, chart`}>
        <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${props.label} (${summary})`}>
          <g class="grid">
            {yTicks.map((v) => (
              <line x1={M.left} x2={W - M.right} y1={round(y(v))} y2={round(y(v))} />
            ))}
          </g>
          <g class="axis y">
            {yTicks.map((v) => (
              <text x={M.left - 6} y={round(y(v)) + 4}>
                {`${v} ms`}
              </text>
            ))}
          </g>
          <g class="axis x">
            <line x1={M.left} x2={W - M.right} y1={H - M.bottom} y2={H - M.bottom} />
            {xTicks.map((t) => (
              <>
                <line x1={round(x(t))} x2={round(x(t))} y1={H - M.bottom} y2={H - M.bottom + 4} />
                <text x={round(x(t))} y={H - 8}>
                  {timeTick(t, span)}
                </text>
              </>
            ))}
          </g>
          {series.map((s, i) => (
            <path class={`ln s${i % COLOURS}`} d={path(s.points)} />
          ))}
        </svg>
      </div>
      <ul class="legend">
        {series.map((s, i) => (
          <li>
            <i class={`s${i % COLOURS}`} />
            {s.name}
          </li>
        ))}
        <li class="muted">times UTC</li>
      </ul>
    </div>
  );
}

const round = (v: number) => Math.round(v * 10) / 10;
const mean = (pts: Array<[number, number]>) => (pts.length === 0 ? 0 : Math.round(pts.reduce((n, p) => n + p[1], 0) / pts.length));

/** The chart's rules, appended to the console's stylesheet (views/console/style.ts). */
export const RESPONSE_CHART_CSS = `
.rchart-box{overflow-x:auto}
.rchart svg{display:block;width:100%;min-width:460px;max-width:820px;height:auto}
.rchart .grid line{stroke:var(--line);stroke-width:1}
.rchart .axis line{stroke:var(--muted)}
.rchart .axis text{fill:var(--muted);font-size:12px}
.rchart .axis.y text{text-anchor:end}.rchart .axis.x text{text-anchor:middle}
.rchart .ln{fill:none;stroke-width:1.8;stroke-linejoin:round}
.rchart .s0{stroke:var(--accent);background:var(--accent)}.rchart .s1{stroke:#d97706;background:#d97706}.rchart .s2{stroke:#7c3aed;background:#7c3aed}
.rchart .s3{stroke:#0d9488;background:#0d9488}.rchart .s4{stroke:#db2777;background:#db2777}.rchart .s5{stroke:#65a30d;background:#65a30d}
.rchart ul.legend{display:flex;flex-wrap:wrap;gap:.2rem 1rem;list-style:none;padding:0;margin:.4rem 0 0;font-size:.9em}
.rchart ul.legend i{display:inline-block;width:.9rem;height:.25rem;margin-right:.35rem;vertical-align:middle;border-radius:2px}
`;
