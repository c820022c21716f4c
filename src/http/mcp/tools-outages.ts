import { z } from 'zod';
import type { OutageFilter, OutageRecord } from '../../domain/outage.ts';
import { outageDurationMs } from '../../domain/outage.ts';
import { iso, isoOrNull } from '../../domain/time.ts';
import { toOutageJson } from '../api/outages.ts';
import { buckets, resolutionMs, tool, windowArgs, type ToolContext, type ToolDef } from './tool.ts';

/** Pages of 20 outages read at most by the tools that scan outages (get_monitor_outages, list_recent_alerts): the newest 1,000. */
export const MAX_SCAN_PAGES = 50;

/** What an outage is about: its monitor's uuid, or a healthcheck outage's public uuid (`hc_…`). */
const subjectUuid = (o: OutageRecord): string => o.monitor?.uuid ?? o.healthcheck?.publicUuid ?? '';

/**
 * Outages → hyperping-go `MCPOutage` (mcp_models.go: `monitor_uuid`, `status` active/resolved,
 * `started_at`, `acknowledged_at`, `resolved_at`, `duration` in seconds), each with the fields of
 * GET /v2/outages/{uuid} besides.
 */
async function mcpOutages(list: OutageRecord[], ctx: ToolContext): Promise<Array<Record<string, unknown>>> {
  const [policies, alerted] = await Promise.all([ctx.core.escalationPolicies.list(), ctx.core.outages.alertedChannels(list.map((o) => o.uuid))]);
  const now = ctx.clock.now();
  return list.map((o) => ({
    ...toOutageJson(o, now, { policies, public_url: ctx.core.config.public_url, alerted }),
    monitor_uuid: subjectUuid(o),
    status: o.endAt === null ? 'active' : 'resolved',
    started_at: iso(o.startAt),
    acknowledged_at: isoOrNull(o.acknowledgedAt),
    resolved_at: isoOrNull(o.endAt),
    duration: Math.floor(outageDurationMs(o, now) / 1000),
  }));
}

/** Reads pages of outages (newest first) while `more(page)` says so, at most {@link MAX_SCAN_PAGES}. */
export async function scan(ctx: ToolContext, filter: OutageFilter, more: (items: OutageRecord[]) => boolean): Promise<OutageRecord[]> {
  const out: OutageRecord[] = [];
  for (let page = 0; page < MAX_SCAN_PAGES; page++) {
    const { outages } = await ctx.core.outages.list(filter, page);
    out.push(...outages);
    if (outages.length === 0 || !more(outages)) break;
  }
  return out;
}

const status = z.enum(['all', 'ongoing', 'resolved']).optional();
const page = z.number().int().min(0).optional().describe('from 0, 20 outages a page, newest first');
const uuidArg = { uuid: z.string().describe('the outage uuid') };

