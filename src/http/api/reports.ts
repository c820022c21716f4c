import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { iso } from '../../domain/time.ts';
import type { MonitorReport } from '../../core/reports.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { COMMON_ERRORS, NOT_FOUND, UuidParam, json } from './common.ts';

/** Strict ISO 8601: a date-time with `Z` or an offset (seconds optional), or a date (UTC midnight). */
const STRICT_ISO = z.union([z.iso.datetime({ offset: true }), z.iso.datetime({ offset: true, precision: -1 }), z.iso.date()]);
/** Report windows lie within years 1970–9999 (4-digit years; JavaScript dates reach further and then break formatting). */
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const isoParam = (name: string) =>
  z
    .string()
    .refine((s) => STRICT_ISO.safeParse(s).success, 'must be an ISO 8601 date-time with Z or an offset, such as 2026-03-01T00:00:00Z, or a date such as 2026-03-01')
    .refine((s) => {
      const ms = Date.parse(s);
      return ms >= 0 && ms <= MAX_MS;
    }, 'must lie between 1970-01-01 and 9999-12-31')
    .optional()
    .openapi({ param: { name, in: 'query' } });
const Window = z.object({ from: isoParam('from'), to: isoParam('to') });

const Summary = z.object({ uuid: z.string(), name: z.string(), sla: z.number().openapi({ description: 'uptime %, rounded down to 2 decimals' }) }).openapi('ReportSummary');
const Report = z
  .object({
    uuid: z.string(),
    name: z.string(),
    protocol: z.string(),
    period: z.object({ from: z.string(), to: z.string() }),
    sla: z.number(),
    outages: z.object({
      count: z.number().int(),
      totalDowntime: z.number().int().openapi({ description: 'seconds' }),
      totalDowntimeFormatted: z.string(),
      longestOutage: z.number().int().openapi({ description: 'seconds' }),
      longestOutageFormatted: z.string(),
      details: z.array(z.object({ startDate: z.string(), endDate: z.string().nullable(), duration: z.number().int(), durationFormatted: z.string() })),
    }),
    mttr: z.number().int().openapi({ description: 'seconds' }),
    mttrFormatted: z.string(),
  })
  .openapi('Report');

const tags = ['Reports'];
const ms = (s: string | undefined) => (s === undefined ? undefined : Date.parse(s));
const Hosted = z.object({ period: z.object({ from: z.string(), to: z.string() }), monitors: z.array(Report) }).openapi('ReportList');

/**
 * Report → API shape at `now` (epoch ms). `hosted`: an ongoing outage's `endDate` is the end of its
 * counted time, min(to, now) (the hosted clients read a string there).
 */
function toReportJson(r: MonitorReport, hosted: boolean, now: number): z.infer<typeof Report> {
  return {
    uuid: r.monitor.uuid,
    name: r.monitor.name,
    protocol: r.monitor.protocol,
    period: { from: iso(r.from), to: iso(r.to) },
    sla: r.sla,
    outages: {
      count: r.count,
      totalDowntime: r.totalDowntime,
      totalDowntimeFormatted: r.totalDowntimeFormatted,
      longestOutage: r.longestOutage,
      longestOutageFormatted: r.longestOutageFormatted,
      details: hosted ? r.details.map((d) => ({ ...d, endDate: d.endDate ?? iso(Math.min(r.to, now)) })) : r.details,
    },
    mttr: r.mttr,
    mttrFormatted: r.mttrFormatted,
  };
}

/**
 * /v2/reporting/monitor-reports (API.md §4.6, CONTRACT.md "Reports"); window default: the last 7
 * days. With `api.compatibility: hosted` the list is the hosted service's `{period, monitors}`.
 */
export function reportsRouter(deps: Pick<HttpDeps, 'core' | 'clock'>) {
  const { core, clock } = deps;
  // Read per request: the setting follows the config the core holds.
  const hosted = () => core.config.api.compatibility === 'hosted';
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags,
      summary: 'Every monitor over one window (default: the last 7 days): [{uuid, name, sla}], or {period, monitors: [Report]} with api.compatibility: hosted',
      request: { query: Window },
      responses: { 200: json(z.union([z.array(Summary), Hosted]), 'Summaries, or the hosted shape'), ...COMMON_ERRORS },
    }),
    async (c) => {
      const q = c.req.valid('query');
      if (hosted()) {
        const all = await core.reports.reports(ms(q.from), ms(q.to));
        return c.json({ period: { from: iso(all.from), to: iso(all.to) }, monitors: all.reports.map((r) => toReportJson(r, true, clock.now())) }, 200);
      }
      return c.json((await core.reports.summaries(ms(q.from), ms(q.to))).map((s) => ({ uuid: s.monitor.uuid, name: s.monitor.name, sla: s.sla })), 200);
    },
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}', tags, summary: 'A monitor report over [from, to)', request: { params: UuidParam, query: Window }, responses: { 200: json(Report, 'The report'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => {
      const q = c.req.valid('query');
      return c.json(toReportJson(await core.reports.report(c.req.valid('param').uuid, ms(q.from), ms(q.to)), hosted(), clock.now()), 200);
    },
  );
  return app;
}
