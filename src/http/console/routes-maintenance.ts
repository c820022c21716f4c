import type { Hono } from 'hono';
import { AppError } from '../../lib/errors.ts';
import { MaintenanceBody, type MaintenanceBodyInput, type MaintenanceWindow } from '../../domain/maintenance.ts';
import { wallClockToUtc } from '../../domain/maintenance-recurrence.ts';
import type { HttpDeps } from '../context.ts';
import type { FormValues } from '../../../views/console/model.ts';
import { consoleActor } from '../audit-actor.ts';
import type { ConsoleContext, ConsoleEnv } from './context.ts';
import { formOf, numberish, parseWith, text } from './forms.ts';
import { pickQueryValues } from './picker.ts';

const many = (f: FormValues, name: string): string[] => {
  const v = f[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};

/** `YYYY-MM-DDTHH:MM` (datetime-local) on the wall clock of `zone` → ISO UTC; anything else as typed (the schema names the rule). */
function localDateTime(s: string, zone: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})$/.exec(s);
  const at = m ? wallClockToUtc(m[1]!, m[2]!, zone) : null;
  return at === null ? s : new Date(at).toISOString();
}

/** The calendar day after `YYYY-MM-DD` (a date string, no time or zone). */
const dayAfter = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** A `YYYY-MM-DD` date's midnight (or the next day's: `endOfDay`) in `zone` → ISO; '' → null; else as typed. */
function localDate(s: string, zone: string, endOfDay: boolean): string | null {
  if (s === '') return null;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return s;
  const at = wallClockToUtc(endOfDay ? dayAfter(s) : s, '00:00', zone);
  return at === null ? s : new Date(at).toISOString();
}

/**
 * The window form → the API's body (one schema, MaintenanceBody): the strategy's fields become
 * `recurrence`; dates and times are the wall clock of the form's time zone; "valid until" is
 * inclusive (its day's end). @throws AppError 400 naming the field
 */
export function maintenanceBodyOf(f: FormValues): MaintenanceBodyInput {
  const timezone = text(f, 'timezone').trim() || 'UTC';
  const strategy = text(f, 'strategy') || 'once';
  const base = { name: text(f, 'name'), timezone, monitors: many(f, 'monitors') };
  if (strategy === 'once') {
    return parseWith(MaintenanceBody, { ...base, recurrence: null, start_date: localDateTime(text(f, 'start_date'), timezone), end_date: localDateTime(text(f, 'end_date'), timezone) });
  }
  const duration = text(f, 'duration_minutes');
  const dom = text(f, 'days_of_month')
    .split(/[\s,]+/)
    .filter((x) => x !== '')
    .map((x) => (x.toLowerCase() === 'last' ? 'last' : numberish(x)));
  return parseWith(MaintenanceBody, {
    ...base,
    recurrence: {
      strategy,
      ...(strategy === 'cron' ? { cron: text(f, 'cron') } : { start_time: text(f, 'start_time') || undefined }),
      duration_minutes: duration === '' ? undefined : numberish(duration),
      ...(strategy === 'weekly' ? { days_of_week: many(f, 'days_of_week').map((d) => numberish(d)) } : {}),
      ...(strategy === 'monthly' ? { days_of_month: dom } : {}),
      valid_from: localDate(text(f, 'valid_from'), timezone, false),
      valid_until: localDate(text(f, 'valid_until'), timezone, true),
    },
  });
}

/** `at` as a `datetime-local` or `date` value on the wall clock of `zone` (Intl formats). */
function localValue(at: number, zone: string): { date: string; time: string } {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const p = (t: string) => parts.find((x) => x.type === t)?.value ?? '';
  return { date: `${p('year')}-${p('month')}-${p('day')}`, time: `${p('hour')}:${p('minute')}` };
}

/** A stored window → the form's values (the edit form). */
export function windowValues(w: MaintenanceWindow): FormValues {
  const v: FormValues = { name: w.name, timezone: w.timezone, monitors: w.monitors, strategy: w.recurrence?.strategy ?? 'once' };
  const r = w.recurrence;
  if (!r) {
    const s = localValue(w.startAt, w.timezone);
    const e = localValue(w.endAt, w.timezone);
    return { ...v, start_date: `${s.date}T${s.time}`, end_date: `${e.date}T${e.time}` };
  }
  const until = r.validUntil === null ? '' : localValue(r.validUntil - 1, w.timezone).date;
  return {
    ...v,
    start_time: r.startTime ?? '',
    duration_minutes: String(r.durationMinutes),
    days_of_week: r.daysOfWeek.map(String),
    days_of_month: r.daysOfMonth.join(', '),
    cron: r.cron ?? '',
    valid_from: localValue(r.validFrom, w.timezone).date,
    valid_until: until,
  };
}

/** Renders the maintenance screen (extras.tsx `MaintenancePage`): with `editing`, the edit form of that window. */
export type MaintenanceScreen = (c: ConsoleContext, values?: FormValues, e?: unknown, editing?: MaintenanceWindow) => Promise<Response>;

/**
 * A window's edit form (GET/POST `/maintenance/:uuid`, the same form as "New window" filled in) and
 * "End now" (POST `/maintenance/:uuid/end`: the ongoing occurrence ends now, held alerts flow,
 * audit-logged). Viewers are refused by the router's role rule before these run.
 */
export function maintenanceRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps, screen: MaintenanceScreen): void {
  const { core } = deps;
  const found = async (uuid: string): Promise<MaintenanceWindow | null> => {
    try {
      return await core.maintenance.get(uuid);
    } catch (e) {
      if (e instanceof AppError && e.status === 404) return null;
      throw e;
    }
  };
  app.get('/maintenance/:uuid', async (c) => {
    const w = await found(c.req.param('uuid'));
    if (!w) return c.notFound();
    // The monitor picker's search without JavaScript submits the form by GET: keep what was typed.
    const typed = pickQueryValues(c);
    return screen(c, Object.keys(typed).length ? typed : windowValues(w), undefined, w);
  });
  app.post('/maintenance/:uuid', async (c) => {
    const w = await found(c.req.param('uuid'));
    if (!w) return c.notFound();
    const f = await formOf(c);
    try {
      await core.maintenance.update(w.uuid, maintenanceBodyOf(f), consoleActor(c.var.session!));
      return c.redirect('/maintenance', 303);
    } catch (e) {
      return screen(c, f, e, w);
    }
  });
  app.post('/maintenance/:uuid/end', async (c) => {
    const w = await found(c.req.param('uuid'));
    if (!w) return c.notFound();
    try {
      await core.maintenance.endNow(w.uuid, consoleActor(c.var.session!));
    } catch (e) {
      // Over already (ended by someone else, or its end passed): the list shows how it stands.
      if (!(e instanceof AppError && e.status === 409)) throw e;
    }
    return c.redirect('/maintenance', 303);
  });
}
