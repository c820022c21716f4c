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

/** Queues `messageOf(page)` for every confirmed subscriber of each page. @returns messages queued */
function queueToPages(tx: Store, pages: Statuspage[], messageOf: (page: Statuspage, url: string) => AlertMessage, publicUrl: string, now: number): number {
  const base = publicUrl.replace(/\/+$/, '');
  let n = 0;
  for (const page of pages) {
    const message = JSON.stringify(messageOf(page, `${base}/status/${page.subdomain}`));
    for (const s of tx.subscribers.confirmedOf(page.id)) {
      tx.alerts.insert({ outageUuid: null, channel: SUBSCRIBER_CHANNEL_PREFIX + s.uuid, kind: 'notice', step: null, message, createdAt: now, dueAt: now });
      n++;
    }
  }
  return n;
}

/** Queues an incident's change for the confirmed subscribers of its pages. Call inside the incident's transaction. @returns messages queued */
export function queueIncidentNotices(tx: Store, incident: Incident, change: IncidentChange, publicUrl: string, now: number): number {
  const pages = subscribablePages(tx, incident.statuspages);
  return queueToPages(tx, pages, (page, url) => incidentNotice(page.name, page.settings.languages[0] ?? 'en', incident, change, url, now), publicUrl, now);
}

/**
 * Queues a maintenance notice for the confirmed subscribers of the window's pages, once per window
 * (`notified_at`). Call inside a transaction. @returns messages queued
 */
export function queueMaintenanceNotices(tx: Store, w: MaintenanceWindow, publicUrl: string, now: number): number {
  if (!tx.maintenance.markNotified(w.uuid, now)) return 0;
  const pages = subscribablePages(tx, w.statuspages);
  return queueToPages(tx, pages, (page, url) => maintenanceNotice(page.name, page.settings.languages[0] ?? 'en', w, url, now), publicUrl, now);
}
