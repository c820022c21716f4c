import type { Core } from '../../core/index.ts';
import type { Monitor } from '../../domain/monitor.ts';
import type { ChartKit, ChartRange, ChartSeries } from '../../../views/console/response-chart.tsx';

const MIN_MS = 60_000;
const HOUR_MS = 3_600_000;

/** Bucket of the raw ranges: 1 min over an hour, 10 min over a day. */
const RAW_BUCKET_MS: Partial<Record<ChartRange, number>> = { '1h': MIN_MS, '24h': 10 * MIN_MS };

/**
 * The series of the monitor page's response-time chart over [`from`, `to`]: per region from the raw
 * checks for 1 h and 24 h (one-minute / ten-minute means); for 7 d and 30 d the hourly rollups'
 * means (every region together: the rollups are per monitor and hour), so a month costs 720 rows,
 * not 43,200 checks per region.
 * @returns the series, the longest gap a line is drawn across (ms): three buckets or three check periods,
 *   and the d3 functions the chart draws with (loaded here on the first chart, not at start: issue 38 point 1)
 */
export async function chartSeries(core: Pick<Core, 'consoleView'>, m: Monitor, range: ChartRange, from: number, to: number): Promise<{ series: ChartSeries[]; gapMs: number; kit: ChartKit }> {
  const kit = await chartKit();
  const bucket = RAW_BUCKET_MS[range];
  if (bucket === undefined) {
    const points = await core.consoleView.latencySince(m, from);
    return { series: points.length ? [{ name: 'all regions (hourly means)', points: points.map(([t, v]): [number, number] => [t, Math.round(v)]) }] : [], gapMs: 3 * HOUR_MS, kit };
  }
  const byRegion = await core.consoleView.latencyByRegion(m, from, to + 1, bucket);
  return { series: byRegion.map((s) => ({ name: s.region, points: s.points })), gapMs: 3 * Math.max(bucket, m.checkFrequencySeconds * 1000), kit };
}

/** d3-scale's and d3-shape's functions of {@link ChartKit}, imported on first use. */
async function chartKit(): Promise<ChartKit> {
  const [{ scaleLinear, scaleUtc }, { line }] = await Promise.all([import('d3-scale'), import('d3-shape')]);
  return { scaleLinear, scaleUtc, line };
}