/** Outage tools: list, get, a monitor's outages, the timeline, and recent alerts. */
export const outageTools: ToolDef[] = [
  tool({
    name: 'list_outages',
    description: 'Outages, newest first, 20 a page (as GET /v2/outages): by status, type (manual or monitor) and a search of the description or INC-<n>.',
    input: { page, search: z.string().max(200).optional(), status, type: z.enum(['all', 'manual', 'monitor']).optional() },
    async run(a, ctx) {
      const p = await ctx.core.outages.list({ status: a.status ?? 'all', type: a.type ?? 'all', search: a.search }, a.page ?? 0);
      return { outages: await mcpOutages(p.outages, ctx), total: p.total, hasNextPage: p.hasNextPage, page: p.page };
    },
  }),
  tool({
    name: 'get_outage',
    description: 'One outage: its monitor, status (active or resolved), start, acknowledgement, resolution and duration in seconds.',
    input: uuidArg,
    run: async (a, ctx) => (await mcpOutages([await ctx.core.outages.get(a.uuid)], ctx))[0],
  }),
  tool({
    name: 'get_monitor_outages',
    description: 'One monitor\'s outages, newest first, 20 a page (of the newest 1,000 outages).',
    input: { monitor_uuid: z.string(), page, status },
    async run(a, ctx) {
      const monitor = await ctx.core.monitors.get(a.monitor_uuid);
      const all = (await scan(ctx, { status: a.status ?? 'all', type: 'monitor' }, () => true)).filter((o) => o.monitorId === monitor.id);
      const p = a.page ?? 0;
      return { outages: await mcpOutages(all.slice(p * 20, (p + 1) * 20), ctx), total: all.length, hasNextPage: all.length > (p + 1) * 20, page: p };
    },
  }),
  tool({
    name: 'get_outage_timeline',
    description: 'What happened to an outage, oldest first: opened, alerted, escalated, acknowledged, resolved, with who and their note.',
    input: uuidArg,
    async run(a, ctx) {
      const o = await ctx.core.outages.get(a.uuid);
      const timeline = await ctx.core.outages.timeline(a.uuid);
      const names = new Map<string, string>();
      for (const e of timeline) if (e.userUuid !== null && !names.has(e.userUuid)) names.set(e.userUuid, (await ctx.core.users.get(e.userUuid))?.email ?? e.userUuid);
      const events = timeline.map((e) => ({
        timestamp: iso(e.at),
        status: e.type === 'opened' ? 'started' : e.type,
        ...(e.userUuid !== null ? { user: names.get(e.userUuid) } : {}),
        ...(e.message !== null ? { note: e.message } : {}),
      }));
      return { uuid: o.uuid, monitor_uuid: subjectUuid(o), events };
    },
  }),
  tool({
    name: 'list_recent_alerts',
    description: 'Down and up alerts (outages opened and resolved up to `to`, inclusive) of the outages that started in the window (default the last 30 days), counted per hour, day (default), week or month.',
    input: { from: z.string().optional(), to: z.string().optional(), resolution: z.enum(['hour', 'day', 'week', 'month']).optional(), monitor_uuids: z.array(z.string()).optional() },
    async run(a, ctx) {
      const w = windowArgs(a, ctx.clock.now());
      const wanted = a.monitor_uuids && a.monitor_uuids.length > 0 ? new Set(a.monitor_uuids) : null;
      const started = (await scan(ctx, { status: 'all', type: 'all' }, (items) => items[items.length - 1]!.startAt >= w.from)).filter(
        (o) => o.startAt >= w.from && o.startAt < w.to && (wanted === null || wanted.has(subjectUuid(o))),
      );
      const raw: Array<{ uuid: string; monitor_uuid: string; status: 'down' | 'up'; triggered_at: string; at: number; acknowledged_by?: string; resolved_at?: string }> = [];
      for (const o of started) {
        const ack = o.acknowledgedByUser ? { acknowledged_by: o.acknowledgedByUser.email } : {};
        raw.push({ uuid: o.uuid, monitor_uuid: subjectUuid(o), status: 'down', triggered_at: iso(o.startAt), at: o.startAt, ...ack, ...(o.endAt !== null ? { resolved_at: iso(o.endAt) } : {}) });
        if (o.endAt !== null && o.endAt <= w.to) raw.push({ uuid: o.uuid, monitor_uuid: subjectUuid(o), status: 'up', triggered_at: iso(o.endAt), at: o.endAt, ...ack, resolved_at: iso(o.endAt) });
      }
      raw.sort((x, y) => y.at - x.at);
      const timeGroups = buckets(w.from, w.to, resolutionMs(a.resolution)).map((b) => ({ time: iso(b.start), count: raw.filter((r) => r.at >= b.start && (r.at < b.end || (r.at === w.to && b.end === w.to))).length }));
      const down = raw.filter((r) => r.status === 'down').length;
      return { timeGroups, totalAlerts: raw.length, downAlerts: down, upAlerts: raw.length - down, rawAlerts: raw.map(({ at: _at, ...r }) => r) };
    },
  }),
];
