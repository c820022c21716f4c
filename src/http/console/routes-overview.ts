import type { Hono } from 'hono';
import { AppError } from '../../lib/errors.ts';
import type { HttpDeps } from '../context.ts';
import { filterRows, OverviewPage } from '../../../views/console/overview.tsx';
import { InboxPage, OutagePage } from '../../../views/console/outages.tsx';
import { page, shellOf, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { formOf, text } from './forms.ts';
import { fillHeartbeats } from './heartbeats.ts';

/** The overview at `/`. */
export function overviewRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core, clock } = deps;
  app.get('/', async (c) => {
    const all = await core.consoleView.overview();
    const filter = { status: c.req.query('status') ?? '', protocol: c.req.query('protocol') ?? '', q: c.req.query('q') ?? '' };
    const rows = filterRows(all, filter);
    await fillHeartbeats(core, rows);
    return page(c, OverviewPage({ s: shellOf(c, '/'), rows, all, filter, now: clock.now() }));
  });
}

const ACTIONS = ['acknowledge', 'unacknowledge', 'resolve', 'escalate'] as const;

/** The outages inbox and the outage page with its actions. */
export function outageRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core, clock } = deps;
  app.get('/outages', async (c) => {
    const n = Number(c.req.query('page') ?? 0);
    const p = Number.isInteger(n) && n >= 0 && n < 10_000 ? n : 0;
    const [ongoing, resolved] = await Promise.all([p === 0 ? core.outages.list({ status: 'ongoing', type: 'all' }, 0).then((l) => l.outages) : [], core.outages.list({ status: 'resolved', type: 'all' }, p)]);
    return page(c, InboxPage({ s: shellOf(c, '/outages'), ongoing, resolved: resolved.outages, now: clock.now(), page: p, hasNext: resolved.hasNextPage }));
  });

  const show = async (c: ConsoleContext, uuid: string, error?: string, status: 200 | 403 | 404 | 409 = 200) => {
    const [o, timeline, alerts] = await Promise.all([core.outages.get(uuid), core.outages.timeline(uuid), core.consoleView.alertsOf(uuid)]);
    const users: Record<string, string> = {};
    for (const e of timeline) if (e.userUuid && !users[e.userUuid]) users[e.userUuid] = (await core.users.get(e.userUuid))?.name ?? 'a deleted user';
    const el = OutagePage({ s: shellOf(c, '/outages'), o, timeline, users, alerts, now: clock.now(), error, canEscalate: o.escalationPolicyUuid !== null });
    return page(c, el, status);
  };

  app.get('/outages/:uuid', async (c) => {
    try {
      return await show(c, c.req.param('uuid'));
    } catch (e) {
      if (e instanceof AppError && e.status === 404) return c.notFound();
      throw e;
    }
  });

  app.post('/outages/:uuid/act', async (c) => {
    const uuid = c.req.param('uuid');
    const f = await formOf(c);
    const action = text(f, 'action') as (typeof ACTIONS)[number];
    const message = text(f, 'message').trim().slice(0, 2000) || null;
    const by = c.var.session!.principal;
    try {
      if (!ACTIONS.includes(action)) throw new AppError(400, 'validation.invalid', `action: must be one of ${ACTIONS.join(', ')}`);
      await core.outages[action](uuid, by, message);
    } catch (e) {
      if (!(e instanceof AppError) || e.status >= 500) throw e;
      if (e.status === 404) return c.notFound();
      return show(c, uuid, e.message, e.status === 403 ? 403 : 409);
    }
    return c.redirect(`/outages/${uuid}`, 303);
  });
}
