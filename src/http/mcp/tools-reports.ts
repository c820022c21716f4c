import { z } from 'zod';
import type { Monitor } from '../../domain/monitor.ts';
import type { OutageRecord } from '../../domain/outage.ts';
import { iso } from '../../domain/time.ts';
import { mttaSeconds, pooledMttrSeconds } from '../../domain/uptime.ts';
import type { MonitorReport } from '../../core/reports.ts';
import { scan } from './tools-outages.ts';
import { bucketSize, buckets, pick, resolutionMs, tool, windowArgs, type ToolContext, type ToolDef } from './tool.ts';

/** Buckets of get_monitor_uptime at most (each is one report over every monitor). */
export const MAX_UPTIME_PERIODS = 100;

const windowInput = { from: z.string().optional().describe('ISO 8601; default: 30 days before `to`'), to: z.string().optional().describe('ISO 8601; default: now'), monitor_uuids: z.array(z.string()).optional().describe('default: every monitor') };
const resolution = z.enum(['hour', 'day', 'week', 'month']).optional().describe('default: day');

/** Mean of percentages, rounded down to 2 decimals as a report's `sla` (domain/report.ts). */
const meanPercent = (xs: number[]): number => (xs.length === 0 ? 100 : Math.floor((xs.reduce((s, x) => s + x, 0) / xs.length) * 100) / 100);

/** Reports over the window of the monitors asked for (all reports from core.reports, the one source of uptime and MTTR). */
async function reportsOf(ctx: ToolContext, w: { from: number; to: number }, uuids: string[] | undefined): Promise<MonitorReport[]> {
  const all = (await ctx.core.reports.reports(w.from, w.to)).reports;
  const chosen = new Set(pick(all.map((r) => r.monitor), uuids).map((m) => m.uuid));
  return all.filter((r) => chosen.has(r.monitor.uuid));
}

/** The monitor outages that started in the window (newest 1,000 outages scanned), by monitor id. */
async function startedIn(ctx: ToolContext, w: { from: number; to: number }): Promise<Map<number, OutageRecord[]>> {
  const list = await scan(ctx, { status: 'all', type: 'monitor' }, (items) => items[items.length - 1]!.startAt >= w.from);
  const by = new Map<number, OutageRecord[]>();
  for (const o of list) {
    if (o.monitorId === null || o.startAt < w.from || o.startAt >= w.to) continue;
    by.set(o.monitorId, [...(by.get(o.monitorId) ?? []), o]);
  }
  return by;
}

const HOUR_MS = 3_600_000;
/** Longest span asked of the raw-check reader at once: its offsets within an hour table are 32-bit on PostgreSQL (±24.8 days). */
const CHUNK_MS = 20 * 24 * HOUR_MS;

/**
 * A monitor's mean latency per region and hour over [from, to) (core.consoleView.latencyByRegion, read
 * in spans of at most {@link CHUNK_MS}), then per bucket of `size` ms from `from`: `region → bucket start → hourly means`.
 */
async function hourlyLatency(ctx: ToolContext, m: Monitor, from: number, to: number, size: number): Promise<Map<string, Map<number, number[]>>> {
  const out = new Map<string, Map<number, number[]>>();
  for (let start = from; start < to; start += CHUNK_MS) {
    for (const r of await ctx.core.consoleView.latencyByRegion(m, start, Math.min(to, start + CHUNK_MS), HOUR_MS)) {
      let byBucket = out.get(r.region);
      if (!byBucket) out.set(r.region, (byBucket = new Map()));
      for (const [t, ms] of r.points) {
        const bucket = from + Math.floor((t - from) / size) * size;
        byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), ms]);
      }
    }
  }
  return out;
}

const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

const entry = (m: Monitor) => ({ uuid: m.uuid, name: m.name, protocol: m.protocol });

