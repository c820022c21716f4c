import type { Hono } from 'hono';
import { localize } from '../../domain/localized.ts';
import type { MaintenanceWindow } from '../../domain/maintenance.ts';
import type { ServiceView } from '../../core/status-view.ts';
import type { HttpDeps } from '../context.ts';
import type { PageEnv } from './context.ts';
import { atomXml, type AtomEntry } from './atom.ts';
import { cachedPage, pageCacheFor, viewChangesAt } from './cached.ts';

const BADGE_COLOURS = { operational: 'brightgreen', maintenance: 'blue', degraded: 'yellow', partial_outage: 'orange', major_outage: 'red' } as const;

/**
 * Machine-readable routes of a page, behind the same gate as its HTML: `feed.atom` (incident
 * history, Atom 1.0 with text constructs as `type="text"`, see atom.ts), `summary.json` (overall and per-service status, no
 * uuids, no URLs of monitors) and `badge.svg` (overall status, via shields.io's `badge-maker`).
 */
export function feedRoutes(app: Hono<PageEnv>, deps: HttpDeps): void {
  const { core } = deps;
  const publicUrl = core.config.public_url.replace(/\/+$/, '');
  const cache = pageCacheFor(core, deps.clock);

  app.get('/feed.atom', (c) => cachedPage(c, cache, 'feed', async () => {
    const { page, chrome } = c.var;
    const pageUrl = `${publicUrl}/status/${page.subdomain}`;
    const view = await core.statusView.history(page);
    const updated = Math.max(page.updatedAt, ...view.incidents.map((i) => i.updatedAt));
    const entries = view.incidents.map((i): AtomEntry => {
      const text = [...i.updates].reverse().map((u) => `${chrome.t[`update_${u.type}`]} (${new Date(u.at).toISOString()}): ${localize(u.text, chrome.lang)}`);
      return {
        title: localize(i.title, chrome.lang),
        id: `urn:pharos:incident:${i.uuid}`,
        link: `${pageUrl}/history#${i.uuid}`,
        updatedAt: i.updatedAt,
        publishedAt: i.createdAt,
        summary: text[0] ?? '',
        content: text.join('\n'),
      };
    });
    const xml = atomXml({
      title: `${page.name} · ${chrome.t.incident_history}`,
      id: `${pageUrl}/feed.atom`,
      link: pageUrl,
      self: `${pageUrl}/feed.atom`,
      language: chrome.lang,
      author: page.name,
      updatedAt: updated,
      entries,
    });
    return { body: xml, contentType: 'application/atom+xml; charset=utf-8' };
  }));

  app.get('/summary.json', (c) => cachedPage(c, cache, 'summary', async () => {
    const { page } = c.var;
    const view = await core.statusView.page(page);
    const services: Array<{ name: string; status: string; section: string; group: string | null; uptime_90_days: number | null }> = [];
    const add = (s: ServiceView, section: string, group: string | null) => services.push({ name: s.name, status: s.status, section, group, uptime_90_days: s.uptime });
    for (const sec of view.sections) {
      for (const s of sec.services) {
        add(s, sec.name, null);
        for (const child of s.children) add(child, sec.name, s.name);
      }
    }
    const window = (w: MaintenanceWindow) => ({ title: localize(w.title, page.settings.languages[0] ?? 'en') || w.name, start: new Date(w.startAt).toISOString(), end: new Date(w.endAt).toISOString() });
    const summary = {
      page: { name: page.name, url: `${publicUrl}/status/${page.subdomain}`, updated_at: new Date(view.now).toISOString() },
      status: view.overall,
      services,
      active_incidents: view.activeIncidents.map((i) => ({
        title: i.title,
        type: i.type,
        created_at: new Date(i.createdAt).toISOString(),
        updates: i.updates.map((u) => ({ type: u.type, text: u.text, date: new Date(u.at).toISOString() })),
      })),
      maintenance: { active: view.activeMaintenance.map(window), upcoming: view.upcomingMaintenance.map(window) },
    };
    return { body: JSON.stringify(summary), contentType: 'application/json', changesAt: viewChangesAt(view) };
  }));

  // Embeddable: an <img> on another site may load it (issue 33 point 8); every other page route stays same-origin.
  app.get('/badge.svg', (c) => {
    c.header('Cross-Origin-Resource-Policy', 'cross-origin');
    return cachedPage(c, cache, 'badge', async () => {
      const { chrome } = c.var;
      const view = await core.statusView.page(c.var.page);
      // badge-maker loads at the first badge, not at start (issue 38).
      const svg = (await import('badge-maker')).makeBadge({ label: 'status', message: chrome.t[`banner_${view.overall}`], color: BADGE_COLOURS[view.overall] });
      return { body: svg, contentType: 'image/svg+xml; charset=utf-8', changesAt: viewChangesAt(view) };
    });
  });
}
