import type { Hono } from 'hono';
import { AppError } from '../../lib/errors.ts';
import { MonitorBody, type Monitor } from '../../domain/monitor.ts';
import { prepareAssertions } from '../../protocols/http/index.ts';
import { uptimeSpanOf } from '../../domain/uptime.ts';
import { maskMonitor } from '../../protocols/secrets.ts';
import type { HttpDeps } from '../context.ts';
import { MONITOR_RANGES, MonitorPage, type MonitorRange } from '../../../views/console/monitor.tsx';
import { MonitorFormPage } from '../../../views/console/monitor-form.tsx';
import { chartRangeOf } from '../../../views/console/response-chart.tsx';
import { chartSeries } from './response-period.ts';
import type { FormValues } from '../../../views/console/model.ts';
import { page, shellOf, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { errorStatus, formErrors, formOf, parseWith } from './forms.ts';
import { monitorFormErrors, monitorFormValues, monitorJson, newMonitorFormValues, protocolForms, regionChoices, settingsInWords, targetInWords } from './monitor-form.ts';
import { consoleActor } from '../audit-actor.ts';
import { pickItems, pickerModel, pickQueryValues } from './picker.ts';

/** The regions a form's values tick (one or several `regions` fields). */
const chosenRegions = (f: FormValues): string[] => (Array.isArray(f.regions) ? f.regions : typeof f.regions === 'string' ? [f.regions] : []);

/** Monitor page, create and edit forms, pause/resume/delete: the same schema and use cases as /v1/monitors. */
export function monitorRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core, clock } = deps;
  // Stored policies (issue 32), read before the page renders.
  const policies = async () => (await core.escalationPolicies.list()).map((p) => ({ uuid: p.uuid, name: p.name }));
  // The "Depends on" picker (issue 36): every monitor but this one; "Search" without JavaScript comes back by GET.
  const dependsOn = async (values: FormValues, uuid?: string) => pickerModel(values, 'depends_on', (await pickItems(core, 'monitors')).filter((it) => it.uuid !== uuid));
  // A group monitor's members (issue 36) in the same picker; the edit form's values hold them one per line.
  const groupMembers = async (values: FormValues, uuid?: string) => {
    const given = values['group.group_members'];
    const chosen = typeof given === 'string' ? given.split(/\s+/).filter((u) => u !== '') : given;
    return pickerModel({ ...values, 'group.group_members': chosen }, 'group.group_members', (await pickItems(core, 'monitors')).filter((it) => it.uuid !== uuid));
  };
  const form = async (c: ConsoleContext, given: FormValues, uuid?: string, e?: unknown) => {
    const values = { ...given, ...pickQueryValues(c) };
    return page(c, MonitorFormPage({ s: shellOf(c, '/monitors'), values, dependsOn: await dependsOn(values, uuid), groupMembers: await groupMembers(values, uuid), protocols: protocolForms(), errors: e === undefined ? undefined : monitorFormErrors(e, formErrors), ...(uuid ? { uuid } : {}), policies: await policies(), localRegion: core.config.probe.region, regionChoices: regionChoices(core.probes.list(deps.version), core.config.probe.region, chosenRegions(values)), groups: await core.tags.groups() }), e === undefined ? 200 : errorStatus(e));
  };
  // The monitor page's settings in words, monitors named (issue 36: what it depends on; a group's members).
  const settingsOf = async (m: Monitor) => {
    const members = m.protocol === 'group' ? ((m.settings.group_members as string[] | undefined) ?? []) : [];
    const lines = settingsInWords(m);
    if (!m.dependsOn?.length && members.length === 0) return lines;
    const names = new Map((await core.monitors.list()).map((x) => [x.uuid, x.name]));
    const named = (uuids: readonly string[]) => uuids.map((u) => names.get(u) ?? u).join(' · ');
    const out = lines.map((l) => (members.length > 0 && l.label === 'Members' ? { ...l, value: named(members) } : l));
    if (m.dependsOn?.length) out.push({ label: 'Depends on', value: named(m.dependsOn) });
    return out;
  };
  const found = async (uuid: string) => {
    try {
      return await core.monitors.get(uuid);
    } catch (e) {
      if (e instanceof AppError && e.status === 404) return null;
      throw e;
    }
  };

  // Clone (issue 33 point 5): the new-monitor form prefilled from another monitor, named "… (copy)";
  // nothing is saved until it is submitted. Secrets are not copied (the form shows them masked, and a
  // new monitor has nothing to keep a masked secret from): their fields come empty, to be typed again.
  app.get('/monitors/new', async (c) => {
    const from = c.req.query('clone');
    const m = from ? await found(from) : null;
    if (!m) return form(c, newMonitorFormValues());
    const values = monitorFormValues(m);
    for (const [k, v] of Object.entries(values)) if (v === '***') values[k] = '';
    return form(c, { ...values, name: `${m.name} (copy)`.slice(0, 255) });
  });
  app.post('/monitors', async (c) => {
    const f = await formOf(c);
    try {
      const json = monitorJson(f);
      await prepareAssertions(json);
      const m = await core.monitors.create(parseWith(MonitorBody, json), consoleActor(c.var.session!));
      return c.redirect(`/monitors/${m.uuid}`, 303);
    } catch (e) {
      return form(c, f, undefined, e);
    }
  });

  app.get('/monitors/:uuid', async (c) => {
    const m = await found(c.req.param('uuid'));
    if (!m) return c.notFound();
    const policy = (m.escalationPolicyUuid ? await core.escalationPolicies.list() : []).find((p) => p.uuid === m.escalationPolicyUuid)?.name ?? null;
    const range: MonitorRange = chartRangeOf(c.req.query('range'));
    const now = clock.now();
    const from = now - MONITOR_RANGES[range];
    // The period's figures are the report over the window's span (src/domain/uptime.ts): the same uptime as the overview's.
    const span = uptimeSpanOf(MONITOR_RANGES[range], m.createdAt, now);
    // The page's reads, in parallel; then it renders at once.
    const [row, report, chart, checks, outages, beats, settings] = await Promise.all([
      core.consoleView.monitorRow(m),
      core.reports.report(m.uuid, span.from, span.to),
      chartSeries(core, m, range, from, now),
      core.consoleView.recentChecks(m, 50),
      core.consoleView.monitorOutages(m, 20),
      core.consoleView.heartbeats([m.uuid]),
      settingsOf(m),
    ]);
    const pending = row.status === 'pending';
    const period = { range, from, to: now, ...chart, sla: pending ? null : report.sla, downtime: report.totalDowntimeFormatted, mttr: report.mttrFormatted, outages: report.count };
    // The page shows the monitor as anyone may see it: secrets masked (src/protocols/secrets.ts).
    return page(c, MonitorPage({ s: shellOf(c, '/monitors'), m: maskMonitor(m), checks, outages, policy, settings, target: targetInWords(m), uptime24h: row.uptime24h, pending, period, now, lastAt: row.lastAt, beats: beats.get(m.uuid) ?? [] }));
  });
  app.get('/monitors/:uuid/edit', async (c) => {
    const m = await found(c.req.param('uuid'));
    return m ? form(c, monitorFormValues(m), m.uuid) : c.notFound();
  });
  app.post('/monitors/:uuid', async (c) => {
    const uuid = c.req.param('uuid');
    if (!(await found(uuid))) return c.notFound();
    const f = await formOf(c);
    try {
      const json = monitorJson(f);
      await prepareAssertions(json);
      await core.monitors.update(uuid, parseWith(MonitorBody, json), consoleActor(c.var.session!));
      return c.redirect(`/monitors/${uuid}`, 303);
    } catch (e) {
      return form(c, f, uuid, e);
    }
  });
  for (const action of ['pause', 'resume'] as const) {
    app.post(`/monitors/:uuid/${action}`, async (c) => {
      const m = await found(c.req.param('uuid'));
      if (!m) return c.notFound();
      await core.monitors.update(m.uuid, parseWith(MonitorBody, { name: m.name, url: m.url, paused: action === 'pause' }), consoleActor(c.var.session!));
      return c.redirect(`/monitors/${m.uuid}`, 303);
    });
  }
  // Delete (after its confirmation): routes-delete.ts.
}
