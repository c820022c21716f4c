import type { Incident } from '../domain/incident.ts';
import type { MaintenanceWindow } from '../domain/maintenance.ts';
import { incidentNotice, maintenanceNotice, type IncidentChange } from '../domain/page-notice.ts';
import type { Statuspage } from '../domain/statuspage.ts';
import type { AlertMessage } from '../domain/alert.ts';
import type { Store } from '../store/index.ts';
import { SUBSCRIBER_CHANNEL_PREFIX } from './subscriptions.ts';

/*
 * The notices a status-page change queues for the confirmed subscribers of its pages, as pure
 * functions of a transaction-scoped store and plain arguments: they run inside the procedures of
 * core/incidents.ts and core/maintenance.ts (on the store host thread on PostgreSQL), in the same
 * transaction as the write that caused them (the outbox, channel `subscriber:<uuid>`).
 */

/** The pages of `uuids` that exist and take subscriptions. */
function subscribablePages(tx: Store, uuids: readonly string[]): Statuspage[] {
  return uuids.map((u) => tx.statuspages.get(u)).filter((p): p is Statuspage => p !== undefined && p.settings.subscribe.enabled);
}

/**
 * Queues `messageOf(page, url, lang)` for every confirmed subscriber of each page, `lang` being the
 * subscriber's language (set through the API) or else the page's first (built once per language).
 * @returns messages queued
 */
function queueToPages(tx: Store, pages: Statuspage[], messageOf: (page: Statuspage, url: string, lang: string) => AlertMessage, publicUrl: string, now: number): number {
  const base = publicUrl.replace(/\/+$/, '');
  let n = 0;
  for (const page of pages) {
    const byLang = new Map<string, string>();
    const first = page.settings.languages[0] ?? 'en';
    for (const s of tx.subscribers.confirmedOf(page.id)) {
      const lang = s.language ?? first;
      let message = byLang.get(lang);
      if (message === undefined) byLang.set(lang, (message = JSON.stringify(messageOf(page, `${base}/status/${page.subdomain}`, lang))));
      tx.alerts.insert({ outageUuid: null, channel: SUBSCRIBER_CHANNEL_PREFIX + s.uuid, kind: 'notice', step: null, message, createdAt: now, dueAt: now });
      n++;
    }
  }
  return n;
}

/** Queues an incident's change for the confirmed subscribers of its pages. Call inside the incident's transaction. @returns messages queued */
export function queueIncidentNotices(tx: Store, incident: Incident, change: IncidentChange, publicUrl: string, now: number): number {
  const pages = subscribablePages(tx, incident.statuspages);
  return queueToPages(tx, pages, (page, url, lang) => incidentNotice(page.name, lang, incident, change, url, now), publicUrl, now);
}

/**
 * Queues a maintenance notice for the confirmed subscribers of the window's pages, once per window
 * (`notified_at`). Call inside a transaction. @returns messages queued
 */
export function queueMaintenanceNotices(tx: Store, w: MaintenanceWindow, publicUrl: string, now: number): number {
  if (!tx.maintenance.markNotified(w.uuid, now)) return 0;
  const pages = subscribablePages(tx, w.statuspages);
  return queueToPages(tx, pages, (page, url, lang) => maintenanceNotice(page.name, lang, w, url, now), publicUrl, now);
}
