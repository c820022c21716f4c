import type { Clock } from '../../lib/clock.ts';
import { EventBus } from '../../core/events.ts';
import type { PageView, ServiceView } from '../../core/status-view.ts';
import { DAY_MS, dailyUptime } from '../../domain/status-page-view.ts';
import { uptimeFigure } from '../../domain/uptime.ts';
import { DEFAULT_SETTINGS, type PageService, type Statuspage } from '../../domain/statuspage.ts';
import { StatusPage } from '../../../views/status-page.tsx';
import { PageRenderCache } from './cache.ts';
import { chromeFor, htmlDocument } from './context.ts';

/** Services of the synthetic page: as many as the render aim of issue 21 names (50). */
const SERVICES = 50;

/**
 * Renders one synthetic status page — {@link SERVICES} monitors in 5 sections, each with 90 daily
 * uptime bars (some with an outage) and a 24 h response-time graph — through the same template, document,
 * ETag and brotli/gzip compression as a visitor's page (a throwaway {@link PageRenderCache}). Nothing
 * is read from or written to the store, and nothing is kept.
 *
 * Why: a process's first render costs about four times a later one (22 ms of CPU against 5.5 ms on
 * the development VM, docs/PERFORMANCE.md "Session 9"): the template code is not compiled yet and
 * the formatters, compressor and catalogues are created on first use. `pharos serve` calls this once
 * (through {@link warmUpWhenPagesExist}), so the first visitor of a status page — often during an
 * outage, after a restart — does not pay that. Takes about 25 ms of the event loop, once.
 * @returns the page's HTML (UTF-8), for tests
 */
export function warmUpPageRender(clock: Clock): Buffer {
  const now = clock.now();
  const since = now - 90 * DAY_MS;
  const outage = { startAt: now - 3 * DAY_MS, endAt: now - 3 * DAY_MS + 600_000 };
  // Every object below has the property order of its real counterpart (domain/statuspage.ts's
  // resolver, core/status-view.ts), so the template's inline caches see the shapes a visitor's page
  // brings, not a second set of them.
  const services: PageService[] = Array.from({ length: SERVICES }, (_, i) => ({
    monitor_uuid: `mon_warmup${i}`,
    name_shown: `Service ${i}`,
    name_i18n: null,
    show_uptime: true,
    show_response_times: true,
    description: null,
    description_i18n: null,
    is_group: false,
    services: [],
  }));
  const page: Statuspage = {
    id: 0,
    uuid: 'sp_warmup',
    name: 'Warm-up',
    subdomain: 'warm-up',
    hostname: null,
    settings: DEFAULT_SETTINGS,
    sections: Array.from({ length: SERVICES / 10 }, (_, s) => ({ name: `Section ${s}`, name_i18n: null, services: services.slice(s * 10, s * 10 + 10) })),
    passwordHash: null,
    createdAt: since,
    updatedAt: since,
  };
  const view = (s: PageService, i: number): ServiceView => {
    const days = dailyUptime(i % 7 === 0 ? [outage] : [], [], since, now);
    const hours = Array.from({ length: 24 }, (_, h): [number, number] => [now - now % 3_600_000 - (23 - h) * 3_600_000, 40 + ((h * 7 + i) % 30)]);
    const base = { name: s.name_shown ?? '', description: s.description, nameI18n: s.name_i18n ?? null, descriptionI18n: s.description_i18n ?? null };
    return { ...base, name: s.name_shown!, kind: 'monitor', status: i === 3 ? 'major_outage' : 'operational', days, uptime: uptimeFigure('90d', { outages: i % 7 === 0 ? [outage] : [], maintenance: [], createdAt: since, checked: true }, now).percent, latency: hours, children: [] };
  };
  const pageView: PageView = {
    page,
    now,
    overall: 'partial_outage',
    sections: page.sections.map((sec, k) => ({ name: sec.name, nameI18n: null, services: sec.services.map((s, i) => view(s, k * 10 + i)) })),
    activeIncidents: [],
    activeMaintenance: [],
    upcomingMaintenance: [],
  };
  const chrome = chromeFor(page, '', undefined, now);
  const cache = new PageRenderCache(new EventBus(), clock);
  const entry = cache.put('warm-up', chrome.nonce, { body: htmlDocument(StatusPage({ c: chrome, view: pageView, range: '24h', canSubscribe: true })), contentType: 'text/html; charset=UTF-8' });
  cache.encoded(entry, 'br');
  cache.encoded(entry, 'gzip');
  return entry.body;
}
