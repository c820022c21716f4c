import type { Hono } from 'hono';
import { AppError } from '../../lib/errors.ts';
import type { HttpDeps } from '../context.ts';
import { OverviewPage } from '../../../views/console/overview.tsx';
import { InboxPage, OutagePage } from '../../../views/console/outages.tsx';
import { flashOf, MAX_PER_PAGE, PER_PAGE, SORT_LABELS, type OverviewFilter } from '../../../views/console/overview-list.tsx';
import { canWrite } from '../../../views/console/model.ts';
import { page, shellOf, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { formOf, text } from './forms.ts';
import { fillHeartbeats } from './heartbeats.ts';
import { onCallGapsAhead } from './on-call-gaps.ts';

const STATUSES = ['', 'up', 'down', 'paused', 'pending', 'maintenance'];
/** Pages past this are not asked for (10,000 × 200 rows). */
const MAX_PAGE = 10_000;

/** A whole number from `v` within [min, max], else `fallback`. */
const intIn = (v: string | undefined, min: number, max: number, fallback: number) => {
  const x = Number(v);
  return v !== undefined && Number.isInteger(x) && x >= min ? Math.min(x, max) : fallback;
};

/**
 * The overview's query string read leniently (a console link, not the API): unknown sorts, statuses
 * or pages fall back to the defaults; `per` is capped at {@link MAX_PER_PAGE}.
 */
export function overviewFilterOf(c: ConsoleContext): OverviewFilter {
  const q = (k: string) => c.req.query(k);
  const sort = q('sort') ?? 'status';
  return {
    q: (q('q') ?? '').trim().slice(0, 200),
    status: STATUSES.includes(q('status') ?? '') ? (q('status') ?? '') : '',
    protocol: (q('protocol') ?? '').slice(0, 40),
    tag: (q('tag') ?? '').trim().slice(0, 40),
    group: (q('group') ?? '').trim().slice(0, 100),
    sort: sort in SORT_LABELS ? (sort as OverviewFilter['sort']) : 'status',
    dir: q('dir') === 'desc' ? 'desc' : 'asc',
    page: intIn(q('page'), 1, MAX_PAGE, 1),
    per: intIn(q('per'), 1, MAX_PER_PAGE, PER_PAGE),
  };
}

/** The overview at `/`: one page of rows, filtered, sorted and paged by the store (issue 33 point 5). */
export function overviewRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core, clock } = deps;
  app.get('/', async (c) => {
    const filter = overviewFilterOf(c);
    const s = shellOf(c, '/');
    const [data, policies, tags, groups, onCallGaps] = await Promise.all([
      core.consoleView.overviewPage({ q: filter.q, status: filter.status, protocol: filter.protocol, tag: filter.tag, group: filter.group, sort: filter.sort, dir: filter.dir, limit: filter.per, offset: (filter.page - 1) * filter.per }),
      canWrite(s) ? core.escalationPolicies.list() : Promise.resolve([]),
      core.tags.list(),
      core.tags.groups(),
      onCallGapsAhead(core, clock.now()),
    ]);
    const flash = flashOf(c.req.query('done') ?? '', Number(c.req.query('n')));
    await fillHeartbeats(core, data.rows);
    return page(c, OverviewPage({ s, ...data, filter, now: clock.now(), flash, policies: policies.map((p) => ({ uuid: p.uuid, name: p.name })), withTags: true, tags: tags.map((t) => t.name), tagColors: tags.map((t) => t.color), groups, onCallGaps }));
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
