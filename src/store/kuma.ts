import Database from 'better-sqlite3';
import { kumaMonitor, kumaNotification, type KumaData, type KumaTag, type KumaMaintenance, type KumaStatusPage } from '../domain/kuma/types.ts';
import type { Db } from './db.ts';

/** A JSON array column (`'[1,3]'`), or [] when absent, empty or not an array. */
function jsonList(v: unknown): unknown[] {
  if (typeof v !== 'string' || v === '') return [];
  try {
    const parsed: unknown = JSON.parse(v);
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    // A hand-edited or truncated column reads as no days; the import report says the window was skipped.
    return [];
  }
}

/**
 * Reads an Uptime Kuma `kuma.db` (SQLite), schema 1.23 (the bundled template plus its patches) or
 * 2.x (the same plus knex migrations, told apart by the `knex_migrations` table), read-only: the
 * file is opened with `readonly` and `fileMustExist`, and nothing is written. Columns added by
 * later versions (`json_path_operator`, `timezone`, …) are read when present.
 * @throws Error naming the file when it is not a Kuma database
 */
export function readKumaDb(file: string, nativeBinding?: object): KumaData {
  const kuma = new Database(file, { readonly: true, fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) } as Database.Options);
  try {
    const tables = new Set((kuma.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name));
    if (!tables.has('monitor') || !tables.has('notification')) throw new Error(`${file} is not an Uptime Kuma database (no monitor/notification tables)`);
    const columns = (table: string) => new Set((kuma.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name));
    const links = kuma.prepare('SELECT monitor_id, notification_id FROM monitor_notification ORDER BY notification_id').all() as { monitor_id: number; notification_id: number }[];
    const byMonitor = new Map<number, number[]>();
    for (const l of links) byMonitor.set(l.monitor_id, [...(byMonitor.get(l.monitor_id) ?? []), l.notification_id]);
    // Tags (issue 33 point 5): Kuma's `tag` (name, color) and `monitor_tag` (monitor_id, tag_id, value).
    const tagsOf = new Map<number, KumaTag[]>();
    if (tables.has('tag') && tables.has('monitor_tag')) {
      for (const t of kuma.prepare('SELECT mt.monitor_id, t.name, t.color, mt.value FROM monitor_tag mt JOIN tag t ON t.id = mt.tag_id ORDER BY mt.id').all() as { monitor_id: number; name: string; color: string | null; value: string | null }[]) {
        tagsOf.set(t.monitor_id, [...(tagsOf.get(t.monitor_id) ?? []), { name: t.name, color: t.color ?? '', value: t.value ?? '' }]);
      }
    }
    // Docker monitors name a `docker_host` row (its daemon: a socket path or a URL, and its type), joined here.
    const dockerHosts = new Map<number, { docker_daemon: string | null; docker_type: string | null }>();
    if (tables.has('docker_host')) for (const h of kuma.prepare('SELECT id, docker_daemon, docker_type FROM docker_host').all() as { id: number; docker_daemon: string | null; docker_type: string | null }[]) dockerHosts.set(h.id, { docker_daemon: h.docker_daemon, docker_type: h.docker_type });
    const monitors = (kuma.prepare('SELECT * FROM monitor ORDER BY id').all() as Record<string, unknown>[]).map((r) => kumaMonitor({ ...r, ...dockerHosts.get(r.docker_host as number) }, byMonitor.get(r.id as number) ?? [], tagsOf.get(r.id as number) ?? []));
    const notifications = (kuma.prepare('SELECT * FROM notification ORDER BY id').all() as Record<string, unknown>[]).map(kumaNotification);

    const statusPages: KumaStatusPage[] = [];
    if (tables.has('status_page')) {
      const groups = kuma.prepare('SELECT id, name FROM "group" WHERE status_page_id = ? ORDER BY weight, id');
      const members = kuma.prepare('SELECT monitor_id FROM monitor_group WHERE group_id = ? ORDER BY weight, id');
      // Footer and theme (issue 36) where the columns exist.
      const pageCols = columns('status_page');
      const extra = ['footer_text', 'theme'].filter((c) => pageCols.has(c)).map((c) => `, ${c}`).join('');
      for (const row of kuma.prepare(`SELECT id, slug, title, description${extra} FROM status_page ORDER BY id`).all() as { id: number; slug: string; title: string; description: string | null; footer_text?: string | null; theme?: string | null }[]) {
        const { footer_text, theme, ...p } = row;
        statusPages.push({
          ...p,
          footerText: footer_text ?? null,
          theme: theme ?? null,
          groups: (groups.all(p.id) as { id: number; name: string }[]).map((g) => ({ name: g.name, monitorIds: (members.all(g.id) as { monitor_id: number }[]).map((m) => m.monitor_id) })),
        });
      }
    }

    const maintenance: KumaMaintenance[] = [];
    if (tables.has('maintenance')) {
      const cols = columns('maintenance');
      const hasZone = cols.has('timezone');
      // Recurring strategies' columns (Kuma 1.21+; cron and duration in 2.x), read where they exist.
      const extra = ['start_time', 'end_time', 'weekdays', 'days_of_month', 'interval_day', 'cron', 'duration'].filter((c) => cols.has(c));
      const ofWindow = (table: string, column: string) => kuma.prepare(`SELECT ${column} AS id FROM ${table} WHERE maintenance_id = ? ORDER BY ${column}`);
      const mons = ofWindow('monitor_maintenance', 'monitor_id');
      const pages = tables.has('maintenance_status_page') ? ofWindow('maintenance_status_page', 'status_page_id') : null;
      const rows = kuma.prepare(`SELECT id, title, description, strategy, active, start_date, end_date${hasZone ? ', timezone' : ''}${extra.map((c) => `, ${c}`).join('')} FROM maintenance ORDER BY id`).all() as Record<string, unknown>[];
      for (const w of rows) {
        maintenance.push({
          id: w.id as number,
          title: String(w.title),
          description: String(w.description ?? ''),
          strategy: String(w.strategy),
          active: w.active === 1 || w.active === true,
          startDate: (w.start_date as string | null) ?? null,
          endDate: (w.end_date as string | null) ?? null,
          timezone: (w.timezone as string | null | undefined) ?? null,
          startTime: (w.start_time as string | null | undefined) ?? null,
          endTime: (w.end_time as string | null | undefined) ?? null,
          weekdays: jsonList(w.weekdays) as number[],
          daysOfMonth: jsonList(w.days_of_month) as Array<number | string>,
          intervalDay: (w.interval_day as number | null | undefined) ?? null,
          cron: (w.cron as string | null | undefined) ?? null,
          durationSeconds: (w.duration as number | null | undefined) ?? null,
          monitorIds: (mons.all(w.id) as { id: number }[]).map((r) => r.id),
          statusPageIds: pages ? (pages.all(w.id) as { id: number }[]).map((r) => r.id) : [],
        });
      }
    }
    return { source: tables.has('knex_migrations') ? '2.x' : '1.23', monitors, notifications, statusPages, maintenance };
  } finally {
    kuma.close();
  }
}

/** The id map of `pharos import kuma` (table `kuma_imports`). */
export function kumaImportsStore(db: Db) {
  const get = db.prepare<[string, number], { uuid: string }>('SELECT uuid FROM kuma_imports WHERE kind = ? AND kuma_id = ?');
  const put = db.prepare('INSERT INTO kuma_imports(kind, kuma_id, uuid, imported_at) VALUES (?, ?, ?, ?)');
  const alias = db.prepare<[string], { uuid: string }>('SELECT uuid FROM kuma_imports WHERE kind = ? LIMIT 1');
  return {
    /**
     * The ping token (`tok_…`) of the healthcheck an imported push monitor became, by Kuma's push
     * token (issue 36; recorded as kind `push-token:<token>`), or undefined.
     */
    pushAlias: (kumaToken: string): string | undefined => alias.get(`push-token:${kumaToken}`)?.uuid,
    /** The Pharos uuid a Kuma object of `kind` became, or undefined when never imported. */
    uuidOf: (kind: string, kumaId: number): string | undefined => get.get(kind, kumaId)?.uuid,
    /** Records an import. Call inside the importing transaction. */
    remember(kind: string, kumaId: number, uuid: string, at: number): void {
      put.run(kind, kumaId, uuid, at);
    },
  };
}