/** Windowed report tools: uptime, response time, MTTA, MTTR (hyperping-go mcp_models.go). */
export const reportTools: ToolDef[] = [
  tool({
    name: 'get_monitor_uptime',
    description: 'Uptime (SLA %) of monitors over a window (default the last 30 days), per period (hour, day, week, month) and on average, with outage counts, downtime and MTTR in seconds; maintenance does not count as downtime.',
    input: { ...windowInput, resolution },
    async run(a, ctx) {
      const w = windowArgs(a, ctx.clock.now());
      const reports = await reportsOf(ctx, w, a.monitor_uuids);
      const periods = buckets(w.from, w.to, resolutionMs(a.resolution), MAX_UPTIME_PERIODS);
      const perPeriod: Array<Map<string, number>> = [];
      for (const p of periods) perPeriod.push(new Map((await ctx.core.reports.reports(p.start, p.end)).reports.map((r) => [r.monitor.uuid, r.sla])));
      const totalOutages = reports.reduce((s, r) => s + r.count, 0);
      const totalOutagesLength = reports.reduce((s, r) => s + r.totalDowntime, 0);
      return {
        monitors: reports.map((r) => ({
          ...entry(r.monitor),
          uptimePeriods: periods.map((p, i) => ({ date: iso(p.start), uptime: perPeriod[i]!.get(r.monitor.uuid) ?? 100 })),
          averageUptime: r.sla,
          outageCount: r.count,
          totalDowntime: r.totalDowntime,
          mttr: r.mttr,
          longestOutage: r.longestOutage,
        })),
        periodAverages: periods.map((p, i) => ({ date: iso(p.start), uptime: meanPercent(reports.map((r) => perPeriod[i]!.get(r.monitor.uuid) ?? 100)) })),
        totalOutages,
        totalOutagesLength,
        MTTR: pooledMttrSeconds(totalOutagesLength, totalOutages),
        averageUptime: `${meanPercent(reports.map((r) => r.sla))}%`,
      };
    },
  }),
  tool({
    name: 'get_monitor_response_time',
    description: 'Mean response times (ms) of monitors over a window (default the last 30 days; raw checks are kept storage.raw_retention_days), per period and per region, and the 95th percentile of the period means.',
    input: { ...windowInput, resolution },
    async run(a, ctx) {
      const w = windowArgs(a, ctx.clock.now());
      const monitors = pick(await ctx.core.monitors.list(), a.monitor_uuids);
      const size = bucketSize(w.from, w.to, resolutionMs(a.resolution));
      const byBucket = new Map<number, number[]>();
      const entries = [];
      for (const m of monitors) {
        const means: number[] = [];
        const byRegion: Record<string, number | null> = Object.fromEntries(m.regions.map((r) => [r, null]));
        for (const [region, buckets] of await hourlyLatency(ctx, m, w.from, w.to, size)) {
          const xs = [...buckets.values()].map(mean);
          if (xs.length > 0) byRegion[region || 'default'] = Math.round(mean(xs));
          for (const [t, hours] of buckets) byBucket.set(t, [...(byBucket.get(t) ?? []), mean(hours)]);
          means.push(...xs);
        }
        entries.push({ ...entry(m), avgResponseTime: means.length ? Math.round(means.reduce((s, x) => s + x, 0) / means.length) : 0, avgResponseTimeByRegion: byRegion, count: means.length });
      }
      const all = [...byBucket.values()].flat().sort((x, y) => x - y);
      const timeGroups = [...byBucket.entries()].sort(([x], [y]) => x - y).map(([t, xs]) => ({ time: iso(t), avgResponseTime: Math.round(xs.reduce((s, x) => s + x, 0) / xs.length), count: xs.length }));
      return {
        timeGroups,
        avgResponseTime: all.length ? Math.round(all.reduce((s, x) => s + x, 0) / all.length) : 0,
        p95ResponseTime: all.length ? Math.round(all[Math.min(all.length - 1, Math.ceil(all.length * 0.95) - 1)]!) : 0,
        monitors: entries,
      };
    },
  }),
  tool({
    name: 'get_monitor_mtta',
    description: 'Mean time to acknowledge (seconds) of the outages that started in the window (default the last 30 days), per monitor and overall.',
    input: windowInput,
    async run(a, ctx) {
      const w = windowArgs(a, ctx.clock.now());
      const [monitors, started] = await Promise.all([ctx.core.monitors.list(), startedIn(ctx, w)]);
      const chosen = pick(monitors, a.monitor_uuids);
      const all = mttaSeconds(chosen.flatMap((m) => started.get(m.id) ?? []));
      const entries = chosen.map((m) => ({ ...entry(m), ...mttaSeconds(started.get(m.id) ?? []) })).filter((e) => e.acknowledged > 0);
      return { monitors: entries, totalAcknowledged: all.acknowledged, mtta: all.mtta };
    },
  }),
  tool({
    name: 'get_monitor_mttr',
    description: 'Mean time to resolve (seconds) over a window (default the last 30 days) per monitor and overall, from the SLA reports, with the mean time to acknowledge.',
    input: windowInput,
    async run(a, ctx) {
      const w = windowArgs(a, ctx.clock.now());
      const [reports, started] = await Promise.all([reportsOf(ctx, w, a.monitor_uuids), startedIn(ctx, w)]);
      const totalOutages = reports.reduce((s, r) => s + r.count, 0);
      const totalOutagesLength = reports.reduce((s, r) => s + r.totalDowntime, 0);
      return {
        monitors: reports.map((r) => ({ ...entry(r.monitor), outageCount: r.count, totalDowntime: r.totalDowntime, mttr: r.mttr, mtta: mttaSeconds(started.get(r.monitor.id) ?? []).mtta, longestOutage: r.longestOutage })),
        totalOutages,
        totalOutagesLength,
        mttr: pooledMttrSeconds(totalOutagesLength, totalOutages),
        mtta: mttaSeconds(reports.flatMap((r) => started.get(r.monitor.id) ?? [])).mtta,
      };
    },
  }),
];
