import type { Hono } from 'hono';
import type { OnCallSchedule } from '../../domain/on-call/schedule.ts';
import { localToUtc, parseLocalDate, parseTimeOfDay } from '../../domain/on-call/zone.ts';
import { AppError, invalid } from '../../lib/errors.ts';
import type { HttpDeps } from '../context.ts';
import { consoleActor } from '../audit-actor.ts';
import { CreateBody, OverrideBody, bodyLayers } from '../api/on-call-schemas.ts';
import { feedUrl } from '../api/on-call-schedules.ts';
import { page, shellOf, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { errorStatus, formErrors, formOf, parseWith, text } from './forms.ts';
import { editedSchedule, scheduleBody, scheduleFormErrors, scheduleFormOf, scheduleValues, blankSchedule } from './on-call-form.ts';
import { OnCallListPage, SchedulePage, type OnCallLine } from '../../../views/console/on-call.tsx';
import { ScheduleFormPage, type PersonChoice, type ScheduleFormValues } from '../../../views/console/on-call-form.tsx';
import { PALETTE_SIZE, calendarDays, localWhen, weekStart } from '../../../views/console/on-call-calendar.tsx';
import type { FormErrors } from '../../../views/console/model.ts';

const DAY_MS = 86_400_000;
/** Days the calendar shows: five weeks from this week's Monday, so the next four weeks are always in it. */
const CALENDAR_DAYS = 35;
const DONE: Record<string, string> = { created: 'On-call schedule created.', saved: 'Saved.', deleted: 'On-call schedule deleted.', override: 'Override added.', removed: 'Override removed.' };

/** A `datetime-local` value (`YYYY-MM-DDTHH:MM`) in `zone` → ISO instant, or the text itself (so the API schema names it). */
function localInstant(zone: string, value: string): string {
  const [d, t] = value.split('T');
  const date = parseLocalDate(d ?? '');
  const time = parseTimeOfDay((t ?? '').slice(0, 5));
  return date && time ? new Date(localToUtc(zone, date, time[0], time[1])).toISOString() : value;
}

/**
 * The On-call pages (issue 34 point 2): schedules with who is on call now and next, a schedule's
 * calendar of the coming weeks, the editor (layers, rotations, restrictions), overrides and the iCal
 * links. Bodies are checked by the API's own zod schemas (CreateBody, OverrideBody) and core's rules;
 * the signed-in person is the audit actor.
 */
export function onCallRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core, clock } = deps;
  const people = async (): Promise<PersonChoice[]> => (await core.people.members()).filter((m) => m.disabledAt === null).map((m) => ({ uuid: m.uuid, name: m.name || m.email }));
  const zones = (): string[] => ['UTC', ...Intl.supportedValuesOf('timeZone')];
  const line = (zone: string, names: Map<string, string>, x: { userUuid: string; start: number; end: number } | null): OnCallLine | null =>
    x ? { name: names.get(x.userUuid) ?? x.userUuid, since: localWhen(zone, x.start), until: localWhen(zone, x.end) } : null;
  const namesOf = async (): Promise<Map<string, string>> => new Map((await people()).map((p) => [p.uuid, p.name]));

  app.get('/on-call', async (c) => {
    const [views, names] = await Promise.all([core.onCall.list(), namesOf()]);
    const rows = views.map((v) => ({ uuid: v.schedule.uuid, name: v.schedule.name, team: v.schedule.team, timeZone: v.schedule.timeZone, now: line(v.schedule.timeZone, names, v.current), next: line(v.schedule.timeZone, names, v.next) }));
    return page(c, OnCallListPage({ s: shellOf(c, '/on-call'), rows, notice: DONE[c.req.query('done') ?? ''] }));
  });

  const formPage = async (c: ConsoleContext, v: ScheduleFormValues, uuid: string | undefined, errors?: FormErrors, status: 200 | 400 | 403 | 404 | 409 | 429 = 200) =>
    page(c, ScheduleFormPage({ s: shellOf(c, '/on-call'), v, people: await people(), zones: zones(), errors, uuid, title: uuid ? `Edit ${v.name}` : 'New on-call schedule' }), status);

  app.get('/on-call/new', async (c) => formPage(c, blankSchedule(clock.now()), undefined));
  app.post('/on-call', async (c) => {
    const f = await formOf(c);
    const v = scheduleFormOf(f);
    const next = editedSchedule(v, text(f, 'op'));
    if (next) return formPage(c, next, undefined);
    try {
      const b = parseWith(CreateBody, scheduleBody(v));
      const s = await core.onCall.create({ name: b.name, team: b.team, description: b.description, timeZone: b.time_zone, layers: bodyLayers(b.layers) }, consoleActor(c.var.session!));
      return c.redirect(`/on-call/${s.uuid}?done=created`, 303);
    } catch (e) {
      return formPage(c, v, undefined, scheduleFormErrors(e), errorStatus(e));
    }
  });

  const show = async (c: ConsoleContext, s: OnCallSchedule, extra: Partial<Parameters<typeof SchedulePage>[0]> = {}, status: 200 | 400 | 404 | 409 = 200) => {
    const now = clock.now();
    const zone = s.timeZone;
    const first = weekStart(zone, now);
    const from = localToUtc(zone, first, 0, 0);
    const [view, t, overrides, everyone] = await Promise.all([core.onCall.get(s.uuid), core.onCall.timeline(s.uuid, from, from + (CALENDAR_DAYS + 1) * DAY_MS), core.onCall.overrides(s.uuid, now, 8.64e15), people()]);
    const names = new Map(everyone.map((p) => [p.uuid, p.name]));
    const order = [...new Set([...core.onCall.usersOf(s), ...t.shifts.map((x) => x.userUuid)])];
    const colourOf = (u: string) => Math.max(order.indexOf(u), 0) % PALETTE_SIZE;
    return page(
      c,
      SchedulePage({
        s: shellOf(c, '/on-call'),
        uuid: s.uuid,
        name: s.name,
        team: s.team,
        description: s.description,
        timeZone: zone,
        now: line(zone, names, view.current),
        next: line(zone, names, view.next),
        days: calendarDays(zone, first, CALENDAR_DAYS, now, t.shifts, names, colourOf),
        overrides: overrides.map((o) => ({ uuid: o.uuid, name: names.get(o.userUuid) ?? o.userUuid, start: localWhen(zone, o.startsAt), end: localWhen(zone, o.endsAt), note: o.note })),
        people: everyone,
        members: order.map((u) => ({ uuid: u, name: names.get(u) ?? u, colour: colourOf(u) })),
        notice: DONE[c.req.query('done') ?? ''],
        ...extra,
      }),
      status,
    );
  };
  const schedule = async (c: ConsoleContext) => (await core.onCall.get(c.req.param('uuid')!)).schedule;

  app.get('/on-call/:uuid', async (c) => show(c, await schedule(c)));
  app.get('/on-call/:uuid/edit', async (c) => {
    const s = await schedule(c);
    return formPage(c, scheduleValues(s), s.uuid);
  });
  app.post('/on-call/:uuid', async (c) => {
    const s = await schedule(c);
    const f = await formOf(c);
    const v = scheduleFormOf(f);
    const next = editedSchedule(v, text(f, 'op'));
    if (next) return formPage(c, next, s.uuid);
    try {
      const b = parseWith(CreateBody, scheduleBody(v));
      await core.onCall.update(s.uuid, { name: b.name, team: b.team ?? null, description: b.description ?? null, timeZone: b.time_zone, layers: bodyLayers(b.layers) }, consoleActor(c.var.session!));
      return c.redirect(`/on-call/${s.uuid}?done=saved`, 303);
    } catch (e) {
      return formPage(c, v, s.uuid, scheduleFormErrors(e), errorStatus(e));
    }
  });
  app.post('/on-call/:uuid/remove', async (c) => {
    await core.onCall.delete(c.req.param('uuid'), consoleActor(c.var.session!));
    return c.redirect('/on-call?done=deleted', 303);
  });

  app.post('/on-call/:uuid/overrides', async (c) => {
    const s = await schedule(c);
    const f = await formOf(c);
    const typed = { user: text(f, 'user_uuid'), start: text(f, 'start'), end: text(f, 'end'), note: text(f, 'note') };
    try {
      if (typed.user === '') throw invalid('user_uuid', 'pick the person who covers');
      const b = parseWith(OverrideBody, { user_uuid: typed.user, start: localInstant(s.timeZone, typed.start), end: localInstant(s.timeZone, typed.end), note: typed.note || null });
      await core.onCall.createOverride(s.uuid, { userUuid: b.user_uuid, startsAt: Date.parse(b.start), endsAt: Date.parse(b.end), note: b.note }, consoleActor(c.var.session!));
      return c.redirect(`/on-call/${s.uuid}?done=override`, 303);
    } catch (e) {
      const errors = formErrors(e);
      return show(c, s, { errors, override: typed }, errorStatus(e) === 404 ? 404 : 400);
    }
  });
  app.post('/on-call/:uuid/overrides/:override/remove', async (c) => {
    await core.onCall.deleteOverride(c.req.param('uuid'), c.req.param('override'), consoleActor(c.var.session!));
    return c.redirect(`/on-call/${c.req.param('uuid')}?done=removed`, 303);
  });

  // A new secret feed URL: shown once on the schedule page (only its hash is stored).
  app.post('/on-call/:uuid/ical', async (c) => {
    const s = await schedule(c);
    const token = await core.onCallFeeds.rotate('schedule', s.uuid, consoleActor(c.var.session!));
    return show(c, s, { feed: { what: 'this schedule', url: feedUrl(core.config.public_url, token) } });
  });
  app.post('/on-call/:uuid/ical/:user', async (c) => {
    const s = await schedule(c);
    const user = c.req.param('user');
    const found = (await people()).find((p) => p.uuid === user);
    if (!found) throw new AppError(404, 'team_members.not_found', `team member ${user} not found`);
    const token = await core.onCallFeeds.rotate('user', user, consoleActor(c.var.session!));
    return show(c, s, { feed: { what: `${found.name}'s shifts`, url: feedUrl(core.config.public_url, token) } });
  });
}
