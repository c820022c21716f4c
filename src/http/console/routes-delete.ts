import type { Hono } from 'hono';
import { AppError } from '../../lib/errors.ts';
import { pingUrl } from '../../domain/healthcheck.ts';
import type { PageService, Statuspage } from '../../domain/statuspage.ts';
import type { HttpDeps } from '../context.ts';
import { DeleteConfirmPage, type DeleteConfirmation } from '../../../views/console/confirm-delete.tsx';
import { CONFIRM_FIELD, CONFIRM_VALUE } from '../../../views/console/delete-button.tsx';
import { page, shellOf, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { formOf, text } from './forms.ts';
import { consoleActor } from '../audit-actor.ts';
import { plural } from '../../../views/format.ts';

/** Outages counted for the confirmation page at most (more are shown as "N+"). */
const OUTAGES_COUNTED = 100;
/** Status pages read for "shown on" at most (pages of 20). */
const STATUSPAGE_PAGES_READ = 10;

const day = (at: number) => new Date(at).toISOString().slice(0, 10);

/**
 * Deleting a monitor, a healthcheck or a status page asks first (issue 33 point 1): GET
 * `<base>/delete` is the confirmation page (what is lost, Delete, Cancel, and for monitors and
 * healthchecks "Pause instead"); POST `<base>/delete` deletes only with the confirmation field the
 * page and the JavaScript dialog's request send (`confirm=delete`), and shows the confirmation page
 * otherwise, so a stray or old form's POST never deletes.
 */
export function deleteRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core } = deps;
  const orNull = async <T>(read: () => Promise<T>): Promise<T | null> => {
    try {
      return await read();
    } catch (e) {
      if (e instanceof AppError && e.status === 404) return null;
      throw e;
    }
  };
  /** Names of the status pages that show any of `uuids`. */
  const pagesShowing = async (uuids: string[]): Promise<string[]> => {
    const shows = (list: PageService[]): boolean => list.some((x) => uuids.includes(x.monitor_uuid) || shows(x.services));
    const names: string[] = [];
    for (let n = 0; n < STATUSPAGE_PAGES_READ; n++) {
      const r = await core.statuspages.list(n);
      for (const p of r.statuspages) if (p.sections.some((s) => shows(s.services))) names.push(p.name);
      if (!r.hasNextPage) break;
    }
    return names;
  };
  const shownOn = (names: string[]) => (names.length ? [`its place on ${plural(names.length, 'status page', 'status pages')}: ${names.join(', ')}`] : []);
  const outagesText = (n: number) => `${n >= OUTAGES_COUNTED ? `${OUTAGES_COUNTED}+ outages` : plural(n, 'outage', 'outages')} and their timelines`;

  const confirmations = {
    monitors: async (uuid: string): Promise<DeleteConfirmation | null> => {
      const m = await orNull(() => core.monitors.get(uuid));
      if (!m) return null;
      const outages = await core.consoleView.monitorOutages(m, OUTAGES_COUNTED);
      const losses = [`its check history since ${day(m.createdAt)} (results, response times, uptime bars and reports)`, outagesText(outages.length), ...shownOn(await pagesShowing([m.uuid]))];
      return { kind: 'monitor', name: m.name, base: `/monitors/${m.uuid}`, losses, pauseInstead: !m.paused, section: '/monitors' };
    },
    healthchecks: async (uuid: string): Promise<DeleteConfirmation | null> => {
      const h = await orNull(() => core.healthchecks.get(uuid));
      if (!h) return null;
      const outages = await core.consoleView.healthcheckOutages(h, OUTAGES_COUNTED);
      const losses = [
        `its ping history; jobs pinging ${pingUrl(core.config.public_url, h.uuid)} get "not found" from then on`,
        outagesText(outages.length),
        ...shownOn(await pagesShowing([h.uuid, h.publicUuid])),
      ];
      return { kind: 'healthcheck', name: h.name, base: `/healthchecks/${h.uuid}`, losses, pauseInstead: !h.paused, section: '/healthchecks' };
    },
    statuspages: async (uuid: string): Promise<DeleteConfirmation | null> => {
      const p: Statuspage | null = await orNull(() => core.statuspages.get(uuid));
      if (!p) return null;
      const address = p.hostname ? `https://${p.hostname}` : `${core.config.public_url.replace(/\/$/, '')}/status/${p.subdomain}`;
      const services = p.sections.reduce((n, s) => n + s.services.length, 0);
      const losses = [`its public address ${address}, which stops answering`, `its ${plural(p.sections.length, 'section', 'sections')} with ${plural(services, 'service', 'services')} and its settings`, 'its subscribers, who get no more updates'];
      return { kind: 'status page', name: p.name, base: `/statuspages/${p.uuid}`, losses, pauseInstead: false, section: '/statuspages' };
    },
  } as const;
  const deleters = {
    monitors: { run: (uuid: string, c: ConsoleContext) => core.monitors.delete(uuid, consoleActor(c.var.session!)), then: '/' },
    healthchecks: { run: (uuid: string, c: ConsoleContext) => core.healthchecks.delete(uuid, consoleActor(c.var.session!)), then: '/' },
    statuspages: { run: (uuid: string, c: ConsoleContext) => core.statuspages.delete(uuid, consoleActor(c.var.session!)), then: '/statuspages' },
  } as const;

  for (const kind of ['monitors', 'healthchecks', 'statuspages'] as const) {
    app.get(`/${kind}/:uuid/delete`, async (c) => {
      const d = await confirmations[kind](c.req.param('uuid'));
      return d ? page(c, DeleteConfirmPage({ s: shellOf(c, d.section), d })) : c.notFound();
    });
    app.post(`/${kind}/:uuid/delete`, async (c) => {
      if (text(await formOf(c), CONFIRM_FIELD) !== CONFIRM_VALUE) {
        const d = await confirmations[kind](c.req.param('uuid'));
        return d ? page(c, DeleteConfirmPage({ s: shellOf(c, d.section), d })) : c.notFound();
      }
      // Gone already: the core's 404 (the console's Not found page).
      await deleters[kind].run(c.req.param('uuid'), c);
      return c.redirect(deleters[kind].then, 303);
    });
  }
}
